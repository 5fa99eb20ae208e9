"""`gpuplan fit --inventory` at cluster scale, against the CLI's own start-up (issue 16 targets).

Cases, measured in one run as fresh children, alternating with `gpuplan fit --help` (medians):
- 1,000 nodes x 8 GPUs (H100, H200, A100-80GB nodes, two GPUs per pcieRoot), 100 claim templates: <= 2 x help;
- 10,000 nodes x 8 GPUs, 1,000 claim templates: <= 10 x help.
The inventory is a `kubectl get resourceslices,resourceclaims,nodes,deviceclasses -A -o json` style dump written
under bench/.work/fit (never committed), the templates a claim file with their DeviceClasses; the stack is
bench/fit_stack.yaml's EKS stack, whose own nodes the dump replaces.

Memory: the model the allocator works on (tracemalloc of building the cluster from already parsed slices, and
gathering every node's pools), for more nodes with the same shapes, more GPUs per node, and more distinct
shapes: it grows with nodes (a slice record and pool view each) and shapes, not with devices.

Run: `python -m bench.fit_bench [--quick] [--out bench/results-fit.json]`. Never asserts on time.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml

from bench import measure
from dra_gpu_platform.dra.cluster import build_cluster
from dra_gpu_platform.dra.inventory import catalog_inventory
from dra_gpu_platform.facts import catalog

STACK = ROOT / "bench" / "fit_stack.yaml"
WORK = measure.WORK / "fit"
# (pool, GPU, instance type): 8 GPUs per node, two per pcieRoot, as the catalog models HGX boards.
POOLS = (("h100", "H100", "p5.48xlarge"), ("h200", "H200", "p5e.48xlarge"), ("a100", "A100-80GB", "p4de.24xlarge"))
CASES = ((1_000, 100, 2.0), (10_000, 1_000, 10.0))  # nodes, templates, target ratio to `fit --help`
NV = "device.attributes['gpu.nvidia.com']"
MEMORY = "device.capacity['gpu.nvidia.com'].memory"


def nodes_and_slices(count: int, gpus: int | None = None) -> list[dict]:
    items = []
    for index in range(count):
        pool, gpu, instance = POOLS[index % len(POOLS)]
        shape = catalog.instance_type("eks", instance)
        name = f"{pool}-{index // len(POOLS)}"
        inventory = catalog_inventory(gpu, gpus or shape.gpus, name, per_root=shape.gpus_per_pcie_root)
        for i, piece in enumerate(inventory.slices):
            items.append({**piece, "metadata": {"name": f"{name}-gpu.nvidia.com-{i}"}})
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"eks.amazonaws.com/nodegroup": pool}},
            }
        )
    return items


def device_classes() -> list[dict]:
    classes = [
        (
            key.lower(),
            [
                f"device.driver == 'gpu.nvidia.com' && {NV}.type == 'gpu' && "
                f"{NV}.productName.matches('{model.product_name_regex}')"
            ],
        )
        for key, model in catalog.GPU_MODELS.items()
    ]
    classes += [
        (
            f"min-{gib}gi",
            [
                f"device.driver == 'gpu.nvidia.com' && {NV}.type == 'gpu'",
                f"{MEMORY}.compareTo(quantity('{gib}Gi')) >= 0",
            ],
        )
        for gib in (40, 79, 140)
    ]
    classes.append(
        ("hopper", [f"device.driver == 'gpu.nvidia.com' && {NV}.cudaComputeCapability.compareTo(semver('9.0.0')) >= 0"])
    )
    return [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in selectors]},
        }
        for name, selectors in classes
    ]


def templates(count: int, class_names: list[str]) -> list[dict]:
    extra = (
        "",
        f"{NV}.driverVersion.isGreaterThan(semver('570.0.0'))",
        f"{NV}.architecture != 'Turing'",
        "device.attributes['resource.kubernetes.io'].pcieRoot.startsWith('pci0000')",
    )
    counts = (1, 2, 4, 8, 16)
    result = []
    for index in range(count):  # co-prime strides mix classes, sizes, selectors, alternatives and constraints
        device_class = class_names[index % len(class_names)]
        devices, selector = counts[(index // 3) % len(counts)], extra[(index // 7) % len(extra)]
        selectors = {"selectors": [{"cel": {"expression": selector}}]} if selector else {}
        if index % 10 == 9:
            spec = {
                "requests": [
                    {
                        "name": "gpu",
                        "firstAvailable": [
                            {"name": "big", "deviceClassName": device_class, "count": devices, **selectors},
                            {"name": "any", "deviceClassName": "gpu.nvidia.com", "count": 1},
                        ],
                    }
                ]
            }
        else:
            spec = {
                "requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": device_class, "count": devices, **selectors}}
                ]
            }
            if index % 2 == 1 and devices == 2:
                spec["constraints"] = [{"requests": ["gpu"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}]
        result.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": f"t{index:04d}-{device_class}-{devices}", "namespace": "bench"},
                "spec": {"spec": {"devices": spec}},
            }
        )
    return result


def write_inputs(nodes: int, template_count: int) -> tuple[Path, Path]:
    WORK.mkdir(parents=True, exist_ok=True)
    dump, claims = WORK / f"dump-{nodes}.json", WORK / f"claims-{template_count}.yaml"
    if not dump.exists():
        dump.write_text(
            json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes_and_slices(nodes)}), encoding="utf-8"
        )
    if not claims.exists():
        classes = device_classes()
        names = [*sorted(c["metadata"]["name"] for c in classes), "gpu.nvidia.com"]
        claims.write_text(yaml.safe_dump_all([*classes, *templates(template_count, names)]), encoding="utf-8")
    return dump, claims


def cli_case(nodes: int, template_count: int, target: float, repeats: int) -> dict:
    dump, claims = write_inputs(nodes, template_count)
    out = WORK / f"out-{nodes}"
    fit = [
        measure.PYTHON,
        "-m",
        "gpuplan",
        "fit",
        "--config",
        str(STACK),
        "--inventory",
        str(dump),
        "--claims",
        str(claims),
        "--format",
        "json",
        "--out",
        str(out),
    ]
    help_ = [measure.PYTHON, "-m", "gpuplan", "fit", "--help"]
    measure.run(help_)  # warm the bytecode cache once
    helps, fits, document = [], [], None
    for _ in range(repeats):  # alternating children: both see the same machine load
        helps.append(measure.run(help_)[0])
        sample, stdout = measure.run(fit, capture=True, timeout=1800)
        fits.append(sample)
        document = json.loads(stdout)
        if "errors" in document or "claims" not in document:
            raise SystemExit(f"gpuplan fit failed on the bench inputs: {json.dumps(document)[:2000]}")
    help_summary, fit_summary = measure.summary(helps), measure.summary(fits)
    ratio_wall = fit_summary["wall_s"] / help_summary["wall_s"]
    ratio_cpu = fit_summary["cpu_s"] / help_summary["cpu_s"]
    claims_out = document["claims"]
    return {
        "nodes": nodes,
        "templates": template_count,
        "target_ratio": target,
        "help": help_summary,
        "fit": fit_summary,
        "ratio_wall": round(ratio_wall, 3),
        "ratio_cpu": round(ratio_cpu, 3),
        "met": ratio_wall <= target,
        "inventory": document["inventory"],
        "stats": document["stats"],
        "satisfiable": sum(1 for c in claims_out if c["satisfiable"]),
        "claims": len(claims_out),
        "input_mib": round(dump.stat().st_size / 2**20, 1),
    }


def model_bytes(nodes: int, gpus: int | None = None, distinct_memory: int = 1) -> dict:
    """Traced bytes of the cluster model built from parsed slices (devices projected onto what the templates
    read), with every node's pools gathered; `distinct_memory` gives the GPUs that many memory sizes."""
    items = [i for i in nodes_and_slices(nodes, gpus) if i["kind"] == "ResourceSlice"]
    for n, item in enumerate(items):
        for d, device in enumerate(item["spec"]["devices"]):
            device["capacity"]["memory"]["value"] = str(80 + (n * 8 + d) % distinct_memory) + "Gi"
    expressions = [e["cel"]["expression"] for c in device_classes() for e in c["spec"]["selectors"]]
    gc.collect()
    tracemalloc.start()
    cluster = build_cluster(items, expressions=expressions, constraint_attributes=["resource.kubernetes.io/pcieRoot"])
    for node in cluster.nodes:
        cluster.pools(node)
    classes = len(cluster.node_classes())
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    devices = cluster.device_count()
    return {
        "nodes": len(cluster.nodes),
        "devices": devices,
        "shapes": len(cluster.shapes),
        "node_classes": classes,
        "model_kib": round(current / 1024),
        "bytes_per_node": round(current / len(cluster.nodes)),
        "bytes_per_device": round(current / devices),
    }


def run(quick: bool = False) -> dict:
    cases = [(n // 10, t // 10, target) for n, t, target in CASES] if quick else list(CASES)
    result = {"cases": [cli_case(n, t, target, repeats=3 if n <= 1_000 else 2) for n, t, target in cases]}
    scale = 10 if quick else 1
    result["memory"] = {
        "more_nodes": [model_bytes(n // scale) for n in (1_000, 3_000, 10_000)],
        "more_gpus_per_node": [model_bytes(1_000 // scale, gpus) for gpus in (8, 32, 128)],
        "more_shapes": [model_bytes(1_000 // scale, distinct_memory=k) for k in (1, 16, 256)],
    }
    result.update(python=platform.python_version(), machine=platform.machine())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes (smoke run)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results-fit.json")
    args = parser.parse_args(argv)
    result = run(args.quick)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
