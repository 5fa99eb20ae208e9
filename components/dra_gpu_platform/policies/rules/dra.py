"""Rules on DRA objects: selectors that compile, claims that name a real DeviceClass, quota keys that a
quota evaluator actually counts, and a quota for every class a namespace claims. Facts:
docs/references.md#dra-api-request-shapes, docs/references.md#cel-selector-limits,
docs/references.md#cel-unknown-domain-empty-map, docs/references.md#nvidia-memory-is-a-capacity,
docs/references.md#dra-quota-keys, docs/references.md#dra-quota-invalid-keys-accepted."""

from __future__ import annotations

import re

from pulumi_policy import PolicyConfigSchema, ResourceValidationArgs, Severity, StackValidationArgs

from dra_gpu_platform import cel
from dra_gpu_platform.dra import quota
from dra_gpu_platform.dra.claims import request_selectors
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import objects

# ---------------------------------------------------------------------------------------------------
# deviceclass-selector-valid

SELECTOR_SCHEMA = PolicyConfigSchema(
    properties={
        "extraCapacityNames": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "default": [],
            "description": "Capacity names other drivers publish, added to the NVIDIA and example-driver ones "
            "(reading one through device.attributes is flagged).",
        }
    }
)


def _selectors_of(resource_type: str, props) -> tuple[str, list[tuple[str, str]]] | None:
    if c.DEVICE_CLASS_RE.match(resource_type):
        selectors = c.as_list(c.dig(props, "spec", "selectors"))
        found = []
        for i, selector in enumerate(selectors):
            expression = c.dig(selector, "cel", "expression")
            if isinstance(expression, str):
                found.append((f"spec.selectors[{i}].cel.expression", expression))
        return "DeviceClass", found
    claim = objects.claim_devices(resource_type, props)
    if claim is None:
        return None
    devices, path = claim
    found = [s for request in request_selectors(c.plain(devices), path) for s in request.selectors]
    return resource_type.rsplit(":", 1)[-1], found


def _validate_selectors(args: ResourceValidationArgs, report_violation) -> None:
    found = _selectors_of(args.resource_type, args.props)
    if found is None:
        return
    kind, selectors = found
    capacities = set(cel.KNOWN_CAPACITY_NAMES) | {
        str(n) for n in c.setting(args, SELECTOR_SCHEMA, "extraCapacityNames")
    }
    name = c.metadata_name(args.props) or args.name
    for path, expression in selectors:
        for problem in cel.check_selector(expression, capacities):
            report_violation(f"{kind} {name} {path}: {problem}")


DEVICECLASS_SELECTOR_VALID = c.resource_policy(
    "deviceclass-selector-valid",
    description="DeviceClass and claim CEL selectors compile with the Kubernetes CEL libraries (quantity, semver), "
    "return bool, stay under 10 KiB, and read capacities such as memory from device.capacity.",
    validate=_validate_selectors,
    config_schema=SELECTOR_SCHEMA,
    severity=Severity.HIGH,
    remediation_steps=(
        "Fix the expression as the message says. Memory is a capacity: "
        "`device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0`, never "
        "`device.attributes['gpu.nvidia.com'].memory`. Compare quantities with compareTo/isGreaterThan and versions "
        "with semver(...). In dra-gpu-platform prefer the class sugar (gpu, minMemory, migProfile, "
        "minComputeCapability) over raw `selectors`."
    ),
)

# ---------------------------------------------------------------------------------------------------
# claim-template-class-exists (stack: needs every DeviceClass and driver chart of the stack)

CLASS_SCHEMA = PolicyConfigSchema(
    properties={
        "externalDeviceClasses": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "default": [],
            "description": "DeviceClasses that exist in the cluster but are created outside this stack.",
        }
    }
)


