"""Rules of `namespaces`: migration state against the pools, quotas and claim templates (and shared claims) against
the classes, device tolerations against the cluster's gates."""

from __future__ import annotations

from collections import Counter

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections.namespaces import ClaimTemplateConfig, DeviceTolerationConfig, NamespaceConfig
from dra_gpu_platform.facts import kubernetes, pod_security
from dra_gpu_platform.facts.naming import (
    ADMIN_ACCESS_LABEL,
    DNS_SUBDOMAIN_MAX,
    GPU_MODE_LABEL,
    QUOTA_DEVICES_DOMAIN,
    dns_label,
)
from dra_gpu_platform.facts.quota_charge import Alternative, devices_charged

PROTECTED = (GPU_MODE_LABEL, ADMIN_ACCESS_LABEL)  # labels the platform derives from the namespace's settings


def check(r: RuleContext) -> None:
    c = r.c
    r.unique("namespaces", (n.name for n in c.namespaces))
    usable = c.usable_device_classes()
    has_plugin_pool = bool(c.device_plugin_pools)
    for i, ns in enumerate(c.namespaces):
        at = f"namespaces[{i}]"
        if ns.migration in ("legacy", "dual") and not has_plugin_pool and not c.extended_resource_bridge_on:
            r.add(
                f"{at}.migration",
                ns.migration,
                f"a {ns.migration} namespace runs nvidia.com/gpu pods, which need a device-plugin pool or the "
                "extended-resource bridge (DRA serving nvidia.com/gpu)",
                _no_plugin_pool_fix(r),
            )
        if ns.migration in ("dual", "dra-only"):
            if not c.dra_pools:
                r.add(
                    f"{at}.migration",
                    ns.migration,
                    f"a {ns.migration} namespace uses DRA claims, which need a pool with gpuStack: dra",
                    "add a dra pool, or set migration: legacy",
                )
            elif not c.dra_driver.enabled and not c.uses_example_driver:
                r.add(
                    f"{at}.migration",
                    ns.migration,
                    f"a {ns.migration} namespace needs the DRA driver",
                    "set draDriver.enabled: true",
                )
        for key in sorted(ns.labels):
            if key in PROTECTED or key.startswith(pod_security.LABEL_PREFIX):
                r.add(
                    f"{at}.labels.{key}",
                    ns.labels[key],
                    "this label is set by the platform from the namespace's settings (and only the deployer may "
                    "change it in the cluster)",
                    "use namespaces[].podSecurity (restricted | baseline), migration or adminAccess instead",
                )
        if ns.migration == "legacy":
            for key, what, claims in (
                ("claimTemplates", "claim templates", ns.claim_templates),
                ("sharedClaims", "shared claims", ns.shared_claims),
            ):
                if claims:
                    r.add(
                        f"{at}.{key}",
                        [t.name for t in claims],
                        f"legacy namespaces use nvidia.com/gpu; {what} are not allowed",
                        "move the namespace to dual (both) or dra-only",
                    )
        quota = ns.quota
        if quota is not None:
            if quota.legacy_gpus and ns.migration == "dra-only":
                r.add(
                    f"{at}.quota.legacyGpus",
                    quota.legacy_gpus,
                    "dra-only namespaces deny nvidia.com/gpu requests",
                    "set legacyGpus: 0 or move the namespace to dual",
                )
            if quota.devices and ns.migration == "legacy":
                r.add(
                    f"{at}.quota.devices", quota.devices, "legacy namespaces make no DRA claims", "remove quota.devices"
                )
            for name in quota.devices:
                if r.dangling("deviceClasses", name, usable):
                    r.add(
                        f"{at}.quota.devices.{name}",
                        quota.devices[name],
                        "no such device class in this stack or its driver chart",
                        f"use one of {', '.join(sorted(usable)) or '(none)'}",
                    )
                elif name in usable and len(name + QUOTA_DEVICES_DOMAIN) > DNS_SUBDOMAIN_MAX:
                    r.add(
                        f"{at}.quota.devices.{name}",
                        quota.devices[name],
                        f"the quota key {name}{QUOTA_DEVICES_DOMAIN}/devices is no qualified name: its domain is longer "
                        f"than {DNS_SUBDOMAIN_MAX} characters (docs/references.md#dra-api-object-names)",
                        f"shorten the class name to at most {DNS_SUBDOMAIN_MAX - len(QUOTA_DEVICES_DOMAIN)} characters",
                    )
        r.unique(f"{at}.claimTemplates", (t.name for t in ns.claim_templates))
        for j, tpl in enumerate(ns.claim_templates):
            _template(r, f"{at}.claimTemplates[{j}]", ns, tpl, usable)
        r.unique(f"{at}.sharedClaims", (t.name for t in ns.shared_claims))
        for j, tpl in enumerate(ns.shared_claims):
            _template(r, f"{at}.sharedClaims[{j}]", ns, tpl, usable)
        _shared_claims_within_quota(r, at, ns)


