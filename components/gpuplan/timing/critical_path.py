"""The deploy critical path of a recorded program run: graph extraction for gpuplan/timing/deploy_model.py and
its text / JSON rendering for `gpuplan preview`."""

from __future__ import annotations

from typing import Any

from gpuplan.engine.outputs import HELM_RELEASE
from gpuplan.engine.runtime import ProgramRun, Registration
from gpuplan.timing import deploy_model
from gpuplan.timing.deploy_model import DURATIONS, DeployModel, Node, PathStep


def _name(resource: Registration) -> str:
    # A Helm release is known by its release name (gpu-operator), not by its Pulumi logical name.
    if resource.type == HELM_RELEASE and isinstance(resource.inputs.get("name"), str):
        return resource.inputs["name"]
    return resource.name


def graph(run: ProgramRun) -> list[Node]:
    """One node per registered resource. Registration.dependencies already holds explicit depends_on and the
    dependencies through Outputs; the provider and the parent are kept as their own edges."""
    by_urn = run.by_urn()
    nodes = []
    for resource in run.resources:
        parent_type = by_urn[resource.parent].type if resource.parent in by_urn else ""
        key, role = deploy_model.classify(resource.type, resource.custom, parent_type, resource.inputs)
        nodes.append(
            Node(
                id=resource.urn,
                name=_name(resource),
                type=resource.type,
                key=key,
                role=role,
                parent=resource.parent,
                dependencies=tuple(resource.dependencies),
                provider=resource.provider,
            )
        )
    return nodes


def model_run(run: ProgramRun) -> DeployModel:
    return deploy_model.model(graph(run))


def _minutes(seconds: float) -> float:
    return round(seconds / deploy_model.MINUTE, 2)


def _term(node: Node | None) -> dict[str, Any] | None:
    if node is None:
        return None
    return {"urn": node.id, "name": node.name, "type": node.type, "step": node.key, "minutes": _minutes(node.seconds)}


def _step(step: PathStep) -> dict[str, Any]:
    return {
        "urn": step.node.id,
        "name": step.node.name,
        "type": step.node.type,
        "step": step.node.key,
        "minutes": _minutes(step.seconds),
        "startMinutes": _minutes(step.start),
        "finishMinutes": _minutes(step.finish),
        "via": step.via,
        "source": DURATIONS[step.node.key].source,
    }


def as_json(model: DeployModel) -> dict[str, Any]:
    bound = model.lower_bound
    return {
        "modelledMinutes": _minutes(model.seconds),
        "path": [_step(s) for s in model.path],
        "summary": deploy_model.render_path(model.path, shortest=0.001),
        "lowerBound": {
            "minutes": _minutes(bound.seconds),
            "cluster": _term(bound.cluster),
            "gpuPool": _term(bound.gpu_pool),  # the chain's pool when it is a GPU pool
            "nodePool": _term(bound.node_pool),  # the chain's pool: a GPU pool or the system nodes
            "release": _term(bound.release),
        },
        "ratio": None if model.ratio is None else round(model.ratio, 3),
    }


def text_lines(model: DeployModel) -> list[str]:
    bound = model.lower_bound
    lines = [
        f"Modelled `pulumi up`: {deploy_model.format_duration(model.seconds)} "
        "(typical durations: docs/gpuplan/preview.md#modelled-durations)",
        f"  critical path: {deploy_model.render_path(model.path) or '(nothing takes time)'}",
    ]
    if bound.terms:
        terms = " + ".join(deploy_model.describe_step(n) for n in bound.terms)
        ratio = f"; path / bound = {model.ratio:.2f}" if model.ratio is not None else ""
        lines.append(
            f"  lower bound: {terms} = {deploy_model.format_duration(bound.seconds)}{ratio} "
            "(the slowest chain of cluster, node pool and chart that wait for each other)"
        )
    return lines
