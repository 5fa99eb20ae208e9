"""The `namespaces` section: tenant namespaces with their migration state, GPU quota, claim templates and shared
claims. Pure: no Pulumi imports.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from dra_gpu_platform.config.fields import (
    CelExpression,
    ConfigModel,
    DnsLabel,
    LabelKey,
    Labels,
    LabelValue,
    QualifiedAttribute,
    StackBool,
    StackInt,
)


class DeviceTolerationConfig(ConfigModel):
    """resource.k8s.io/v1 DeviceToleration (docs/references.md#dra-api-device-tolerations)."""

    key: LabelKey | None = Field(None, description="Taint key (a label name); empty: every key (operator Exists).")
    operator: Literal["Exists", "Equal"] = Field("Equal", description="Equal compares the value; Exists any value.")
    value: LabelValue | None = Field(None, description="Taint value (a label value); empty with Exists.")
    effect: Literal["NoSchedule", "NoExecute", "None"] | None = Field(
        None, description="Effect to match; empty: every effect."
    )
    toleration_seconds: StackInt | None = Field(
        None, description="NoExecute only: how long a running pod keeps the device after the taint appears."
    )


class SubRequestConfig(ConfigModel):
    name: DnsLabel | None = Field(None, description="Subrequest name; defaults to the device class name.")
    device_class: str = Field(description="DeviceClass of this alternative.")
    count: StackInt | None = Field(None, ge=1, le=32, description="Devices (ExactCount).")
    allocation_mode: Literal["ExactCount", "All"] | None = Field(None, description="ExactCount (default) or All.")
    selectors: list[CelExpression] = Field(default_factory=list, max_length=32, description="Extra CEL selectors.")
    tolerations: list[DeviceTolerationConfig] = Field(
        default_factory=list, max_length=16, description="Device taints this alternative tolerates (1.36+)."
    )


class ClaimTemplateConfig(ConfigModel):
    name: DnsLabel = Field(description="ResourceClaimTemplate name.")
    request_name: DnsLabel = Field("gpu", description="Name of the request containers refer to.")
    device_class: str | None = Field(None, description="DeviceClass of an exact request.")
    count: StackInt | None = Field(None, ge=1, le=32, description="Devices (ExactCount, default 1).")
    allocation_mode: Literal["ExactCount", "All"] | None = Field(None, description="ExactCount (default) or All.")
    selectors: list[CelExpression] = Field(
        default_factory=list, max_length=32, description="Extra CEL selectors of the request."
    )
    admin_access: StackBool = Field(
        False, description="Monitoring access to devices in use (namespace needs adminAccess)."
    )
    same_attribute: QualifiedAttribute | None = Field(None, description="constraints[].matchAttribute.")
    first_available: list[SubRequestConfig] | None = Field(
        None, min_length=1, max_length=8, description="Ordered alternatives; the first that fits wins."
    )
    tolerations: list[DeviceTolerationConfig] = Field(
        default_factory=list,
        max_length=16,
        description="Device taints the request tolerates (resource.k8s.io/v1 DeviceToleration; DRADeviceTaints, 1.36+).",
    )


class QuotaConfig(ConfigModel):
    claims: StackInt | None = Field(
        None,
        ge=0,
        description="count/resourceclaims.resource.k8s.io; default: as many claims as the granted devices back.",
    )
    devices: dict[str, Annotated[StackInt, Field(ge=0)]] = Field(
        default_factory=dict,
        description="<class>.deviceclass.resource.k8s.io/devices per device class; every other class of the cluster "
        "is held at 0.",
    )
    legacy_gpus: StackInt | None = Field(None, ge=0, description="requests.nvidia.com/gpu (device plugin GPUs).")


class NamespaceConfig(ConfigModel):
    name: DnsLabel = Field(description="Namespace name.")
    migration: Literal["legacy", "dual", "dra-only"] = Field("dra-only", description="Device plugin → DRA state.")
    admin_access: StackBool = Field(False, description="Label resource.kubernetes.io/admin-access=true.")
    labels: Labels = Field(default_factory=dict, description="Extra namespace labels.")
    quota: QuotaConfig | None = Field(
        None, description="GPU ResourceQuota of the namespace (absent: every class and the claim count at 0)."
    )
    claim_templates: list[ClaimTemplateConfig] = Field(
        default_factory=list, description="ResourceClaimTemplates (not in legacy namespaces)."
    )
    gpu_toleration: Literal["auto", "off"] = Field(
        "auto",
        description="auto: from Kubernetes 1.36 a MutatingAdmissionPolicy adds the GPU pools' taint toleration to "
        "pods of this namespace that use resourceClaims (dual and dra-only namespaces); off: pods carry their own.",
    )
    shared_claims: list[ClaimTemplateConfig] = Field(
        default_factory=list,
        description="ResourceClaims that several pods share by resourceClaimName (one allocation; not in legacy "
        "namespaces); same keys as a claim template.",
    )
    pod_security: Literal["restricted", "baseline"] = Field(
        "restricted",
        description="Pod Security Admission level the namespace enforces (and audits and warns about).",
    )
    egress: Literal["internet", "namespace"] = Field(
        "internet",
        description="Where the namespace's pods may connect besides cluster DNS: internet (any address except the "
        "instance metadata service) or namespace (only pods of the same namespace).",
    )
    service_types: list[Literal["NodePort", "LoadBalancer"]] = Field(
        default_factory=list,
        max_length=2,
        description="Service types beyond ClusterIP (and ExternalName) the namespace may create: NodePort, "
        "LoadBalancer (a LoadBalancer Service also takes node ports unless allocateLoadBalancerNodePorts: false). "
        "Default none; Service externalIPs are refused everywhere.",
    )