def _validate_classes_exist(args: StackValidationArgs, report_violation) -> None:
    declared = set(objects.stack_device_classes(args.resources))
    from_charts = set(objects.chart_device_classes(objects.stack_releases(args.resources)))
    external = {str(n) for n in c.setting(args, CLASS_SCHEMA, "externalDeviceClasses")}
    known = declared | from_charts | external
    for use in objects.stack_claims(args.resources):
        for request in use.requests:
            if request.device_class in known:
                continue
            what = f"names DeviceClass {request.device_class!r}" if request.device_class else "names no DeviceClass"
            report_violation(
                f"{use.kind} {use.namespace}/{use.name} {request.path} {what}, which is neither declared in this "
                f"stack nor created by a driver chart in it (known: {c.short(sorted(known)) or 'none'}); claims "
                f"from it stay Pending forever.",
                use.urn,
            )


CLAIM_TEMPLATE_CLASS_EXISTS = c.stack_policy(
    "claim-template-class-exists",
    description="ResourceClaimTemplates and ResourceClaims name a DeviceClass declared in the stack or created by "
    "a DRA driver chart installed by the stack.",
    validate=_validate_classes_exist,
    config_schema=CLASS_SCHEMA,
    severity=Severity.HIGH,
    remediation_steps=(
        "Declare the class (dra-gpu-platform: `deviceClasses[]`), use one the installed driver chart creates "
        "(NVIDIA: gpu.nvidia.com, mig.nvidia.com, vfio.gpu.nvidia.com from 25.12.0, compute-domain-*.nvidia.com "
        "with ComputeDomains; example driver: gpu.example.com), or list classes managed elsewhere in the policy "
        "config's `externalDeviceClasses`."
    ),
)

# ---------------------------------------------------------------------------------------------------
# dra-quota-keys-valid

TEMPLATES_KEY = "count/resourceclaimtemplates.resource.k8s.io"
_CLASS = r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?"
_DEVICES_KEY = re.compile(rf"^(?P<cls>{_CLASS})\.deviceclass\.resource\.k8s\.io/devices$")
# Kubernetes 1.35 with DRAExtendedResource: requests.deviceclass.resource.kubernetes.io/<class>
# (docs/references.md#dra-quota-extended-resource-keys).
_EXTENDED_KEY = re.compile(rf"^requests\.deviceclass\.resource\.kubernetes\.io/(?P<cls>{_CLASS})$")
_VALID_FIXED = (quota.CLAIMS_KEY, TEMPLATES_KEY)


def _looks_dra(key: str) -> bool:
    lowered = key.lower()
    return any(marker in lowered for marker in ("resource.k8s.io", "deviceclass", "resourceclaim"))


def _suggest_quota_key(key: str) -> str | None:
    """The key that was meant, or None when the key is valid."""
    if key in _VALID_FIXED or _DEVICES_KEY.match(key) or _EXTENDED_KEY.match(key):
        return None
    lowered = key.lower()
    if "resourceclaimtemplate" in lowered:
        return TEMPLATES_KEY
    if "resourceclaim" in lowered:
        return quota.CLAIMS_KEY
    body = re.sub(r"^(requests\.|limits\.|count/)", "", key)
    match = re.match(rf"^(?P<cls>{_CLASS})\.deviceclass\.resource\.k8s\.io(/.*)?$", body)
    if match is None:
        match = re.match(rf"^(?P<cls>{_CLASS})\.resource\.k8s\.io(/.*)?$", body)
    if match and len(match["cls"]) <= 253:
        return quota.devices_key(match["cls"])
    return ""


def _validate_quota_keys(args: ResourceValidationArgs, report_violation) -> None:
    if args.resource_type != c.RESOURCE_QUOTA:
        return
    name = f"{c.metadata_namespace(args.props)}/{c.metadata_name(args.props) or args.name}"
    for key in sorted(c.string_map(c.dig(args.props, "spec", "hard"))):
        if not _looks_dra(key):
            continue
        suggestion = _suggest_quota_key(key)
        if suggestion is None:
            continue
        fix = (
            f"use {suggestion!r}"
            if suggestion
            else f"use {quota.CLAIMS_KEY!r} or '<deviceclass>{quota.DEVICES_SUFFIX}'"
        )
        report_violation(
            f"ResourceQuota {name} key {key!r} is not a DRA quota key: the API server accepts it but no quota "
            f"evaluator counts it, so the namespace is not limited; {fix}."
        )


