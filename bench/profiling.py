"""cProfile of one child command: the top entries that explain a missed target."""

from __future__ import annotations

import io
import pstats
from collections.abc import Sequence

from bench import measure

TOP = 15


def profile(command: Sequence[str], label: str, top: int = TOP) -> dict:
    """Run `command` (a `python ...` command line) under cProfile; top entries by cumulative and own time."""
    output = measure.WORK / "profiles" / f"{label}.prof"
    output.parent.mkdir(parents=True, exist_ok=True)
    python, *rest = command
    measure.run([python, "-m", "cProfile", "-o", str(output), *rest])
    stats = pstats.Stats(str(output), stream=io.StringIO())
    total = max((entry[3] for entry in stats.stats.values()), default=0.0)  # the outermost call's cumulative time

    def rows(sort_index: int) -> list[dict]:
        ranked = sorted(stats.stats.items(), key=lambda item: item[1][sort_index], reverse=True)
        return [
            {
                "function": f"{_short(file)}:{line}({name})",
                "calls": calls,
                "own_s": round(own, 3),
                "cumulative_s": round(cumulative, 3),
            }
            for (file, line, name), (_, calls, own, cumulative, _) in ranked[:top]
        ]

    phases = {}
    for phase, (suffix, function) in PHASES.items():
        matches = [
            entry[3] for (file, _, name), entry in stats.stats.items() if file.endswith(suffix) and name == function
        ]
        if matches:
            phases[phase] = round(max(matches), 3)
    return {
        "total_s": round(total, 3),
        "phases": phases,
        "by_cumulative": rows(3),
        "by_own_time": rows(2),
        "file": str(output),
    }


# Where a preview spends its time (cumulative seconds under the profiler, which inflates pure-Python code).
PHASES = {
    "stack file read and validated (engine/sources.py)": ("gpuplan/engine/sources.py", "_config"),
    "run_stack_program (program, mock engine)": ("gpuplan/engine/runtime.py", "run_stack_program"),
    "  the program's components (GpuPlatform)": ("dra_gpu_platform/resources/platform.py", "__init__"),
    "  stack file YAML parse": ("dra_gpu_platform/config/models.py", "read_stack_file"),
    "write_outputs (plan.json, manifests)": ("gpuplan/engine/outputs.py", "write_outputs"),
    "  YAML dump": ("dra_gpu_platform/inputs/yamlio.py", "dump_yaml"),
    "manifest read-back (YAML parse)": ("yaml/__init__.py", "load"),
    "kubernetes-validate (jsonschema)": ("gpuplan/checks/kube_validate.py", "validate_document"),
    "deploy model": ("gpuplan/timing/critical_path.py", "model_run"),
}


def _short(path: str) -> str:
    # the source root first: the project's files read as their import paths (dra_gpu_platform/..., gpuplan/...)
    for marker in ("site-packages/", "/lib/python3", str(measure.ROOT / "components") + "/", str(measure.ROOT) + "/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path
