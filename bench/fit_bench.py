"""Fit simulator benchmark: 1,000 nodes x 8 GPUs and 100 claim templates.

Side by side:
- simulate: components.dra.allocator.Simulator evaluates every template (where it fits per pool, greedy fill
  for how many fit at once, reasons), with selector results cached on the projection of each device onto
  what the expression reads (devices that differ only in uuid/bus ID/pcieRoot are evaluated once);
- naive: every selector of every template evaluated on every device, no cache (what a simulator without
  the cache would do at least once per device and template).

Run: `python -m bench.fit_bench [--nodes N] [--templates N] [--out bench/results-fit.json]`.
Writes times, evaluation counts and evaluations per second; never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from components.facts import catalog  # noqa: E402
from components.dra.allocator import Simulator  # noqa: E402
from components.dra.claims import ClaimSpec, Constraint, DeviceClassSpec, Request, SubRequest, parse_device_class  # noqa: E402
from components.dra.cel import compile_selector  # noqa: E402
from components.dra.slices import Inventory, catalog_inventory, chart_device_classes  # noqa: E402

# (pool, GPU, instance type): 8 GPUs per node, two per pcieRoot, as the catalog models HGX boards.
POOLS = (("h100", "H100", "p5.48xlarge"), ("h200", "H200", "p5e.48xlarge"), ("a100", "A100-80GB", "p4de.24xlarge"))


def build_inventory(nodes: int) -> Inventory:
    slices = []
    node_pools = {}
    for index in range(nodes):
        pool, gpu, instance = POOLS[index % len(POOLS)]
        shape = catalog.instance_type("eks", instance)
        name = f"{pool}-{index // len(POOLS)}"
        node = catalog_inventory(gpu, shape.gpus, name, per_root=shape.gpus_per_pcie_root)
        slices += node.slices
        node_pools[name] = pool
    return Inventory("bench", tuple(slices), node_pools)


def device_classes() -> dict[str, DeviceClassSpec]:
    nv = "device.attributes['gpu.nvidia.com']"
    memory = "device.capacity['gpu.nvidia.com'].memory"
    classes = {}
    for document in chart_device_classes(["gpu.nvidia.com", "mig.nvidia.com"], "0.4.1"):
        spec, _ = parse_device_class(document)
        classes[spec.name] = spec
    for key, model in catalog.GPU_MODELS.items():
        name = key.lower()
        classes[name] = DeviceClassSpec(name, (
            f"device.driver == 'gpu.nvidia.com' && {nv}.type == 'gpu' && {nv}.productName.matches('{model.product_name_regex}')",
        ))
    for gib in (40, 79, 140):
        classes[f"min-{gib}gi"] = DeviceClassSpec(f"min-{gib}gi", (
            f"device.driver == 'gpu.nvidia.com' && {nv}.type == 'gpu'", f"{memory}.compareTo(quantity('{gib}Gi')) >= 0"))
    classes["hopper"] = DeviceClassSpec("hopper", (
        f"device.driver == 'gpu.nvidia.com' && {nv}.cudaComputeCapability.compareTo(semver('9.0.0')) >= 0",))
    return classes


def templates(count: int, class_names: list[str]) -> list[tuple[str, ClaimSpec]]:
    nv = "device.attributes['gpu.nvidia.com']"
    extra = ("", f"{nv}.driverVersion.isGreaterThan(semver('570.0.0'))", f"{nv}.architecture != 'Turing'",
             "device.attributes['resource.kubernetes.io'].pcieRoot.startsWith('pci0000')")
    result = []
    counts = (1, 2, 4, 8, 16)
    for index in range(count):  # co-prime strides mix classes, sizes, selectors and constraints
        device_class = class_names[index % len(class_names)]
        devices, selector = counts[(index // 3) % len(counts)], extra[(index // 7) % len(extra)]
        paired = index % 2 == 1
        selectors = (selector,) if selector else ()
        if index % 10 == 9:  # every tenth: prioritized alternatives
            subs = (SubRequest("gpu", "big", device_class, selectors, count=devices),
                    SubRequest("gpu", "any", "gpu.nvidia.com", (), count=1))
            spec = ClaimSpec((Request("gpu", subs, first_available=True),))
        else:
            constraints = (Constraint(("gpu",), "resource.kubernetes.io/pcieRoot"),) if paired and devices == 2 else ()
            spec = ClaimSpec((Request("gpu", (SubRequest("gpu", None, device_class, selectors, count=devices),)),), constraints)
        result.append((f"t{index:03d}-{device_class}-{devices}", spec))
    return result


def run(nodes: int, template_count: int) -> dict:
    started = time.perf_counter()
    inventory = build_inventory(nodes)
    node_list = inventory.nodes()
    devices = [d for n in node_list for d in n.devices]
    build_s = time.perf_counter() - started
    classes = device_classes()
    specs = templates(template_count, sorted(classes))

    simulator = Simulator(node_list, classes)
    started = time.perf_counter()
    outcomes = [simulator.evaluate_claim(spec) for _, spec in specs]
    simulate_s = time.perf_counter() - started

    chains = [tuple(e for _, _, e in simulator.chain(sub)) for _, spec in specs for r in spec.requests for sub in r.alternatives]
    selectors = [compile_selector(e) for chain in chains for e in chain]
    started = time.perf_counter()
    naive_evaluations = 0
    naive_errors = 0
    for selector in selectors:
        for device in devices:
            try:
                selector.matches(device.device)
            except Exception:  # an error counts as an evaluation too
                naive_errors += 1
            naive_evaluations += 1
    naive_s = time.perf_counter() - started

    stats = simulator.stats
    return {
        "inventory": {"nodes": len(node_list), "devices": len(devices), "build_s": round(build_s, 3)},
        "templates": len(specs),
        "satisfiable": sum(1 for o in outcomes if o.satisfiable),
        "simulate": {
            "seconds": round(simulate_s, 3),
            "selector_checks": stats.lookups,  # (selector, device) results the allocation asked for
            "selector_checks_per_s": round(stats.lookups / simulate_s) if simulate_s else None,
            "cel_evaluations": stats.evaluations,  # of those, evaluated by CEL; the rest came from the cache
        },
        "naive_every_selector_every_device": {
            "seconds": round(naive_s, 3),
            "cel_evaluations": naive_evaluations,
            "evaluation_errors": naive_errors,
            "cel_evaluations_per_s": round(naive_evaluations / naive_s) if naive_s else None,
        },
        "cel_evaluations_saved_by_cache": round(1 - stats.evaluations / naive_evaluations, 6) if naive_evaluations else None,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--templates", type=int, default=100)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results-fit.json")
    args = parser.parse_args(argv)
    result = run(args.nodes, args.templates)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
