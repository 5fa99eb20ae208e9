"""KindCluster: a local kind cluster created by `kind create cluster` (pulumi-command), with a Kubernetes
provider built from its kubeconfig. No cloud, no GPUs unless the host has them (gpuDriver: nvidia)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_command as command
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import kind as kind_config

# Writes the rendered config to a temp file (kind reads --config from a path), creates the cluster with
# kind's logs on stderr, then prints only the kubeconfig on stdout for the provider.
CREATE_SCRIPT = (
    'set -eu; cfg=$(mktemp); trap \'rm -f "$cfg"\' EXIT; printf \'%s\' "$KIND_CONFIG" > "$cfg"; '
    'kind create cluster --name "$KIND_CLUSTER_NAME" --config "$cfg" --wait 300s >&2; '
    'kind get kubeconfig --name "$KIND_CLUSTER_NAME"'
)
DELETE_SCRIPT = 'kind delete cluster --name "$KIND_CLUSTER_NAME"'


@dataclass(frozen=True)
class KindClusterArgs:
    plan: kind_config.KindClusterPlan


class KindCluster(pulumi.ComponentResource):
    provider: k8s.Provider
    kubeconfig: pulumi.Output[str]

    def __init__(self, name: str, args: KindClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.KIND_CLUSTER, name, None, opts)
        plan = args.plan
        cluster = command.local.Command(
            child(name, "create"),
            create=CREATE_SCRIPT,
            delete=DELETE_SCRIPT,
            environment={"KIND_CONFIG": plan.config_yaml, "KIND_CLUSTER_NAME": plan.name},
            logging=command.local.Logging.STDERR,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=plan.protect,
                additional_secret_outputs=["stdout"],
                custom_timeouts=pulumi.CustomTimeouts(create="15m", delete="5m"),
            ),
        )
        self.kubeconfig = pulumi.Output.secret(cluster.stdout)
        self.provider = k8s.Provider(
            child(name, "k8s"),
            kubeconfig=self.kubeconfig,
            enable_server_side_apply=True,
            opts=pulumi.ResourceOptions(parent=self),
        )
        for note in plan.notes:
            pulumi.log.info(note, resource=self)
        self.register_outputs({"clusterName": plan.name, "kubeconfig": self.kubeconfig})