def _no_plugin_pool_fix(r: RuleContext) -> str:
    c = r.c
    if c.cluster.minor >= 36 or c.profile.kubernetes.sets_feature_gates:
        models = sorted({p.gpu_name for p in c.dra_pools if p.mig is None})
        opt_in = f"{{gpus: [{', '.join(models)}]}}" if models else "{gpus: [<the models it may serve>]}"
        return (
            f"opt in to the extended-resource bridge with draDriver.extendedResourceBridge: {opt_in} (the models "
            "nvidia.com/gpu pods may get), add a node pool with gpuStack: device-plugin, or move the namespace to "
            "dra-only"
        )
    return (
        "add a node pool with gpuStack: device-plugin, move the namespace to dra-only, or use Kubernetes 1.36+, "
        "where DRA can serve nvidia.com/gpu through the extended-resource bridge (draDriver.extendedResourceBridge)"
    )


def _shared_claims_within_quota(r: RuleContext, at: str, ns: NamespaceConfig) -> None:
    """The namespace's ResourceQuota counts each shared ResourceClaim when the stack creates it (claims and devices
    per class: docs/references.md#dra-quota-charge); over the quota the API server refuses the object, so the
    deployment fails."""
    quota = ns.quota
    if quota is None or not ns.shared_claims:
        return
    claims = len(ns.shared_claims)
    if quota.claims is not None and claims > quota.claims:
        r.add(
            f"{at}.sharedClaims",
            [t.name for t in ns.shared_claims],
            f"the quota admits {quota.claims} ResourceClaims (count/resourceclaims.resource.k8s.io) and the stack "
            f"creates {claims} shared claims in the namespace, so the API server refuses the rest",
            f"raise quota.claims to at least {claims}, or share fewer claims",
        )
    charged: Counter[str] = Counter()
    for tpl in ns.shared_claims:
        charged.update(_charge(tpl))
    for device_class, amount in sorted(charged.items()):
        limit = quota.devices.get(device_class)
        if limit is not None and amount > limit:
            r.add(
                f"{at}.quota.devices.{device_class}",
                limit,
                f"the shared claims are charged {amount} {device_class} devices "
                f"({device_class}.deviceclass.resource.k8s.io/devices) when they are created, over the quota",
                f"raise quota.devices.{device_class} to at least {amount} (plus what the templates' pods need)",
            )


