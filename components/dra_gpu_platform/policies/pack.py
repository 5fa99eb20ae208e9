"""The pack's contents, in report order. Imported by policies/__main__.py (the Pulumi CLI) and by gpuplan."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel

from dra_gpu_platform.policies.rules import access as access_rules
from dra_gpu_platform.policies.rules import cloud as cloud_rules
from dra_gpu_platform.policies.rules import cost as cost_rules
from dra_gpu_platform.policies.rules import dra as dra_rules
from dra_gpu_platform.policies.rules import elastic as elastic_rules
from dra_gpu_platform.policies.rules import fit as fit_rules
from dra_gpu_platform.policies.rules import gpu_isolation as gpu_isolation_rules
from dra_gpu_platform.policies.rules import helm as helm_rules
from dra_gpu_platform.policies.rules import migration as migration_rules
from dra_gpu_platform.policies.rules import tenancy as tenancy_rules

PACK_NAME = "dra-gpu-platform"
PACK_DESCRIPTION = (
    "Guard rails for GPU Kubernetes clusters scheduled with DRA: node pools, DRA objects, migration, charts, tenancy "
    "and cluster access."
)
# Used only for a policy without its own level; every rule here sets one.
PACK_LEVEL = EnforcementLevel.MANDATORY

POLICIES = [
    cloud_rules.GPU_NODE_POOL_TAINTED,
    cloud_rules.GPU_NODE_POOL_NVIDIA_AMI,
    cloud_rules.PROTECTED_IN_PRODUCTION,
    cloud_rules.CLUSTER_ENDPOINT_PRIVATE,
    cloud_rules.IMDS_V2_REQUIRED,
    dra_rules.DEVICECLASS_SELECTOR_VALID,
    dra_rules.CLAIM_TEMPLATE_CLASS_EXISTS,
    dra_rules.DRA_QUOTA_KEYS_VALID,
    dra_rules.GPU_NAMESPACE_HAS_QUOTA,
    migration_rules.DRA_ONLY_NAMESPACE_GUARDED,
    migration_rules.DEVICE_PLUGIN_RETIREMENT_SAFE,
    migration_rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN,
    helm_rules.HELM_RELEASE_PINNED,
    cloud_rules.GPU_BUDGET,
    cost_rules.GPU_ALWAYS_ON_COST,
    elastic_rules.GPU_NODEPOOL_LIMITS,
    elastic_rules.GPU_NODEPOOL_CONSOLIDATION,
    fit_rules.CLAIMS_SATISFIABLE,
    tenancy_rules.TENANT_NAMESPACE_NOT_RESERVED,
    tenancy_rules.TENANT_NAMESPACE_POD_SECURITY,
    tenancy_rules.TENANT_QUOTA_CLOSED,
    tenancy_rules.TENANT_GUARD_HOLDS,
    gpu_isolation_rules.GPU_TOOLKIT_HARDENED,
    gpu_isolation_rules.AKS_GPU_TOOLKIT_DEFAULT,
    tenancy_rules.TENANT_CONTROLS_GUARDED,
    tenancy_rules.TENANT_SERVICES_GUARDED,
    tenancy_rules.TENANT_NETWORK_ISOLATED,
    access_rules.CLUSTER_ADMIN_SCOPED,
    access_rules.CONTROL_PLANE_AUDIT_LOGS,
    access_rules.POD_IDENTITY_TRUST_SCOPED,
    access_rules.AUTOSCALER_IAM_SCOPED,
    helm_rules.MONITORING_SECRETS_NAMESPACED,
    helm_rules.HELM_IMAGES_BY_DIGEST,
]
