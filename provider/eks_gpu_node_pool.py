"""EksGpuNodePool as the component package hosts it: the library's EksGpuNodePool itself (the same type token and
children), built from the inputs the engine sends through EksGpuNodePoolArgs.from_sections. The analyzer reads this
class's own annotations: its `args` for the schema's inputs, the rest for its outputs (provider/package.py)."""

import pulumi

from dra_gpu_platform.resources.clusters.eks_node_pool import EksGpuNodePool as LibraryEksGpuNodePool
from dra_gpu_platform.resources.clusters.eks_node_pool import EksGpuNodePoolArgs
from provider.arguments import BY_COMPONENT
from provider.inputs import EksGpuNodePoolInputs
from provider.wire import hosted_args


class EksGpuNodePool(LibraryEksGpuNodePool):
    """One GPU node pool of dra-gpu-platform on an existing EKS cluster: an EKS managed node group with its launch template, labels and GPU taint, the cluster autoscaler's tags, and EFA, placement and Capacity Block scheduling where the pool needs them, from the pool's item in the sections."""

    node_group_arn: pulumi.Output[str]
    """The ARN of the EKS node group."""
    instance_type: str
    """The pool's EC2 instance type."""
    gpus_per_node: int
    """GPUs on each node."""
    max_gpus: int
    """GPUs of the pool at maxNodes."""

    def __init__(self, name: str, args: EksGpuNodePoolInputs, opts: pulumi.ResourceOptions | None = None):
        component = f"EksGpuNodePool {name}"
        pool_args = hosted_args(component, BY_COMPONENT["EksGpuNodePool"], args, _build, opts)
        super().__init__(name, pool_args, opts)
        pool = pool_args.plan.pool
        self.node_group_arn = self.node_group.arn
        self.instance_type = pool.instance_type or ""
        self.gpus_per_node = pool.gpus_per_node or 0
        self.max_gpus = pool.max_gpus or 0


def _build(sections: dict, arguments: dict) -> EksGpuNodePoolArgs:
    return EksGpuNodePoolArgs.from_sections(sections, **arguments)
