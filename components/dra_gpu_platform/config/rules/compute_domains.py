"""Rule of `draDriver.computeDomains`: ComputeDomains (the NVIDIA DRA driver's IMEX channels over multi-node NVLink)
need a DRA pool whose GPUs have multi-node NVLink (dra_gpu_platform/facts/gpu_models.py, docs/references.md#multi-node-nvlink-gpus,
docs/references.md#nvidia-dra-computedomain-crd)."""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts import catalog


def check(r: RuleContext) -> None:
    c = r.c
    if c.dra_driver.compute_domains is not True:
        return
    if c.uses_example_driver:
        r.add(
            "draDriver.computeDomains",
            True,
            "the dra-example-driver has no ComputeDomains (they are the NVIDIA DRA driver's)",
            "remove computeDomains, or use kind.gpuDriver: nvidia on hosts with multi-node NVLink GPUs",
        )
        return
    if c.multi_node_nvlink_pools:
        return
    models = [m.key for m in catalog.GPU_MODELS.values() if m.multi_node_nvlink]
    elsewhere = [p.name for p in c.node_pools if p.gpu_model.multi_node_nvlink]
    held = f" ({', '.join(elsewhere)} run the device plugin, not the DRA driver)" if elsewhere else ""
    r.add(
        "draDriver.computeDomains",
        True,
        "ComputeDomains share GPU memory between nodes over multi-node NVLink (IMEX), and no DRA pool of this stack "
        f"has it{held}; other GPUs reach other nodes only over the network (EFA, InfiniBand)",
        f"remove computeDomains (multi-node jobs on these pools use NCCL over the network), or add a pool of "
        f"{', '.join(models)} with gpuStack: dra (computeDomains then defaults to on)",
    )
