"""What `gpuplan fit` tells about pods beyond where they land: a placed pod that still waits for its devices'
binding conditions, and pods that meant to share a GPU through a sharing class but each got their own.

Binding conditions (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus): a device that carries
`bindingConditions` is allocated like any other, then the scheduler holds the pod in PreBind until the driver sets
every one of those conditions True in the claim's `status.devices`; a `bindingFailureConditions` entry set True, or
the plugin's `bindingTimeout` (600 s by default), deallocates the claim and the pod is scheduled again
(docs/references.md#dra-binding-conditions-prebind). No NVIDIA DRA driver publishes such devices
(docs/references.md#nvidia-dra-no-binding-conditions): this applies to inventories that carry them.

Sharing: time-slicing and MPS share the device of one claim among the pods (and containers) that use that claim. A
ResourceClaimTemplate makes a claim per pod, so every pod gets a device of its own; several pods share one GPU only
through one ResourceClaim named by `resourceClaimName` (namespaces[].sharedClaims)
(docs/references.md#dra-shared-claims).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dra_gpu_platform.dra.claims import DeviceClassSpec

# kube-scheduler DynamicResourcesArgs.bindingTimeout default (DynamicResourcesBindingTimeoutDefault).
BINDING_TIMEOUT_SECONDS = 600

Conditions = tuple[tuple[str, ...], tuple[str, ...]]  # (bindingConditions, bindingFailureConditions)


def binding_conditions(slices: Iterable[Mapping[str, Any]]) -> dict[str, Conditions]:
    """`driver/pool/device` -> its binding and failure conditions, for the devices that have any."""
    found: dict[str, Conditions] = {}
    for document in slices:
        spec = document.get("spec") or {}
        pool = (spec.get("pool") or {}).get("name")
        for device in spec.get("devices") or []:
            conditions = tuple(str(c) for c in device.get("bindingConditions") or ())
            if conditions:
                failures = tuple(str(c) for c in device.get("bindingFailureConditions") or ())
                found[f"{spec.get('driver')}/{pool}/{device.get('name')}"] = (conditions, failures)
    return found


def binding_waits(instance: Mapping[str, Any], conditions: Mapping[str, Conditions]) -> list[dict[str, Any]]:
    """The devices of a placed pod whose binding conditions the pod waits for, per claim."""
    waits = []
    for claim in instance.get("claims") or []:
        for device in claim.get("devices") or []:
            found = conditions.get(device)
            if found is not None:
                waits.append(
                    {
                        "claim": claim["claim"],
                        "device": device,
                        "bindingConditions": list(found[0]),
                        "bindingFailureConditions": list(found[1]),
                    }
                )
    return waits


def wait_text(pod: str, wait: Mapping[str, Any]) -> str:
    failures = ", ".join(wait["bindingFailureConditions"]) or "none"
    return (
        f"{pod}: placed, then held in PreBind until the driver sets {', '.join(wait['bindingConditions'])} True on "
        f"claim {wait['claim']} (device {wait['device']}); a failure condition ({failures}) or "
        f"{BINDING_TIMEOUT_SECONDS} s without them deallocates the claim and the pod is scheduled again"
    )


def template_classes(spec: Any) -> set[str]:
    return {sub.device_class for request in spec.requests for sub in request.alternatives} if spec else set()


def sharing_notes(
    workloads: Iterable[tuple[Any, Mapping[str, Any]]],
    templates: Mapping[tuple[str, str], Any],
    classes: Mapping[str, DeviceClassSpec],
) -> list[str]:
    """One note per ResourceClaimTemplate of a sharing class that more than one pod uses: each pod got its own
    device. `workloads`: (Workload, its pod report) pairs."""
    users: dict[tuple[str, str], int] = {}
    for workload, pod in workloads:
        for ref in workload.claims:
            if ref.template:
                key = (workload.namespace, ref.template)
                users[key] = users.get(key, 0) + int(pod["replicas"])
    notes = []
    for (namespace, name), count in sorted(users.items()):
        template = templates.get((namespace, name))
        shared = sorted(
            f"{c} ({classes[c].sharing})"
            for c in template_classes(getattr(template, "spec", None))
            if c in classes and classes[c].sharing
        )
        if count > 1 and shared:
            notes.append(
                f"{count} pods use ResourceClaimTemplate {namespace}/{name} of sharing class {', '.join(shared)}: "
                "a template makes one claim per pod, so each pod gets a device of its own; to share one device, "
                "make one ResourceClaim (namespaces[].sharedClaims) and name it in the pods' resourceClaimName"
            )
    return notes


def annotate(
    workloads: list[Any],
    pods: list[dict[str, Any]],
    slices: Iterable[Mapping[str, Any]],
    templates: Mapping[tuple[str, str], Any],
    classes: Mapping[str, DeviceClassSpec],
) -> list[str]:
    """Adds `waits` (binding conditions of placed pods) to every pod report and returns the run's notes (sharing
    through templates, binding waits)."""
    conditions = binding_conditions(slices)
    notes = []
    for pod in pods:
        waits = []
        for instance in pod["instances"]:
            if instance["outcome"] != "allocated":
                continue
            for wait in binding_waits(instance, conditions):
                waits.append({"pod": instance["name"], **wait})
                notes.append(wait_text(f"pod {pod['namespace']}/{instance['name']}", wait))
        pod["waits"] = waits
    return sharing_notes(zip(workloads, pods, strict=True), templates, classes) + notes
