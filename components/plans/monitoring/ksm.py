"""kube-state-metrics custom-resource-state config for resource.k8s.io/v1 ResourceClaims. Pure: no Pulumi.

kube-state-metrics has no stable ResourceClaim metrics, so "claim pending too long" needs these. Field paths follow
the v1 API (docs/references.md#dra-api-allocation-status; `status.allocation.devices.results[]` carries
request/driver/pool/device, `status.reservedFor[]` the consumers). Config syntax and naming:
kubernetes/kube-state-metrics docs/metrics/extend/customresourcestate-metrics.md (name = metricNamePrefix + "_" +
metric name; gauges parse RFC 3339 timestamps; a path that ends in a list yields one series per element).

Caveat, upstream: kube-state-metrics documents custom-resource-state for CRDs; built-in kinds such as
ResourceClaim are served only by versions that fall back to the configured GVK when CRD discovery does not
know it (pkg/customresourcestate/config.go on main; kubernetes/kube-state-metrics#2681 for versions that drop
them). The runbook says how to check that the series exist.
"""

from __future__ import annotations

from typing import Any

PREFIX = "kube_customresource"
GROUP = "resource.k8s.io"
VERSION = "v1"
KIND = "ResourceClaim"
RESOURCE = "resourceclaims"

# Claims not yet allocated have no status.allocation; keep the "path not found" log quiet for them.
_QUIET = 5

_METRICS: tuple[dict[str, Any], ...] = (
    {
        "name": "resourceclaim_created",
        "help": "Unix creation timestamp of the ResourceClaim.",
        "each": {"type": "Gauge", "gauge": {"path": ["metadata"], "valueFrom": ["creationTimestamp"]}},
    },
    {
        "name": "resourceclaim_request_info",
        "help": "One series per request of the claim, with its device class (exactly requests).",
        "each": {
            "type": "Info",
            "info": {
                "path": ["spec", "devices", "requests"],
                "labelsFromPath": {
                    "request": ["name"],
                    "device_class": ["exactly", "deviceClassName"],
                    "allocation_mode": ["exactly", "allocationMode"],
                },
            },
        },
    },
    {
        # Prioritized lists: the device class is per subrequest. Only the first request is covered, which is
        # the one request every claim template of this package has.
        "name": "resourceclaim_subrequest_info",
        "help": "One series per firstAvailable subrequest of the claim's first request, with its device class.",
        "labelsFromPath": {"request": ["spec", "devices", "requests", "0", "name"]},
        "errorLogV": _QUIET,
        "each": {
            "type": "Info",
            "info": {
                "path": ["spec", "devices", "requests", "0", "firstAvailable"],
                "labelsFromPath": {"subrequest": ["name"], "device_class": ["deviceClassName"]},
            },
        },
    },
    {
        "name": "resourceclaim_allocated_device_info",
        "help": "One series per allocated device; a claim without series is not allocated.",
        "errorLogV": _QUIET,
        "each": {
            "type": "Info",
            "info": {
                "path": ["status", "allocation", "devices", "results"],
                "labelsFromPath": {
                    "request": ["request"],
                    "driver": ["driver"],
                    "pool": ["pool"],
                    "device": ["device"],
                },
            },
        },
    },
    {
        "name": "resourceclaim_reserved_for_info",
        "help": "One series per consumer (usually a pod) the claim is reserved for.",
        "errorLogV": _QUIET,
        "each": {
            "type": "Info",
            "info": {
                "path": ["status", "reservedFor"],
                "labelsFromPath": {"consumer_resource": ["resource"], "consumer_name": ["name"]},
            },
        },
    },
)


def config() -> dict[str, Any]:
    """The CustomResourceStateMetrics document (the file passed with --custom-resource-state-config-file)."""
    return {
        "kind": "CustomResourceStateMetrics",
        "spec": {
            "resources": [
                {
                    "groupVersionKind": {"group": GROUP, "version": VERSION, "kind": KIND},
                    "resourcePlural": RESOURCE,
                    "metricNamePrefix": PREFIX,
                    "labelsFromPath": {"namespace": ["metadata", "namespace"], "resourceclaim": ["metadata", "name"]},
                    "metrics": [dict(m) for m in _METRICS],
                }
            ]
        },
    }


def generated_names(document: dict[str, Any]) -> frozenset[str]:
    """Metric names kube-state-metrics generates for a custom-resource-state document."""
    names = set()
    for resource in document["spec"]["resources"]:
        prefix = resource.get("metricNamePrefix", "kube_customresource")
        for metric in resource["metrics"]:
            names.add(f"{prefix}_{metric['name']}" if prefix else metric["name"])
    return frozenset(names)


METRIC_NAMES = generated_names(config())
CREATED = f"{PREFIX}_resourceclaim_created"
REQUEST_INFO = f"{PREFIX}_resourceclaim_request_info"
SUBREQUEST_INFO = f"{PREFIX}_resourceclaim_subrequest_info"
ALLOCATED_DEVICE_INFO = f"{PREFIX}_resourceclaim_allocated_device_info"
RESERVED_FOR_INFO = f"{PREFIX}_resourceclaim_reserved_for_info"

# kube-state-metrics lists and watches what it reports on; the discovery of custom-resource-state lists CRDs.
RBAC_RULES: tuple[dict[str, Any], ...] = (
    {"apiGroups": [GROUP], "resources": [RESOURCE], "verbs": ["list", "watch"]},
    {"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": ["list", "watch"]},
)
