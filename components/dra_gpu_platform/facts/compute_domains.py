"""The NVIDIA DRA driver's ComputeDomains, as the pinned chart defines them: the ComputeDomain custom resource a
multi-node NVLink workload creates, and what the driver needs on the nodes. Pure data.

Read at kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 (764900e7), `deployments/helm/dra-driver-nvidia-gpu/`
(docs/references.md#nvidia-dra-computedomain-crd, docs/references.md#nvidia-dra-computedomain-workload): the CRD
`crds/resource.nvidia.com_computedomains.yaml`, the chart value `resources.computeDomains.enabled`, the IMEX daemon
and workload claim templates `templates/compute-domain-*.tmpl.yaml`. The CRD is unchanged on main (0.5.0-dev,
2026-08-07). No chart file is committed: the fields below are the record the docs example is tested against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

API_VERSION = "resource.nvidia.com/v1beta1"
KIND = "ComputeDomain"
# The driver that publishes the IMEX channel and daemon devices (cmd/compute-domain-kubelet-plugin).
DRIVER = "compute-domain.nvidia.com"
# The chart's class a workload's channel request names (templates/deviceclass-compute-domain-default-channel.yaml);
# the controller writes it into the ResourceClaimTemplate it creates for each ComputeDomain.
CHANNEL_CLASS = "compute-domain-default-channel.nvidia.com"
# GPU Feature Discovery's label on each node of a multi-node NVLink domain, <cluster UUID>.<clique ID>
# (docs/install.md "Run a sample ComputeDomain workload", docs/prerequisites.md at v0.4.1): a workload's node
# affinity keeps its pods on such nodes. v0.4.1's own code does not read or set it (main sets it from the plugin).
GPU_CLIQUE_LABEL = "nvidia.com/gpu.clique"
# NVIDIA driver the IMEX daemons need with the default IMEXDaemonsWithDNSNames gate (docs/prerequisites.md).
MIN_NVIDIA_DRIVER = "570.158.01"


@dataclass(frozen=True)
class CrdField:
    """One field of the ComputeDomain spec (openAPIV3Schema of the CRD's v1beta1 version)."""

    path: str  # dotted under the object, e.g. spec.channel.allocationMode
    type: str  # object | string | integer
    required: bool = False
    enum: tuple[str, ...] = ()
    default: Any = None
    minimum: int | None = None


# crds/resource.nvidia.com_computedomains.yaml:40-102 at v0.4.1 (spec; status is the controller's).
SPEC_FIELDS: tuple[CrdField, ...] = (
    CrdField("spec", "object"),
    CrdField("spec.channel", "object", required=True),
    CrdField("spec.channel.allocationMode", "string", enum=("All", "Single"), default="Single"),
    CrdField("spec.channel.resourceClaimTemplate", "object", required=True),
    CrdField("spec.channel.resourceClaimTemplate.name", "string", required=True),
    # deprecated ("will be removed in the next API version"); 0 with IMEXDaemonsWithDNSNames (default on)
    CrdField("spec.numNodes", "integer", default=0, minimum=0),
)


def spec_schema() -> dict[str, Any]:
    """The recorded fields as a JSON schema of a ComputeDomain (no field the CRD lacks: additionalProperties
    false, as the API server's structural schema prunes unknown fields)."""
    root: dict[str, Any] = {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": API_VERSION},
            "kind": {"const": KIND},
            "metadata": {"type": "object"},
        },
    }
    nodes = {"": root}
    for field in SPEC_FIELDS:
        parent_path, _, name = field.path.rpartition(".")
        schema: dict[str, Any] = {"type": field.type}
        if field.type == "object":
            schema.update({"properties": {}, "required": [], "additionalProperties": False})
        if field.enum:
            schema["enum"] = list(field.enum)
        if field.minimum is not None:
            schema["minimum"] = field.minimum
        parent = nodes[parent_path]
        parent["properties"][name] = schema
        if field.required:
            parent.setdefault("required", []).append(name)
        nodes[field.path] = schema
    return root
