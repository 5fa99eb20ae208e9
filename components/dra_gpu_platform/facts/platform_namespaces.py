"""The namespaces a tenant may never be: Kubernetes' own and the ones the platform installs into. Pure data.

The plans install into exactly these constants (dra_gpu_platform/plans/gpu_software.py for the GPU Operator, the DRA
driver and the dra-example-driver; the autoscaler, the EFA device plugin and cluster DNS in kube-system; monitoring
in `monitoring.namespace`), so the one list below is where the plans put things, and the config rules and the
policy pack refuse the same names. Edit in one of these namespaces runs pods as its service accounts: the GPU
Operator's ClusterRole spans the cluster, kube-system's carry the autoscaler's and the CNI's cloud roles.

Sources (docs/references.md#reserved-namespaces): Kubernetes' namespaces `default`, `kube-system`, `kube-public`,
`kube-node-lease` and the reserved `kube-` prefix (kubernetes/website `content/en/docs/concepts/overview/
working-with-objects/namespaces.md`); NVIDIA/gpu-operator@v25.10.1 `deployments/gpu-operator/templates/clusterrole.yaml`
(the operator's cluster-wide rules); the plan constants named.
"""

from __future__ import annotations

from dra_gpu_platform.facts import autoscaler, efa, karpenter, network

KUBERNETES_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
RESERVED_PREFIX = "kube-"  # "reserved for Kubernetes system namespaces"
KUBE_SYSTEM = "kube-system"

GPU_OPERATOR = "gpu-operator"  # the operator, its operands and NFD; a GPUCluster's DRA driver too
# One namespace whatever the chart generation, so a version bump never moves the release
# (docs/references.md#nvidia-dra-install-namespace).
DRA_DRIVER = "dra-driver-nvidia-gpu"
EXAMPLE_DRIVER = "dra-example-driver"
MONITORING_DEFAULT = "monitoring"  # monitoring.namespace's default

# Where the platform installs, and what: (namespace, what runs there). A provisioner the stack installs adds its entry
# here (Karpenter's controller, dra_gpu_platform/plans/provisioning/karpenter.py), and every rule follows; EKS Auto
# Mode and AKS node auto-provisioning run outside the cluster.
_INSTALLS: tuple[tuple[str, str], ...] = (
    (GPU_OPERATOR, "the GPU Operator and its operands"),
    (DRA_DRIVER, "the NVIDIA DRA driver"),
    (EXAMPLE_DRIVER, "the dra-example-driver"),
    (autoscaler.NAMESPACE, "the cluster autoscaler"),
    (karpenter.NAMESPACE, "Karpenter"),
    (efa.NAMESPACE, "the EFA device plugin"),
    (network.DNS_NAMESPACE, "cluster DNS"),
)
PLATFORM_NAMESPACES: dict[str, str] = {
    namespace: ", ".join(what for n, what in _INSTALLS if n == namespace) for namespace, _ in _INSTALLS
}


def reserved_reason(name: str, monitoring_namespace: str | None = None) -> str | None:
    """Why `name` can never be a tenant namespace, or None. `monitoring_namespace`: the stack's monitoring namespace
    where monitoring is on (its rules, dashboard and, with install, kube-prometheus-stack run there)."""
    if name == monitoring_namespace:
        return "it is the stack's monitoring namespace (monitoring.namespace)"
    if name in PLATFORM_NAMESPACES:
        return f"the platform installs {PLATFORM_NAMESPACES[name]} there"
    if name in KUBERNETES_NAMESPACES or name.startswith(RESERVED_PREFIX):
        return f"it is a Kubernetes system namespace (`default` and the {RESERVED_PREFIX}* prefix are Kubernetes' own)"
    return None
