"""The stack's own DRA objects for `gpuplan fit`, straight from its StackPlan, without running the Pulumi program.

Running the program under the mock runtime costs a second or more (importing the SDK's resource classes), more
than the whole fit; the objects fit reads are the plan's parts as manifests, the very plan the resources create
(dra_gpu_platform/plans/device_classes.py, namespaces.py, claim_templates.py, maintenance.py).
tests/gpuplan/test_fit_stack.py checks, for every committed stack, that they equal what the program records (the
DeviceClass, ResourceClaimTemplate, ResourceClaim, ResourceQuota, Namespace and DeviceTaintRule manifests of
`gpuplan preview`),
so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.dra.devices import chart_device_classes
from dra_gpu_platform.plans.stack import StackPlan


def stack_documents(plan: StackPlan) -> list[dict[str, Any]]:
    """DeviceClass, Namespace, ResourceQuota, ResourceClaimTemplate, ResourceClaim and DeviceTaintRule objects of the
    stack."""
    documents = [device_class.manifest() for device_class in plan.device_classes]
    for namespace in plan.namespaces:
        documents += namespace.manifests()
    documents += [taint.manifest() for taint in plan.device_taints]
    return documents


def chart_classes(plan: StackPlan) -> list[dict[str, Any]]:
    """The DeviceClasses the driver chart creates by itself."""
    return chart_device_classes(
        plan.driver_device_classes, plan.dra_driver_version, plan.driver_class_extended_resource
    )