def _template(r: RuleContext, at: str, ns: NamespaceConfig, tpl: ClaimTemplateConfig, usable: set[str]) -> None:
    if (tpl.device_class is None) == (tpl.first_available is None):
        r.add(
            at,
            {"name": tpl.name},
            "a claim template needs exactly one of deviceClass or firstAvailable",
            "set deviceClass (with count) or list firstAvailable alternatives",
        )
    if tpl.first_available is not None:
        for key, value in (("count", tpl.count), ("allocationMode", tpl.allocation_mode)):
            if value is not None:
                r.add(
                    f"{at}.{key}",
                    value,
                    f"{key} belongs to each firstAvailable entry",
                    f"move {key} into the alternatives",
                )
        if tpl.selectors:
            r.add(
                f"{at}.selectors",
                tpl.selectors,
                "selectors belong to each firstAvailable entry",
                "move them into the alternatives",
            )
        if tpl.admin_access:
            r.add(f"{at}.adminAccess", True, "adminAccess cannot be combined with firstAvailable", "use deviceClass")
        if tpl.tolerations:
            r.add(
                f"{at}.tolerations",
                [t.key for t in tpl.tolerations],
                "tolerations belong to each firstAvailable entry (DeviceSubRequest.tolerations)",
                "move them into the alternatives",
            )
    _count(r, at, tpl.count, tpl.allocation_mode)
    _tolerations(r, f"{at}.tolerations", tpl.tolerations)
    if tpl.device_class is not None and r.dangling("deviceClasses", tpl.device_class, usable):
        r.add(
            f"{at}.deviceClass",
            tpl.device_class,
            "no such device class in this stack or its driver chart",
            f"use one of {', '.join(sorted(usable)) or '(none)'}",
        )
    if tpl.admin_access and not ns.admin_access:
        r.add(
            f"{at}.adminAccess",
            True,
            "adminAccess claims need the namespace label resource.kubernetes.io/admin-access",
            f"set namespaces[].adminAccess: true on {ns.name}",
        )
    names: Counter[str] = Counter()
    for k, sub in enumerate(tpl.first_available or []):
        sub_at = f"{at}.firstAvailable[{k}]"
        if r.dangling("deviceClasses", sub.device_class, usable):
            r.add(
                f"{sub_at}.deviceClass",
                sub.device_class,
                "no such device class in this stack or its driver chart",
                f"use one of {', '.join(sorted(usable)) or '(none)'}",
            )
        _count(r, sub_at, sub.count, sub.allocation_mode)
        _tolerations(r, f"{sub_at}.tolerations", sub.tolerations)
        names[sub.name or dns_label(sub.device_class)] += 1
    for name, seen in names.items():
        if seen > 1:
            r.add(
                f"{at}.firstAvailable",
                name,
                "two alternatives would get the same subrequest name",
                "give the alternatives distinct `name`s",
            )


def _count(r: RuleContext, at: str, count: int | None, mode: str | None) -> None:
    if mode == "All" and count is not None:
        r.add(
            f"{at}.count",
            count,
            "allocationMode: All takes every matching device; count is not allowed",
            "remove count or use ExactCount",
        )


def _tolerations(r: RuleContext, at: str, tolerations: list[DeviceTolerationConfig]) -> None:
    """DeviceTolerations: only where the cluster runs DRADeviceTaints (else the API server drops them and the claim
    gets tainted devices it meant to tolerate, or none); shapes as validateDeviceToleration checks them."""
    if not tolerations:
        return
    c = r.c
    if not c.dra_gate_available(kubernetes.DRA_DEVICE_TAINTS):
        r.add(
            at,
            [t.key for t in tolerations],
            f"device tolerations need the DRADeviceTaints feature gate, which is alpha and off in Kubernetes "
            f"{c.cluster.kubernetes_version} and cannot be turned on on {c.platform} (the API server would drop them)",
            'use kubernetesVersion "1.36" or newer (DRADeviceTaints beta and on), or a kind stack, or remove tolerations',
        )
    for k, toleration in enumerate(tolerations):
        where = f"{at}[{k}]"
        if toleration.key is None and toleration.operator != "Exists":
            r.add(
                f"{where}.operator",
                toleration.operator,
                "an empty key matches every taint key only with operator Exists",
                "set key, or operator: Exists",
            )
        if toleration.effect == "None" and c.cluster.minor < 35:
            r.add(
                f"{where}.effect",
                "None",
                "taint effect None exists from Kubernetes 1.35",
                "use NoSchedule or NoExecute",
            )
        if toleration.operator == "Exists" and toleration.value:
            r.add(f"{where}.value", toleration.value, "must be empty for operator Exists", "remove value")
        if toleration.toleration_seconds is not None and toleration.effect not in (None, "NoExecute"):
            r.add(
                f"{where}.tolerationSeconds",
                toleration.toleration_seconds,
                "tolerationSeconds only delays eviction by a NoExecute taint (other effects ignore it)",
                "set effect: NoExecute or remove tolerationSeconds",
            )


def _charge(tpl: ClaimTemplateConfig) -> dict[str, int]:
    """The devices the quota charges a claim of this template (dra_gpu_platform/facts/quota_charge.py)."""
    alternatives: list[Alternative]
    if tpl.first_available:
        alternatives = [(s.device_class, s.allocation_mode or "ExactCount", s.count or 1) for s in tpl.first_available]
    else:
        alternatives = [(tpl.device_class or "", tpl.allocation_mode or "ExactCount", tpl.count or 1)]
    return devices_charged([alternatives])
