"""`gpuplan fit`: will every claim and pod schedule? The stack's claim templates, --claims manifests (claims,
pods, workloads) and a cluster dump or the stack's simulated inventory, judged as the kube-scheduler's DRA
plugin of the stack's Kubernetes minor judges them (gpuplan/fit/, dra_gpu_platform/dra/; docs/gpuplan/fit.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command

ClaimFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--claims",
        help="ResourceClaim, ResourceClaimTemplate, DeviceClass, Pod or workload manifests to evaluate too (repeatable).",
    ),
]
ClusterDump = Annotated[
    Path | None,
    typer.Option(
        "--inventory",
        help="A cluster dump instead of the simulation: "
        "the JSON of `kubectl get` for resourceslices, resourceclaims, nodes and deviceclasses with -A -o json, "
        "types comma-separated (existing allocations count).",
    ),
]
FeatureGates = Annotated[
    str | None,
    typer.Option(
        "--feature-gates",
        help="Kubernetes feature gates as NAME=BOOL, comma-separated, e.g. DRADeviceTaints=true "
        "(default: the gates of the stack's Kubernetes minor and what the stack sets).",
    ),
]
KubernetesVersion = Annotated[
    str | None,
    typer.Option(
        "--kubernetes-version",
        help="Judge as the cluster would at this Kubernetes minor, e.g. 1.36 (default: the stack's kubernetesVersion).",
    ),
]
MoreClaimFiles = Annotated[
    list[Path] | None,
    typer.Argument(metavar="[FILE]...", help="More claim files: `--claims a.yaml b.yaml` reads both."),
]


def fit(
    stack: options.StackName = None,
    config: options.StackFile = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
    claims: ClaimFiles = None,
    inventory: ClusterDump = None,
    feature_gates: FeatureGates = None,
    kubernetes_version: KubernetesVersion = None,
    more_claims: MoreClaimFiles = None,
) -> None:
    """Will every claim and pod schedule? Per claim: fits or not, where, how many at once, quota vs capacity; per pod: node and devices."""

    def body() -> int:
        from dra_gpu_platform.config.loading import load_stack_file
        from dra_gpu_platform.plans.stack import plan_stack
        from gpuplan.fit.report import document, failing, fit_report
        from gpuplan.fit.text import render_text

        name, stack_file = options.resolve_stack(stack, config)
        with output.status(format, f"gpuplan fit: scheduling the claims of stack {name} on its simulated cluster"):
            report = fit_report(
                plan_stack(load_stack_file(stack_file)),
                name,
                [*(claims or []), *(more_claims or [])],
                inventory,
                feature_gates,
                kubernetes_version,
            )
        failed = output.write_and_emit(
            options.out_dir(out, name), "fit.json", document(report), format, lambda: render_text(name, report)
        )
        return failed or (ExitCode.FINDINGS if failing(report) else ExitCode.OK)

    raise typer.Exit(run_command(format, body))
