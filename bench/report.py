"""Targets met or missed, and bench/RESULTS.md rendered from the results of one run."""

from __future__ import annotations

from typing import Any

from bench import preview_bench, scaling_bench, suite_bench

DEPLOY_TARGET = 1.05
BUSY_SHARE = 0.25  # other processes using more than this share of the CPUs make the machine "busy"


def targets(results: dict) -> list[dict[str, Any]]:
    found = []
    for stack, entry in sorted((results.get("preview") or {}).items()):
        found.append(
            {
                "name": f"preview --stack {stack} ≤ {entry.get('target', preview_bench.TARGET_RATIO)} × import floor",
                "value": f"{entry['ratio_wall']:.2f}× wall ({entry['ratio_cpu']:.2f}× CPU)",
                "met": entry["met"],
            }
        )
    prod = ((results.get("preview") or {}).get("prod") or {}).get("criticalPath")
    if prod and prod.get("ratio") is not None:
        found.append(
            {
                "name": f"prod modelled critical path ≤ {DEPLOY_TARGET} × lower bound",
                "value": f"{prod['modelledMinutes']} min / {prod['lowerBound']['minutes']} min = {prod['ratio']:.2f}",
                "met": prod["ratio"] <= DEPLOY_TARGET,
            }
        )
    scaling = results.get("scaling")
    if scaling and scaling.get("rows"):
        largest = scaling["rows"][-1]
        found.append(
            {
                "name": f"{largest['objects']}-object preview ≤ {scaling_bench.TARGET_RATIO_AT_MAX} × typed SDK",
                "value": f"{largest['preview_typed_wall']:.2f}× wall ({largest['preview_typed_cpu']:.2f}× CPU)",
                "met": scaling["met"],
            }
        )
    for case in ((results.get("fit") or {}).get("results") or {}).get("cases", []):
        found.append(
            {
                "name": f"fit --inventory {case['nodes']:,} nodes x 8 GPUs, {case['templates']:,} templates "
                f"<= {case['target_ratio']:g} x fit --help",
                "value": f"{case['ratio_wall']:.2f}x wall ({case['ratio_cpu']:.2f}x CPU)",
                "met": case["met"],
            }
        )
    suite = results.get("suite")
    if suite:
        found.append(
            {
                "name": f"test suite (pytest -q -n 2) < {suite_bench.TARGET_S:.0f} s",
                "value": f"{suite['wall_s']:.1f} s wall (exit {suite['exit_code']})",
                "met": suite["met"],
            }
        )
    return found


