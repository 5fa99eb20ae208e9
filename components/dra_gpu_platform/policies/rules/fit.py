"""claims-satisfiable: every ResourceClaimTemplate and shared ResourceClaim of the stack can be allocated on some GPU
node pool.

The inventory is rebuilt from the stack's own resources, so the rule works under the real Pulumi CLI: the
pack's adapter reads the node pools (EKS node groups, AKS agent pools, kind workers) back as PoolPlans, and the
DRA pools among them publish devices as their driver would (NVIDIA per the catalog; the dra-example-driver on
kind) through the same simulation `gpuplan fit` runs (dra_gpu_platform/plans/stack_inventory.py), the DeviceClasses
are the stack's plus those the installed driver chart creates, and the allocation follows Kubernetes'
rules (dra_gpu_platform/dra/scheduler.py and allocator.py, the model behind `gpuplan fit`).
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import Severity, StackValidationArgs

from dra_gpu_platform.dra.claims import parse_claim_spec, parse_device_class
from dra_gpu_platform.dra.cluster import build_cluster
from dra_gpu_platform.dra.devices import chart_device_classes
from dra_gpu_platform.dra.inventory import Inventory
from dra_gpu_platform.dra.model import Features, PodClaim
from dra_gpu_platform.dra.scheduler import Scheduler
from dra_gpu_platform.dra.tolerations import apply_taint_rules
from dra_gpu_platform.facts import catalog, driver_features
from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.plans.stack_inventory import pools_inventory
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import objects
from dra_gpu_platform.recorded import pools as recorded

DEVICE_CLASS = Upstream.DEVICE_CLASS
CLAIM_TEMPLATE = Upstream.RESOURCE_CLAIM_TEMPLATE
RESOURCE_CLAIM = Upstream.RESOURCE_CLAIM  # the stack's shared claims (namespaces[].sharedClaims)
DEVICE_TAINT_RULES = Upstream.DEVICE_TAINT_RULES


def _integral(value: Any) -> Any:
    """Props arrive through protobuf Structs, where every number is a float: counts 9.0 become 9 again."""
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def recorded_inventory(resources: list[Any]) -> Inventory | None:
    """The DRA devices the stack's pools would publish at max scale (dra_gpu_platform/plans/stack_inventory.py, the
    simulation `gpuplan fit` runs on the stack's own plan): the cloud and kind pools, and an existing cluster's pools
    read back from the node patches (their named nodes); None when the program declares no pools at all."""
    pools = [pool for _, pool in recorded.stack_pools(resources)]
    if not pools and not recorded.declares_node_pools(resources):
        return None
    releases = objects.stack_releases(resources)
    nvidia = objects.nvidia_dra_driver(releases)  # the driver chart, or a GPUCluster's driver
    if any(r.chart in objects.EXAMPLE_DRA_CHARTS for r in releases):
        driver, version = catalog.EXAMPLE_DRIVER, None
    elif nvidia is not None:
        driver, version = catalog.NVIDIA_DRIVER, nvidia.version
    else:
        driver, version = None, None
    return pools_inventory(pools, driver, version, "stack", dynamic_mig=dynamic_mig(releases))


def dynamic_mig(releases: list[Any]) -> bool:
    """The recorded NVIDIA DRA driver release runs with DynamicMIG: its GPUs are partitionable devices (the config
    rules allow it only where DRAPartitionableDevices is on)."""
    nvidia = next((r for r in releases if r.chart in objects.NVIDIA_DRA_CHARTS), None)
    return nvidia is not None and nvidia.value("featureGates", driver_features.DYNAMIC_MIG) is True


def _classes(resources: list[Any]) -> dict[str, Any]:
    releases = objects.stack_releases(resources)
    nvidia = objects.nvidia_dra_driver(releases)
    documents = chart_device_classes(
        sorted(objects.chart_device_classes(releases)),
        nvidia.version if nvidia else None,
        nvidia.class_extended_resource if nvidia else None,
    )
    documents += [_integral(c.plain(r.props)) for r in resources if r.resource_type == DEVICE_CLASS]
    classes = {}
    for document in documents:
        spec, problems = parse_device_class(document)
        if spec is not None and not problems:
            classes[spec.name] = spec
    return classes


def _validate_claims_satisfiable(args: StackValidationArgs, report_violation) -> None:
    resources = list(args.resources)
    templates = [r for r in resources if r.resource_type in (CLAIM_TEMPLATE, RESOURCE_CLAIM)]
    if not templates:
        return
    inventory = recorded_inventory(resources)
    if inventory is None:
        return  # no node pools in this program: the devices live elsewhere
    taint_rules = [_integral(c.plain(r.props)) for r in resources if r.resource_type in DEVICE_TAINT_RULES]
    classes = _classes(resources)
    parsed = []
    for template in templates:
        props = _integral(c.plain(template.props))
        meta = props.get("metadata") or {}
        devices, path = objects.claim_devices(template.resource_type, props) or (None, "spec.devices")
        spec, problems = parse_claim_spec(devices, path)
        if spec is None or problems:
            continue  # malformed requests are the schema's and claim-template-class-exists' business
        kind = "ResourceClaim" if template.resource_type == RESOURCE_CLAIM else "ResourceClaimTemplate"
        claim = PodClaim(str(meta.get("namespace", "?")), str(meta.get("name", template.name)), spec)
        parsed.append((template, kind, claim))
    expressions = {e for d in classes.values() for e in d.selectors}
    expressions |= {e for *_, claim in parsed for r in claim.spec.requests for s in r.alternatives for e in s.selectors}
    attributes = {k.attribute for *_, claim in parsed for k in claim.spec.constraints if k.attribute}
    cluster = build_cluster(
        apply_taint_rules(list(inventory.slices), taint_rules),
        node_pools=inventory.node_pools,
        expressions=expressions,
        constraint_attributes=attributes,
    )
    # The stack creates DeviceTaintRules only where the taint gates are on (1.37, or kind, which turns them on);
    # dynamic MIG only where DRAPartitionableDevices is (dra_gpu_platform/config/rules/software.py).
    partitionable = dynamic_mig(objects.stack_releases(resources))
    scheduler = Scheduler(
        cluster, classes, Features(device_taints=bool(taint_rules), partitionable_devices=partitionable)
    )
    for template, kind, claim in parsed:
        where = f"{kind} {claim.ref}"
        outcome = scheduler.place(claim, single=kind == "ResourceClaim")
        if outcome.errors:
            report_violation(f"{where}: allocation aborts with an error: {'; '.join(outcome.errors)}", template.urn)
        elif not outcome.satisfiable:
            report_violation(
                f"{where} cannot be allocated on any node pool of this stack at max scale, so its claims stay "
                f"Pending: {'; '.join(outcome.reasons) or 'no matching devices'}",
                template.urn,
            )


CLAIMS_SATISFIABLE = c.stack_policy(
    "claims-satisfiable",
    description="Every ResourceClaimTemplate and ResourceClaim can be allocated on some node pool of the stack (DRA allocation "
    "simulated on the devices the pools' drivers would publish at max scale).",
    validate=_validate_claims_satisfiable,
    severity=Severity.HIGH,
    remediation_steps=(
        "Run `gpuplan fit --stack <stack>` for the reason per pool (which selector failed on which attribute, "
        "or too few devices on one node); then add or resize a `gpuStack: dra` pool with matching GPUs, loosen "
        "the DeviceClass (e.g. minMemory below what NVML publishes), or lower the template's count."
    ),
)
