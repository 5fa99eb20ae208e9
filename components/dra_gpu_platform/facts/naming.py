"""Resource naming and common Kubernetes labels. Pure: no Pulumi imports.

Logical names derive from stable names in the stack file (cluster, pool, class, namespace and template
names), never from list positions, so reordering a stack file never replaces anything.
"""

from __future__ import annotations

import hashlib

COMMON_LABELS = {
    "app.kubernetes.io/managed-by": "pulumi",
    "app.kubernetes.io/part-of": "dra-gpu-platform",
}

# Tenant namespace labels the platform sets: the migration state (dra_gpu_platform/plans/migration.py) and the label DRA
# requires for adminAccess requests (kubernetes/api resource/v1 DRAAdminNamespaceLabelKey;
# docs/references.md#dra-api-admin-access-label).
GPU_MODE_LABEL = "gpu-mode"
ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


def child(parent: str, *roles: str) -> str:
    return "-".join((parent, *roles))


def labels(**extra: str) -> dict[str, str]:
    return dict(sorted({**COMMON_LABELS, **extra}.items()))


DNS_LABEL_MAX = 63  # RFC 1123 label: what Kubernetes takes as a request, subrequest or namespace name
DNS_SUBDOMAIN_MAX = 253  # RFC 1123 subdomain: a DeviceClass name, the prefix of a qualified name (quota keys)


def dns_label(name: str) -> str:
    """The DNS label that stands for `name`, a DNS subdomain such as a DeviceClass name (`gpu.nvidia.com`,
    `nvidia-h100-mig-3g.40gb`): its dots become '-', and a result longer than a label may be keeps its first
    54 characters and 8 hex digits of the whole name's SHA-256, so two long names stay apart."""
    label = name.replace(".", "-")
    if len(label) <= DNS_LABEL_MAX:
        return label
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{label[: DNS_LABEL_MAX - 9].rstrip('-')}-{digest}"


# A ResourceQuota key for DRA devices is `<class>` + this + `/devices` (docs/references.md#dra-quota-keys); its
# domain must be a DNS subdomain, so a class name may have at most 253 - len(this) characters to be quota'd.
QUOTA_DEVICES_DOMAIN = ".deviceclass.resource.k8s.io"
