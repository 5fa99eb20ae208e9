"""`gpuplan fit`: will every claim and pod schedule? The stack's claim templates, --claims manifests (claims,
pods, workloads) and a cluster dump or the stack's simulated inventory, judged as the kube-scheduler's DRA
plugin of the stack's Kubernetes minor judges them (gpuplan/fit/, dra_gpu_platform/dra/; docs/gpuplan/fit.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpuplan.commands import options
from gpuplan.commands.common import Job, Result, stack_command
from gpuplan.output.emit import OutputFormat

ClaimFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--claims",
        metavar="FILE...",
        help="ResourceClaim, ResourceClaimTemplate, DeviceClass, Pod or workload manifests to evaluate too (repeatable).",
    ),
]
ClusterDump = Annotated[
    Path | None,
    typer.Option(
        "--inventory",
        metavar="FILE",
        help="A cluster dump instead of the simulation: "
        "the JSON of `kubectl get` for resourceslices, resourceclaims, nodes and deviceclasses with -A -o json, "
        "types comma-separated (existing allocations count).",
    ),
]
FeatureGates = Annotated[
    str | None,
    typer.Option(
        "--feature-gates",
        metavar="NAME=BOOL,...",
        help="Kubernetes feature gates as NAME=BOOL, comma-separated, e.g. DRADeviceTaints=true "
        "(default: the gates of the stack's Kubernetes minor and what the stack sets).",
    ),
]
KubernetesVersion = Annotated[
    str | None,
    typer.Option(
        "--kubernetes-version",
        metavar="MINOR",
        help="Judge as the cluster would at this Kubernetes minor, e.g. 1.36 (default: the stack's kubernetesVersion).",
    ),
]
MoreClaimFiles = Annotated[
    list[Path] | None,
    typer.Argument(metavar="FILE", help="More claim files: `--claims a.yaml b.yaml` reads both."),
]

DOING = "scheduling the claims of stack {stack} on its simulated cluster"  # the live status line while it works


def fit(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    out: options.OutDir = None,
    format: options.Format = OutputFormat.text,
    claims: ClaimFiles = None,
    inventory: ClusterDump = None,
    feature_gates: FeatureGates = None,
    kubernetes_version: KubernetesVersion = None,
    more_claims: MoreClaimFiles = None,
) -> None:
    """Will every claim and pod schedule? Per claim: fits or not, where, how many at once, quota vs capacity; per
    pod: node and devices."""

    def work(job: Job) -> Result:
        from gpuplan.fit.report import document, failing, fit_report
        from gpuplan.fit.text import render_text

        name = job.source.stack
        report = fit_report(
            job.source.plan(),
            name,
            [*(claims or []), *(more_claims or [])],
            inventory,
            feature_gates,
            kubernetes_version,
        )
        return Result(document(report), lambda _console: render_text(name, report), findings=failing(report))

    stack_command("fit", DOING, work, format, stack, config, project, out)
