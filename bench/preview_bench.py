"""Preview latency of each committed stack as a ratio to its import floor.

The floor is a bare Python process importing the provider SDK classes the stack's program uses (derived from
the resource types the stack registers: aws:eks/cluster:Cluster → pulumi_aws.eks.Cluster,
kubernetes:core/v1:Namespace → pulumi_kubernetes.core.v1.Namespace, …). Taking the class matters: the SDK
packages are lazy modules, and `import pulumi_aws.ec2` alone executes almost nothing. Floor and preview run alternately, one child each, so both see the same
machine load; the ratio is of the medians.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from bench import measure, profiling

TARGET_RATIO = 2.5
# Issue 36: prod (the largest reference stack, a cloud one) within 1.2x of its import floor.
TARGET_RATIOS = {"prod": 1.2}


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def sdk_class(type_token: str) -> tuple[str, str]:
    """(module, class) of the SDK class behind a resource type token, e.g. aws:ec2/launchTemplate:LaunchTemplate →
    (pulumi_aws.ec2, LaunchTemplate); kubernetes:core/v1:Namespace → (pulumi_kubernetes.core.v1, Namespace)."""
    package, module, name = ([*type_token.split(":"), "", ""])[:3]
    if package == "pulumi" and module == "providers":
        return "pulumi_" + name.replace("-", "_"), "Provider"
    root = "pulumi_" + package.replace("-", "_")
    if package == "kubernetes":
        group, _, version = module.partition("/")
        candidate = f"{root}.{group.split('.')[0].replace('-', '_')}.{version}"
        # CRD kinds (monitoring.coreos.com/…) are registered through apiextensions.CustomResource.
        return (candidate, name) if _module_exists(candidate) else (f"{root}.apiextensions", "CustomResource")
    candidate = f"{root}.{module.split('/')[0]}"
    return (candidate, name) if _module_exists(candidate) else (root, name)


def floor_classes(plan_file: Path) -> list[str]:
    """`module:Class` of every custom resource type the stack registers."""
    plan = json.loads(plan_file.read_text(encoding="utf-8"))
    types = {r["type"] for r in plan["resources"] if r.get("custom")}
    return sorted({":".join(sdk_class(t)) for t in types})


FLOOR_PROGRAM = (
    "import importlib, sys\n"
    "import pulumi\n"
    # The SDK packages load lazily: an attribute access is what executes a module, so take each class.
    "for spec in sys.argv[1:]:\n"
    "    module, name = spec.split(':')\n"
    "    getattr(importlib.import_module(module), name)\n"
)


def floor_command(classes: list[str]) -> list[str]:
    return [measure.PYTHON, "-c", FLOOR_PROGRAM, *classes]


def preview_command(stack_file: Path, out: Path) -> list[str]:
    return [
        measure.PYTHON,
        "-m",
        "gpuplan",
        "preview",
        "--config",
        str(stack_file),
        "--out",
        str(out),
        "--format",
        "json",
    ]


def run(repeats: int = 5, profile: bool = False) -> dict:
    results = {}
    stacks = sorted((measure.ROOT / "stacks").glob("Pulumi.*.yaml"))
    for stack_file in stacks:
        name = stack_file.name[len("Pulumi.") : -len(".yaml")]
        out = measure.fresh_dir(measure.WORK / "preview" / name)
        # Warm-up: writes the .pyc cache and the plan whose resource types name the floor's modules.
        warm, stdout = measure.run(preview_command(stack_file, out), capture=True)
        document = json.loads(stdout)
        modules = floor_classes(out / "plan.json")
        measure.run(floor_command(modules))
        floors, previews = [], []
        for _ in range(repeats):
            floors.append(measure.run(floor_command(modules))[0])
            previews.append(measure.run(preview_command(stack_file, out))[0])
        floor, preview = measure.summary(floors), measure.summary(previews)
        ratio_wall = preview["wall_s"] / floor["wall_s"]
        ratio_cpu = preview["cpu_s"] / floor["cpu_s"]
        entry = {
            "resources": document["resources"],
            "manifests": len(document["manifests"]),
            "floor_classes": modules,
            "floor": floor,
            "preview": preview,
            "ratio_wall": round(ratio_wall, 3),
            "ratio_cpu": round(ratio_cpu, 3),
            "target": TARGET_RATIOS.get(name, TARGET_RATIO),
            "met": ratio_wall <= TARGET_RATIOS.get(name, TARGET_RATIO),
            "exit_code": warm.returncode,
            "criticalPath": document.get("criticalPath"),
        }
        if profile or not entry["met"]:
            entry["profile"] = profiling.profile(preview_command(stack_file, out), f"preview-{name}")
        results[name] = entry
    return results
