"""ExistingCluster: a cluster someone else runs; the kubeconfig arrives as a secret config value."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.facts.naming import child
from components.facts.type_tokens import Component


@dataclass(frozen=True)
class ExistingClusterArgs:
    context: str | None  # kubeconfig context (cluster.existing.context); None: the file's current context
    kubeconfig: pulumi.Input[str]


class ExistingCluster(pulumi.ComponentResource):
    provider: k8s.Provider
    kubeconfig: pulumi.Output[str]

    def __init__(self, name: str, args: ExistingClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EXISTING_CLUSTER, name, None, opts)
        self.kubeconfig = pulumi.Output.secret(args.kubeconfig)
        self.provider = k8s.Provider(
            child(name, "k8s"),
            kubeconfig=self.kubeconfig,
            context=args.context,
            enable_server_side_apply=True,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"context": args.context})
