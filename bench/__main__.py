"""`python -m bench` (`make bench`): every benchmark once, then bench/results.json and bench/RESULTS.md.

Sections: preview (each committed stack against its import floor, with its modelled deploy critical path),
scaling (10…2,000 Kubernetes objects against the mock engine), fit (bench/fit_bench.py when present),
suite (`pytest -q -n 2` once). `--only` picks sections; `--quick` is a smoke run with fewer repeats and counts
that writes its results under bench/.work/ instead.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from bench import fit_wiring, machine, measure, preview_bench, report, scaling_bench, suite_bench

SECTIONS = ("preview", "scaling", "fit", "suite")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections of {', '.join(SECTIONS)}")
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement in the preview section (median)")
    parser.add_argument("--scaling-repeats", type=int, default=3, help="runs per point in the scaling section")
    parser.add_argument("--profile", action="store_true", help="profile every case, not only missed targets")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 1 repeat, 10 and 100 objects, results in bench/.work"
    )
    args = parser.parse_args(argv)
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    repeats, scaling_repeats = (1, 1) if args.quick else (args.repeats, args.scaling_repeats)
    counts = (10, 100) if args.quick else scaling_bench.COUNTS
    target_dir = measure.WORK if args.quick else measure.ROOT / "bench"
    measure.WORK.mkdir(parents=True, exist_ok=True)

    results: dict = {
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine.describe(),
        "quick": args.quick,
        "load": {},
    }
    runners = {
        "preview": lambda: preview_bench.run(repeats=repeats, profile=args.profile),
        "scaling": lambda: scaling_bench.run(repeats=scaling_repeats, counts=counts, profile=args.profile),
        "fit": fit_wiring.run,
        "suite": suite_bench.run,
    }
    for section in sections:
        print(f"bench: {section} …", file=sys.stderr, flush=True)
        with measure.LoadWatch() as watch:
            results[section] = runners[section]()
        results["load"][section] = watch.result
    results["finished"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    results["targets"] = report.targets(results)

    target_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = target_dir / "results.json", target_dir / "RESULTS.md"
    json_path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    md_path.write_text(report.render(results), encoding="utf-8")
    print(
        f"bench: wrote {json_path.relative_to(measure.ROOT)} and {md_path.relative_to(measure.ROOT)}", file=sys.stderr
    )
    for target in results["targets"]:
        print(f"  {'met   ' if target['met'] else 'MISSED'} {target['name']}: {target['value']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
