"""Rules of `namespaces`: migration state against the pools, quotas and claim templates against the classes."""

from __future__ import annotations

from collections import Counter

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts.naming import DNS_SUBDOMAIN_MAX, QUOTA_DEVICES_DOMAIN, dns_label


def check(r: RuleContext) -> None:
    c = r.c
    r.unique("namespaces", (n.name for n in c.namespaces))
    usable = c.usable_device_classes()
    has_plugin_pool = bool(c.device_plugin_pools)
    for i, ns in enumerate(c.namespaces):
        at = f"namespaces[{i}]"
        if ns.migration in ("legacy", "dual") and not has_plugin_pool and not c.dra_driver.extended_resource_bridge:
            r.add(
                f"{at}.migration",
                ns.migration,
                f"a {ns.migration} namespace runs nvidia.com/gpu pods, which need a device-plugin pool",
                "add a node pool with gpuStack: device-plugin, move the namespace to dra-only, or turn on draDriver.extendedResourceBridge",
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
        if ns.migration == "legacy" and ns.claim_templates:
            r.add(
                f"{at}.claimTemplates",
                [t.name for t in ns.claim_templates],
                "legacy namespaces use nvidia.com/gpu; claim templates are not allowed",
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


def _template(r: RuleContext, at: str, ns, tpl, usable: set[str]) -> None:
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
    _count(r, at, tpl.count, tpl.allocation_mode)
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
        names[sub.name or dns_label(sub.device_class)] += 1
    for name, seen in names.items():
        if seen > 1:
            r.add(
                f"{at}.firstAvailable",
                name,
                "two alternatives would get the same subrequest name",
                "give the alternatives distinct `name`s",
            )


def _count(r: RuleContext, at: str, count, mode) -> None:
    if mode == "All" and count is not None:
        r.add(
            f"{at}.count",
            count,
            "allocationMode: All takes every matching device; count is not allowed",
            "remove count or use ExactCount",
        )
