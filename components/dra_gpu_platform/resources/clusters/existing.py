"""ExistingCluster: a cluster someone else runs; the kubeconfig arrives as a secret config value. The nodes the
stack names for each pool (`nodePools[i].nodes`) get the pool's labels and taint by server-side apply."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.existing import ExistingClusterPlan


@dataclass(frozen=True)
class ExistingClusterArgs:
    plan: ExistingClusterPlan  # context, node patches, warnings for pools that name no nodes
    kubeconfig: pulumi.Input[str]


class ExistingCluster(pulumi.ComponentResource):
    provider: k8s.Provider
    kubeconfig: pulumi.Output[str]

    def __init__(self, name: str, args: ExistingClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EXISTING_CLUSTER, name, None, opts)
        plan = args.plan
        self.kubeconfig = pulumi.Output.secret(args.kubeconfig)
        self.provider = k8s.Provider(
            child(name, "k8s"),
            kubeconfig=self.kubeconfig,
            context=plan.context,
            enable_server_side_apply=True,
            opts=pulumi.ResourceOptions(parent=self),
        )
        # A NodePatch is a server-side apply of only these fields: the node's other labels stay as they are
        # (docs/references.md#pulumi-node-patch). Its taints are one atomic list, so a node whose taints another
        # manager owns reports a conflict instead of losing them (docs/references.md#kubernetes-node-taints-atomic).
        self.node_patches = {
            patch.node: k8s.core.v1.NodePatch(
                child(name, "node", patch.node),
                metadata=k8s.meta.v1.ObjectMetaPatchArgs(name=patch.node, labels=patch.labels),
                spec=k8s.core.v1.NodeSpecPatchArgs(
                    taints=[k8s.core.v1.TaintPatchArgs(key=t.key, value=t.value, effect=t.effect) for t in patch.taints]
                ),
                opts=pulumi.ResourceOptions(parent=self, provider=self.provider),
            )
            for patch in plan.node_patches
        }
        for warning in plan.unmapped:
            pulumi.log.warn(warning, resource=self)
        self.register_outputs({"context": plan.context, "nodes": sorted(self.node_patches)})