DRA_QUOTA_KEYS_VALID = c.resource_policy(
    "dra-quota-keys-valid",
    description="ResourceQuota keys that look like DRA keys have a form a quota evaluator counts "
    "(count/resourceclaims.resource.k8s.io, <class>.deviceclass.resource.k8s.io/devices).",
    validate=_validate_quota_keys,
    severity=Severity.MEDIUM,
    remediation_steps=(
        "Claims are counted by `count/resourceclaims.resource.k8s.io`; devices per class by "
        "`<class>.deviceclass.resource.k8s.io/devices`. `<name>.resource.k8s.io/count` does not exist. "
        "dra-gpu-platform builds these keys from `namespaces[].quota` (claims, devices)."
    ),
)

# ---------------------------------------------------------------------------------------------------
# gpu-namespace-has-quota (stack)


def _validate_namespace_quota(args: StackValidationArgs, report_violation) -> None:
    namespaces = objects.stack_namespaces(args.resources)
    quotas = objects.stack_quotas(args.resources)
    by_namespace: dict[str, list[objects.ClaimUse]] = {}
    for use in objects.stack_claims(args.resources):
        by_namespace.setdefault(use.namespace, []).append(use)
    for namespace, uses in sorted(by_namespace.items()):
        classes = sorted({cls for use in uses for cls in use.classes})
        if not classes:
            continue
        names = c.short(sorted(u.name for u in uses))
        ns_urn = namespaces[namespace].urn if namespace in namespaces else uses[0].urn
        found = quotas.get(namespace, [])
        if not found:
            report_violation(
                f"namespace {namespace} has claim templates ({names}) using {', '.join(classes)} but no "
                f"ResourceQuota: one team can claim every device of those classes. Add "
                f"{', '.join(quota.devices_key(cls) for cls in classes)}.",
                ns_urn,
            )
            continue
        keys = {key for _, hard in found for key in hard}
        missing = [cls for cls in classes if quota.devices_key(cls) not in keys]
        if missing:
            report_violation(
                f"namespace {namespace} claims {', '.join(missing)} (templates: {names}) but its quota has no "
                f"{', '.join(quota.devices_key(cls) for cls in missing)}: those devices are unlimited there.",
                found[0][0],
            )
        # a quota that closes a class (0) refuses every claim of it: the templates can never be used
        closed = [
            cls
            for cls in classes
            if cls not in missing and any(_amount(hard.get(quota.devices_key(cls))) == 0 for _, hard in found)
        ]
        if closed:
            report_violation(
                f"namespace {namespace} has claim templates ({names}) using {', '.join(closed)} but its quota grants "
                f"0 devices of {'them' if len(closed) > 1 else 'it'}: every such claim is refused. Grant the class "
                f"(namespaces[].quota.devices) or use one the namespace is granted.",
                found[0][0],
            )


def _amount(raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        return int(parse_quantity(str(raw)).value)
    except QuantityError:
        return None


GPU_NAMESPACE_HAS_QUOTA = c.stack_policy(
    "gpu-namespace-has-quota",
    description="Every namespace with claim templates has a ResourceQuota with a devices key for each DeviceClass "
    "they use, granting more than 0.",
    validate=_validate_namespace_quota,
    severity=Severity.MEDIUM,
    remediation_steps=(
        "Give the namespace a quota per class: in dra-gpu-platform `namespaces[].quota.devices: {<class>: N}` "
        "(rendered as <class>.deviceclass.resource.k8s.io/devices), usually with `quota.claims` too."
    ),
)
