"""The fit simulator benchmark (bench/fit_bench.py, owned by the fit simulator): run it when it is there and
fold its bench/results-fit.json into the results."""

from __future__ import annotations

import json

from bench import measure

FIT_BENCH = measure.ROOT / "bench" / "fit_bench.py"
FIT_RESULTS = measure.ROOT / "bench" / "results-fit.json"


def run() -> dict:
    if not FIT_BENCH.exists():
        return {"skipped": "bench/fit_bench.py is not in this checkout"}
    before = FIT_RESULTS.stat().st_mtime if FIT_RESULTS.exists() else None
    sample, _ = measure.run([measure.PYTHON, "-m", "bench.fit_bench"], timeout=1800)
    fresh = FIT_RESULTS.exists() and FIT_RESULTS.stat().st_mtime != before
    result = {"command": "python -m bench.fit_bench", "wall_s": round(sample.wall_s, 2), "exit_code": sample.returncode}
    if not fresh:
        result["error"] = "bench/fit_bench.py did not write bench/results-fit.json"
        return result
    result["results"] = json.loads(FIT_RESULTS.read_text(encoding="utf-8"))
    return result
