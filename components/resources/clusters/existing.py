"""ExistingCluster: a cluster someone else runs; the kubeconfig arrives as a secret config value. The nodes the
stack names for each pool (`nodePools[i].nodes`) get the pool's labels and taint by server-side apply."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.node_pools import NodePatchPlan


@dataclass(frozen=True)
class ExistingClusterArgs:
    context: str | None  # kubeconfig context (cluster.existing.context); None: the file's current context
    kubeconfig: pulumi.Input[str]
    nodes: tuple[NodePatchPlan, ...] = ()  # components/plans/node_pools.existing_node_plans
    # Warnings for pools that name no nodes: the kubectl commands someone must run (node_pools.label_commands)
    unmapped: tuple[str, ...] = ()


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
        # A NodePatch is a server-side apply of only these fields: the node's other labels stay as they are
        # (docs/references.md#pulumi-node-patch). Its taints are one atomic list, so a node whose taints another
        # manager owns reports a conflict instead of losing them (docs/references.md#kubernetes-node-taints-atomic).
        self.node_patches = {
            plan.node: k8s.core.v1.NodePatch(
                child(name, "node", plan.node),
                metadata=k8s.meta.v1.ObjectMetaPatchArgs(name=plan.node, labels=plan.labels),
                spec=k8s.core.v1.NodeSpecPatchArgs(
                    taints=[
                        k8s.core.v1.TaintPatchArgs(key=key, value=value, effect=effect)
                        for key, value, effect in plan.taints
                    ]
                ),
                opts=pulumi.ResourceOptions(parent=self, provider=self.provider),
            )
            for plan in args.nodes
        }
        for warning in args.unmapped:
            pulumi.log.warn(warning, resource=self)
        self.register_outputs({"context": args.context, "nodes": sorted(self.node_patches)})
