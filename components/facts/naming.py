"""Resource naming and common Kubernetes labels. Pure: no Pulumi imports.

Logical names derive from stable names in the stack file (cluster, pool, class, namespace and template
names), never from list positions, so reordering a stack file never replaces anything.
"""

from __future__ import annotations

COMMON_LABELS = {
    "app.kubernetes.io/managed-by": "pulumi",
    "app.kubernetes.io/part-of": "dra-gpu-platform",
}

# Tenant namespace labels the platform sets: the migration state (components/plans/migration.py) and the label DRA
# requires for adminAccess requests (kubernetes/api resource/v1 DRAAdminNamespaceLabelKey;
# docs/references.md#dra-api-admin-access-label).
GPU_MODE_LABEL = "gpu-mode"
ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


def child(parent: str, *roles: str) -> str:
    return "-".join((parent, *roles))


def labels(**extra: str) -> dict[str, str]:
    return dict(sorted({**COMMON_LABELS, **extra}.items()))
