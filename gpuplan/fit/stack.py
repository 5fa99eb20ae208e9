"""The stack's own DRA objects for `gpuplan fit`, straight from the plans, without running the Pulumi program.

Running the program under the mock runtime costs a second or more (importing the SDK's resource classes), more
than the whole fit; the objects fit reads are plain functions of the config, computed by the same plans the
resources use (components/plans/device_classes.py, claim_templates.py, quota.py, migration.py and the
maintenance config). tests/gpuplan/test_fit_stack.py checks, for every committed stack, that they equal what
the program records (the DeviceClass, ResourceClaimTemplate, ResourceQuota, Namespace and DeviceTaintRule
manifests of `gpuplan preview`), so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.dra.slices import RESOURCE_API, chart_device_classes
from dra_gpu_platform.plans.claim_templates import ClaimPlan, plan_claim
from dra_gpu_platform.plans.device_classes import plan_device_classes
from dra_gpu_platform.plans.migration import namespace_labels
from dra_gpu_platform.plans.quota import quota_hard

QUOTA_NAME = "gpu-quota"  # components/resources/tenancy/tenant_namespace.py QUOTA_NAME
TAINT_RULE_API = "resource.k8s.io/v1alpha3"


def _selectors(expressions: tuple[str, ...]) -> dict[str, Any]:
    return {"selectors": [{"cel": {"expression": e}} for e in expressions]} if expressions else {}


def claim_devices(plan: ClaimPlan) -> dict[str, Any]:
    """`spec.spec.devices` of the template TenantNamespace declares for a claim plan."""
    if plan.exactly is not None:
        exact = plan.exactly
        body: dict[str, Any] = {"deviceClassName": exact.device_class, "allocationMode": exact.allocation_mode}
        if exact.count is not None:
            body["count"] = exact.count
        body.update(_selectors(exact.selectors))
        if exact.admin_access:
            body["adminAccess"] = True
        request: dict[str, Any] = {"name": plan.request, "exactly": body}
    else:
        subs = []
        for sub in plan.first_available:
            entry: dict[str, Any] = {
                "name": sub.name,
                "deviceClassName": sub.device_class,
                "allocationMode": sub.allocation_mode,
            }
            if sub.count is not None:
                entry["count"] = sub.count
            entry.update(_selectors(sub.selectors))
            subs.append(entry)
        request = {"name": plan.request, "firstAvailable": subs}
    devices: dict[str, Any] = {"requests": [request]}
    if plan.match_attribute:
        devices["constraints"] = [{"requests": [plan.request], "matchAttribute": plan.match_attribute}]
    return devices


def stack_documents(config: StackConfig) -> list[dict[str, Any]]:
    """DeviceClass, Namespace, ResourceQuota, ResourceClaimTemplate and DeviceTaintRule objects of the stack."""
    documents: list[dict[str, Any]] = []
    for plan in sorted(plan_device_classes(config), key=lambda p: p.name):
        spec: dict[str, Any] = {**_selectors(plan.selectors)}
        if plan.configs:
            spec["config"] = [
                {"opaque": {"driver": driver, "parameters": parameters}} for driver, parameters in plan.configs
            ]
        documents.append(
            {"apiVersion": RESOURCE_API, "kind": "DeviceClass", "metadata": {"name": plan.name}, "spec": spec}
        )
    for ns in sorted(config.namespaces, key=lambda n: n.name):
        documents.append(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": ns.name, "labels": namespace_labels(ns.migration, ns.admin_access, ns.labels)},
            }
        )
        if ns.quota is not None and quota_hard(ns.quota):
            documents.append(
                {
                    "apiVersion": "v1",
                    "kind": "ResourceQuota",
                    "metadata": {"name": QUOTA_NAME, "namespace": ns.name},
                    "spec": {"hard": quota_hard(ns.quota)},
                }
            )
        for template in sorted(ns.claim_templates, key=lambda t: t.name):
            documents.append(
                {
                    "apiVersion": RESOURCE_API,
                    "kind": "ResourceClaimTemplate",
                    "metadata": {"name": template.name, "namespace": ns.name},
                    "spec": {"spec": {"devices": claim_devices(plan_claim(template))}},
                }
            )
    for taint in sorted(config.maintenance.device_taints, key=lambda t: t.name):
        body = {"key": taint.key, "effect": taint.effect, **({"value": taint.value} if taint.value is not None else {})}
        documents.append(
            {
                "apiVersion": TAINT_RULE_API,
                "kind": "DeviceTaintRule",
                "metadata": {"name": taint.name},
                "spec": {
                    "deviceSelector": {"driver": taint.driver, "pool": taint.pool, "device": taint.device},
                    "taint": body,
                },
            }
        )
    return documents


def chart_classes(config: StackConfig) -> list[dict[str, Any]]:
    """The DeviceClasses the driver chart creates by itself."""
    version = None if config.uses_example_driver else config.dra_driver.version
    return chart_device_classes(config.driver_device_classes(), version)


def cluster_gates(config: StackConfig) -> dict[str, bool]:
    """Gates the stack itself sets on its cluster (kind's featureGates; the extended-resource bridge)."""
    if config.platform == "kind":
        from dra_gpu_platform.plans.kind import feature_gates

        return feature_gates(config)
    return {"DRAExtendedResource": True} if config.dra_driver.extended_resource_bridge else {}
