"""claims-satisfiable: every ResourceClaimTemplate of the stack can be allocated on some GPU node pool.

The inventory is rebuilt from the stack's own resources, so the rule works under the real Pulumi CLI:
node pools (EKS node groups, AKS agent pools, kind workers) carrying the DRA kubelet plugin label publish
devices as their driver would (NVIDIA per the catalog; the dra-example-driver on kind), the DeviceClasses
are the stack's plus those the installed driver chart creates, and the allocation follows Kubernetes'
rules (components/dra/scheduler.py and allocator.py, the model behind `gpuplan fit`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pulumi_policy import Severity, StackValidationArgs

from dra_gpu_platform.dra.claims import parse_claim_spec, parse_device_class
from dra_gpu_platform.dra.cluster import build_cluster
from dra_gpu_platform.dra.model import Features, PodClaim
from dra_gpu_platform.dra.scheduler import Scheduler
from dra_gpu_platform.dra.slices import (
    EXAMPLE_DEVICE,
    Inventory,
    apply_taint_rules,
    catalog_gpus,
    catalog_mig_shapes,
    chart_device_classes,
    example_device,
    nvidia_naming,
    nvidia_node_devices,
    resource_slices,
    stable_uuid,
)
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts.node_labels import DRA_KUBELET_PLUGIN_LABEL, GPU_LABEL, MIG_CONFIG_LABEL, POOL_LABEL
from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.policies import stack_resources as recorded
from dra_gpu_platform.policies.rules import common as c

DEVICE_CLASS = Upstream.DEVICE_CLASS
CLAIM_TEMPLATE = Upstream.RESOURCE_CLAIM_TEMPLATE
DEVICE_TAINT_RULE = Upstream.DEVICE_TAINT_RULE


def _integral(value: Any) -> Any:
    """Props arrive through protobuf Structs, where every number is a float: counts 9.0 become 9 again."""
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _gpu_model(pool: recorded.RecordedNodePool):
    if pool.labels.get(GPU_LABEL) in catalog.GPU_MODELS:
        return catalog.gpu_model(pool.labels[GPU_LABEL])
    shape = catalog.instance_type_named(pool.instance_type)
    return catalog.gpu_model(shape.gpu) if shape else None


def _per_root(pool: recorded.RecordedNodePool) -> int:
    shape = catalog.instance_type_named(pool.instance_type)
    return shape.gpus_per_pcie_root if shape else 1


def _kind_workers(resources: Iterable[Any]) -> dict[str, list[str]]:
    """kind names workers <cluster>-worker, -worker2, ... in config order; DeviceTaintRules use these names."""
    workers: dict[str, list[str]] = {}
    for resource in resources:
        if resource.resource_type != c.COMMAND:
            continue
        document = recorded.kind_config(resource.props)
        if document is None:
            continue
        index = 0
        for node in document.get("nodes") or []:
            if isinstance(node, dict) and node.get("role") == "worker":
                index += 1
                pool = str((node.get("labels") or {}).get(POOL_LABEL, "workers"))
                workers.setdefault(pool, []).append(
                    f"{document.get('name', 'kind')}-worker{'' if index == 1 else index}"
                )
    return workers


def stack_inventory(resources: list[Any]) -> tuple[Inventory | None, list[str]]:
    """The DRA devices the stack's pools would publish at max scale; None when the stack declares no node
    pools at all (an existing cluster: nothing to simulate)."""
    pools = recorded.stack_pools(resources)
    if not pools:
        return None, []
    releases = recorded.stack_releases(resources)
    nvidia = next((r for r in releases if r.chart in recorded.NVIDIA_DRA_CHARTS), None)
    example = any(r.chart in recorded.EXAMPLE_DRA_CHARTS for r in releases)
    kind_workers = _kind_workers(resources)
    naming = nvidia_naming(nvidia.version) if nvidia and nvidia.version else "current"
    slices: list[dict[str, Any]] = []
    node_pools: dict[str, str] = {}
    notes: list[str] = []
    for pool in pools:
        if pool.labels.get(DRA_KUBELET_PLUGIN_LABEL) != "true":
            continue  # only nodes running the DRA kubelet plugin publish devices
        names = kind_workers.get(pool.name) if pool.platform == "kind" else None
        names = names or [f"{pool.name}-{i}" for i in range(pool.max_nodes or 0)]
        model = _gpu_model(pool)
        for node in names:
            node_pools[node] = pool.name
            if pool.platform == "kind" and example:
                devices = [
                    example_device(i, f"gpu-{stable_uuid(node, 'example', i)}")
                    for i in range(EXAMPLE_DEVICE.count_per_node)
                ]
                slices += resource_slices(node, catalog.EXAMPLE_DRIVER, devices)
            elif nvidia is not None and model is not None:
                gpus = catalog_gpus(model, pool.gpus_per_node or 1, node, _per_root(pool))
                mig = pool.labels.get(MIG_CONFIG_LABEL, "").removeprefix("all-") or None
                slices += resource_slices(
                    node, catalog.NVIDIA_DRIVER, nvidia_node_devices(gpus, node, catalog_mig_shapes(model), mig, naming)
                )
        if model is None and nvidia is not None and pool.platform != "kind":
            notes.append(f"pool {pool.name}: GPU model unknown ({pool.instance_type}); not simulated")
    return Inventory("stack", tuple(slices), node_pools, tuple(notes)), notes


def _classes(resources: list[Any]) -> dict[str, Any]:
    releases = recorded.stack_releases(resources)
    nvidia = next((r for r in releases if r.chart in recorded.NVIDIA_DRA_CHARTS), None)
    documents = chart_device_classes(
        sorted(recorded.chart_device_classes(releases)), nvidia.version if nvidia else None
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
    templates = [r for r in resources if r.resource_type == CLAIM_TEMPLATE]
    if not templates:
        return
    inventory, _ = stack_inventory(resources)
    if inventory is None:
        return  # no node pools in this program: the devices live elsewhere
    taint_rules = [_integral(c.plain(r.props)) for r in resources if r.resource_type == DEVICE_TAINT_RULE]
    classes = _classes(resources)
    parsed = []
    for template in templates:
        props = _integral(c.plain(template.props))
        meta = props.get("metadata") or {}
        spec, problems = parse_claim_spec(c.dig(props, "spec", "spec", "devices"), "spec.spec.devices")
        if spec is None or problems:
            continue  # malformed requests are the schema's and claim-template-class-exists' business
        parsed.append((template, PodClaim(str(meta.get("namespace", "?")), str(meta.get("name", template.name)), spec)))
    expressions = {e for d in classes.values() for e in d.selectors}
    expressions |= {e for _, claim in parsed for r in claim.spec.requests for s in r.alternatives for e in s.selectors}
    attributes = {k.attribute for _, claim in parsed for k in claim.spec.constraints if k.attribute}
    cluster = build_cluster(
        apply_taint_rules(list(inventory.slices), taint_rules),
        node_pools=inventory.node_pools,
        expressions=expressions,
        constraint_attributes=attributes,
    )
    # The stack creates DeviceTaintRules only on kind, where it also turns the taint gates on.
    scheduler = Scheduler(cluster, classes, Features(device_taints=bool(taint_rules)))
    for template, claim in parsed:
        where = f"ResourceClaimTemplate {claim.ref}"
        outcome = scheduler.place(claim)
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
    description="Every ResourceClaimTemplate can be allocated on some node pool of the stack (DRA allocation "
    "simulated on the devices the pools' drivers would publish at max scale).",
    validate=_validate_claims_satisfiable,
    severity=Severity.HIGH,
    remediation_steps=(
        "Run `gpuplan fit --stack <stack>` for the reason per pool (which selector failed on which attribute, "
        "or too few devices on one node); then add or resize a `gpuStack: dra` pool with matching GPUs, loosen "
        "the DeviceClass (e.g. minMemory below what NVML publishes), or lower the template's count."
    ),
)
