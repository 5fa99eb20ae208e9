"""AksGpuNodePool as the component package hosts it: the library's AksGpuNodePool itself (the same type token,
dra-gpu-platform:cluster:AksGpuPool, and children), built from the inputs the engine sends through
AksGpuNodePoolArgs.from_sections. The analyzer reads this class's own annotations (provider/package.py)."""

import pulumi

from dra_gpu_platform.resources.clusters.aks_node_pool import AksGpuNodePool as LibraryAksGpuNodePool
from dra_gpu_platform.resources.clusters.aks_node_pool import AksGpuNodePoolArgs
from provider.arguments import BY_COMPONENT
from provider.inputs import AksGpuNodePoolInputs
from provider.wire import hosted_args


class AksGpuNodePool(LibraryAksGpuNodePool):
    """One GPU node pool of dra-gpu-platform on an existing AKS cluster: an AKS user agent pool with its VM size, autoscaling, labels and GPU taint, the GPU driver choice, MIG partitioning and Spot priority, from the pool's item in the sections."""

    agent_pool_name: str
    """AKS's name of the agent pool (letters and digits of the pool's name, at most 12)."""
    vm_size: str
    """The pool's Azure VM size."""
    gpus_per_node: int
    """GPUs on each node."""
    max_gpus: int
    """GPUs of the pool at maxNodes."""

    def __init__(self, name: str, args: AksGpuNodePoolInputs, opts: pulumi.ResourceOptions | None = None):
        component = f"AksGpuNodePool {name}"
        pool_args = hosted_args(component, BY_COMPONENT["AksGpuNodePool"], args, _build, opts)
        super().__init__(name, pool_args, opts)
        pool = pool_args.plan.pool
        self.agent_pool_name = pool_args.plan.agent_pool_name
        self.vm_size = pool.instance_type or ""
        self.gpus_per_node = pool.gpus_per_node or 0
        self.max_gpus = pool.max_gpus or 0


def _build(sections: dict, arguments: dict) -> AksGpuNodePoolArgs:
    return AksGpuNodePoolArgs.from_sections(sections, **arguments)
