"""DeviceClasses and two tenant namespaces on a cluster that already runs the NVIDIA DRA driver: what a team that
owns no nodes and no GPU software composes."""

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform import DeviceClasses, DeviceClassesArgs, TenantNamespace, TenantNamespaceArgs

config = pulumi.Config()

sections = {  # a stack file's sections but `cluster`: the cluster exists
    # the cluster's GPU pool, described for the rules that need it (a dra-only namespace needs a DRA pool)
    "nodePools": [{"name": "a100", "gpu": "A100-80GB", "maxNodes": 4}],
    "deviceClasses": [
        {"name": "a100", "gpu": "A100-80GB"},
        {"name": "any-40g", "minMemory": "40Gi"},
    ],
    "namespaces": [
        {
            "name": "vision",
            "migration": "dra-only",
            "quota": {"claims": 4, "devices": {"a100": 4, "any-40g": 4}},
            "claimTemplates": [{"name": "one-a100", "deviceClass": "a100"}],
        },
        {
            "name": "speech",
            "migration": "dra-only",
            "quota": {"claims": 2, "devices": {"any-40g": 2}},
            "claimTemplates": [{"name": "two-gpus", "deviceClass": "any-40g", "count": 2}],
        },
    ],
}

kubernetes = k8s.Provider("shared-gpus", context=config.require("kubeContext"), enable_server_side_apply=True)
cluster = {"platform": "existing", "kubernetes_version": config.require("kubernetesVersion"), "provider": kubernetes}
classes = DeviceClasses("device-classes", DeviceClassesArgs.from_sections(sections, **cluster))
tenants = [
    TenantNamespace(f"ns-{ns['name']}", TenantNamespaceArgs.from_sections(sections, namespace=ns["name"], **cluster))
    for ns in sections["namespaces"]
]

pulumi.export("deviceClasses", sorted(classes.classes))
pulumi.export("namespaces", [ns["name"] for ns in sections["namespaces"]])
