"""plan.json and manifests written into an existing output folder: files are overwritten in place and
whatever the run no longer declares is removed (no program run: hand-built registrations)."""

from __future__ import annotations

from gpuplan.engine.outputs import write_outputs
from gpuplan.engine.runtime import ProgramRun, Registration
from tests.conftest import KIND_BASE, write_stack

NAMESPACE = "kubernetes:core/v1:Namespace"
RELEASE = "kubernetes:helm.sh/v3:Release"


def namespace(name: str) -> Registration:
    return Registration(
        urn=f"urn:pulumi:test::dra-gpu-platform::{NAMESPACE}::{name}",
        type=NAMESPACE,
        name=name,
        custom=True,
        parent="",
        provider="",
        dependencies=[],
        protect=False,
        inputs={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
    )


def release(name: str) -> Registration:
    return Registration(
        urn=f"urn:pulumi:test::dra-gpu-platform::{RELEASE}::{name}",
        type=RELEASE,
        name=name,
        custom=True,
        parent="",
        provider="",
        dependencies=[],
        protect=False,
        inputs={"name": name, "chart": name, "values": {"replicas": 1.0}},
    )


def program_run(tmp_path, *resources: Registration) -> ProgramRun:
    from dra_gpu_platform.config.loading import load_stack_file

    config = load_stack_file(write_stack(tmp_path, KIND_BASE))
    return ProgramRun("test", "dra-gpu-platform", config, "test", list(resources), {}, [])


def files(out) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def test_a_second_run_removes_what_it_no_longer_declares_and_rewrites_the_rest(tmp_path):
    out = tmp_path / "out"
    write_outputs(program_run(tmp_path, namespace("team-a"), namespace("team-b"), release("chart-a")), out)
    assert files(out) == [
        "manifests/00-namespace-team-a.yaml",
        "manifests/00-namespace-team-b.yaml",
        "manifests/helm/chart-a.values.yaml",
        "plan.json",
    ]
    (out / "manifests" / "00-namespace-team-a.yaml").write_text("edited by hand\n")
    (out / "manifests" / "notes.txt").write_text("not ours either\n")

    written = write_outputs(program_run(tmp_path, namespace("team-a")), out)

    assert written == [out / "manifests" / "00-namespace-team-a.yaml"]
    assert files(out) == ["manifests/00-namespace-team-a.yaml", "plan.json"]
    assert not (out / "manifests" / "helm").exists()
    assert "kind: Namespace" in (out / "manifests" / "00-namespace-team-a.yaml").read_text()
    assert "replicas: 1" not in (out / "plan.json").read_text()