def _f(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def _machine(results: dict) -> list[str]:
    m = results["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v not in (None, False, True))
    lines = [
        "## Machine",
        "",
        f"- {m['cpu']}, {m['cpus_usable']} usable CPU(s) of {m['cpus']}, {m['memory_gib']} GiB, {m['platform']}",
        f"- Python {m['python']}; {versions}; libyaml {'yes' if m['versions'].get('libyaml') else 'no'}",
        f"- commit {m['commit']}{' with uncommitted changes' if m['dirty'] else ''}; run {results['started']} → {results['finished']}",
        "- Every measurement is a fresh child process (wall time, CPU time and peak RSS from `wait4`), with a warm",
        "  bytecode cache (`PYTHONPYCACHEPREFIX=bench/.work/pycache`; this shell sets `PYTHONDONTWRITEBYTECODE=1`).",
    ]
    busy = []
    for section, load in results.get("load", {}).items():
        share = load.get("others_share_of_cpus")
        if share is not None:
            busy.append(f"{section} {100 * share:.0f}%")
    if busy:
        lines.append("- Other processes' share of the CPUs while each section ran: " + ", ".join(busy) + ".")
        if any(load.get("others_share_of_cpus", 0) > BUSY_SHARE for load in results["load"].values()):
            lines.append(
                "  **The machine was busy** (other engineers' test runs): wall times are inflated; the ratios are"
            )
            lines.append(
                "  measured side by side (alternating children) and the CPU-time ratios are the steadier ones."
            )
    return [*lines, ""]


def _targets(results: dict) -> list[str]:
    rows = [[t["name"], t["value"], "met" if t["met"] else "**missed**"] for t in results["targets"]]
    return ["## Targets", "", *_table(["target", "this run", ""], rows), ""]


def _preview(results: dict) -> list[str]:
    preview = results.get("preview")
    if not preview:
        return []
    rows = []
    for stack, e in sorted(preview.items()):
        rows.append(
            [
                stack,
                e["resources"],
                e["manifests"],
                len(e["floor_classes"]),
                f"{_f(e['floor']['wall_s'])} / {_f(e['floor']['cpu_s'])}",
                f"{_f(e['preview']['wall_s'])} / {_f(e['preview']['cpu_s'])}",
                f"{_f(e['ratio_wall'])} / {_f(e['ratio_cpu'])}",
                f"{e['preview']['peak_rss_mib']:.0f}",
            ]
        )
    lines = [
        "## Preview latency against the import floor",
        "",
        f"Median of {next(iter(preview.values()))['preview']['runs']} alternating runs. Floor: a bare `python` taking the SDK classes of "
        "the stack's resource types (listed in results.json; the SDKs load lazily, so the class, not the module).",
        "",
    ]
    lines += _table(
        [
            "stack",
            "resources",
            "manifests",
            "floor classes",
            "floor s (wall / CPU)",
            "preview s (wall / CPU)",
            "ratio (wall / CPU)",
            "peak MiB",
        ],
        rows,
    )
    deploy = [
        [
            stack,
            f"{e['criticalPath']['modelledMinutes']} min",
            e["criticalPath"]["summary"],
            f"{e['criticalPath']['lowerBound']['minutes']} min",
            _f(e["criticalPath"]["ratio"]),
        ]
        for stack, e in sorted(preview.items())
        if e.get("criticalPath")
    ]
    if deploy:
        lines += ["", "## Modelled `pulumi up` (deploy critical path)", ""]
        lines += _table(["stack", "modelled", "critical path", "lower bound", "path / bound"], deploy)
    return [*lines, ""]


def _fit_line(name: str, fit: dict, unit: str, scale: float = 1000.0) -> str:
    residuals = ", ".join(f"{r:+.2f}" for r in fit["residuals"])
    return (
        f"- {name}: {fit['intercept']:.2f} s + {scale * fit['slope']:.2f} {unit} per object, r² {fit['r2']:.4f}, "
        f"residuals {residuals} ({', '.join(f'{p:+.1f}%' for p in fit['residuals_pct'] if p is not None)})"
    )


def _scaling(results: dict) -> list[str]:
    scaling = results.get("scaling")
    if not scaling:
        return []
    rows = []
    for r in scaling["rows"]:
        rows.append(
            [
                r["objects"],
                r["resources"],
                r["namespaces"],
                f"{_f(r['preview']['wall_s'])} / {_f(r['preview']['cpu_s'])}",
                f"{r['preview']['peak_rss_mib']:.0f}",
                f"{_f(r['typed']['wall_s'])} / {_f(r['typed']['cpu_s'])}",
                f"{_f(r['bare']['wall_s'])} / {_f(r['bare']['cpu_s'])}",
                f"{r['bare']['peak_rss_mib']:.0f}",
                f"{_f(r['ratio_wall'])} / {_f(r['ratio_cpu'])}",
            ]
        )
    fit = scaling["fit"]
    lines = [
        "## Scaling with the number of Kubernetes objects",
        "",
        f"Generated kind stacks (namespaces × {scaling_bench.TEMPLATES_PER_NAMESPACE} claim templates × 1 quota; "
        f"{scaling['fixed_objects']} objects come with any kind stack). Median of {scaling['rows'][0]['preview']['runs']} runs. "
        "`typed SDK`: the same typed objects registered straight with the mock engine; `bare`: as many bare "
        "`CustomResource`s.",
        "",
    ]
    lines += _table(
        [
            "objects",
            "resources",
            "namespaces",
            "preview s (wall / CPU)",
            "preview MiB",
            "typed SDK s (wall / CPU)",
            "bare s (wall / CPU)",
            "bare MiB",
            "preview / bare (wall / CPU)",
        ],
        rows,
    )
    lines += [
        "",
        "Least-squares lines (residuals in seconds, then relative to the line):",
        "",
        _fit_line("preview, CPU", fit["preview_cpu"], "ms"),
        _fit_line("typed SDK, CPU", fit["typed_cpu"], "ms"),
        _fit_line("bare mock engine, CPU", fit["bare_cpu"], "ms"),
        _fit_line("preview, wall", fit["preview_wall"], "ms"),
        _fit_line("preview, peak RSS", fit["preview_rss"], "KiB", scale=1024.0).replace(" s +", " MiB +"),
        _fit_line("bare, peak RSS", fit["bare_rss"], "KiB", scale=1024.0).replace(" s +", " MiB +"),
        "",
        f"Cost per object over the bare mock engine: {scaling['overhead_ms_per_object_cpu']:.2f} ms CPU, of which the SDK's "
        f"typed resources {scaling['typed_sdk_ms_per_object_cpu']:.2f} ms and gpuplan (config, components, plan, manifests, "
        f"validation) {scaling['gpuplan_ms_per_object_cpu']:.2f} ms.",
        "",
    ]
    largest = scaling["rows"][-1]
    lines += [
        f"At {largest['objects']} objects the typed SDK alone takes {largest['typed']['wall_s'] / largest['bare']['wall_s']:.1f}× "
        f"the bare mock engine, and the preview {largest['preview']['wall_s'] / largest['typed']['wall_s']:.2f}× the typed SDK.",
        "",
    ]
    return lines


def _fit(results: dict) -> list[str]:
    fit = results.get("fit")
    if not fit:
        return []
    lines = ["## gpuplan fit at cluster scale (bench/fit_bench.py)", ""]
    if "results" not in fit:
        return [*lines, f"Not run: {fit.get('skipped') or fit.get('error')}.", ""]
    r = fit["results"]
    lines += [
        f"Cluster dumps of H100/H200/A100 nodes with 8 GPUs each and claim files of templates; each case against "
        f"`gpuplan fit --help` in the same run, alternating children, medians (whole benchmark {fit['wall_s']:.1f} s, "
        f"exit {fit['exit_code']}).",
        "",
    ]
    rows = []
    for c in r.get("cases", []):
        inventory, stats = c["inventory"], c["stats"]
        rows.append(
            [
                f"{c['nodes']:,} x 8",
                f"{c['templates']:,}",
                f"{c['input_mib']} MiB",
                f"{_f(c['help']['wall_s'])} / {_f(c['help']['cpu_s'])}",
                f"{_f(c['fit']['wall_s'])} / {_f(c['fit']['cpu_s'])}",
                f"{_f(c['ratio_wall'])} / {_f(c['ratio_cpu'])} (target {c['target_ratio']:g})",
                f"{c['fit']['peak_rss_mib']:.0f}",
                f"{inventory['shapes']} / {inventory['nodeClasses']}",
                f"{stats['selectorEvaluations']:,}",
                f"{c['satisfiable']} of {c['claims']}",
            ]
        )
    lines += _table(
        [
            "nodes",
            "templates",
            "dump",
            "help s (wall / CPU)",
            "fit s (wall / CPU)",
            "ratio (wall / CPU)",
            "peak MiB",
            "shapes / node classes",
            "CEL evaluations",
            "fit",
        ],
        rows,
    )
    memory = r.get("memory") or {}
    if memory:
        lines += [
            "",
            "Model memory (tracemalloc of the cluster model built from parsed slices, every node's pools gathered):",
            "",
        ]
        mem_rows = [
            [
                series.replace("_", " "),
                m["nodes"],
                m["devices"],
                m["shapes"],
                m["model_kib"],
                m["bytes_per_node"],
                m["bytes_per_device"],
            ]
            for series, entries in memory.items()
            for m in entries
        ]
        lines += _table(
            ["series", "nodes", "devices", "shapes", "model KiB", "bytes / node", "bytes / device"], mem_rows
        )
    return [*lines, ""]


def _suite(results: dict) -> list[str]:
    suite = results.get("suite")
    if not suite:
        return []
    return [
        "## Test suite",
        "",
        f"`{suite['command']}` once: {suite['wall_s']:.1f} s wall, {suite['cpu_s']:.1f} s CPU, "
        f"exit {suite['exit_code']}: {suite['summary']}.",
        "",
    ]


def _profiles(results: dict) -> list[str]:
    found = []
    for stack, entry in sorted((results.get("preview") or {}).items()):
        if entry.get("profile"):
            found.append((f"preview --stack {stack}", entry["profile"]))
    if (results.get("scaling") or {}).get("profile"):
        found.append(
            (f"preview of the {results['scaling']['rows'][-1]['objects']}-object stack", results["scaling"]["profile"])
        )
    if not found:
        return []
    lines = ["## Profiles (cProfile; missed targets, or all with --profile)", ""]
    for title, prof in found:
        lines += [f"### {title}: {prof['total_s']:.1f} s under the profiler", ""]
        if prof.get("phases"):
            lines += _table(
                ["phase", "cumulative s", "share"],
                [[k, f"{v:.2f}", f"{100 * v / prof['total_s']:.0f}%"] for k, v in prof["phases"].items()],
            )
            lines.append("")
        lines += _table(
            ["top by own time", "calls", "own s", "cumulative s"],
            [[f"`{r['function']}`", r["calls"], r["own_s"], r["cumulative_s"]] for r in prof["by_own_time"][:12]],
        )
        lines.append("")
    return lines


def render(results: dict) -> str:
    title = "# Benchmark results" + (" (quick smoke run)" if results.get("quick") else "")
    lines = [
        title,
        "",
        "Generated by `make bench` (`python -m bench`) from bench/results.json; numbers of one run.",
        "",
    ]
    for part in (_machine, _targets, _preview, _scaling, _fit, _suite, _profiles):
        lines += part(results)
    return "\n".join(lines).rstrip() + "\n"
