"""GpuPlatformArgs.from_sections: a stack file's sections as a library call (the library contract). The same
validation and messages as a stack file, and GpuPlatform built from it registers exactly the URNs of the program's
run of that stack file (the golden lists), without the program."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.config.models import PROJECT
from dra_gpu_platform.inputs.problems import InputError
from tests.conftest import REFERENCE_STACKS, ROOT, load_committed, qualify
from tests.resources.alone import register

REGION_KEYS = ("aws:region", "azure-native:location")


def _sections(stack: str) -> tuple[dict, str | None]:
    config = load_committed(stack)
    region = next((config[k] for k in REGION_KEYS if k in config), None)
    return {k: v for k, v in config.items() if ":" not in k and k != "kubeconfig"}, region


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_gpu_platform_from_sections_registers_the_programs_urns(stack):
    from dra_gpu_platform.resources.platform import GpuPlatform, GpuPlatformArgs

    sections, region = _sections(stack)
    mocks_config = parse_config_map(qualify(load_committed(stack)), stack=stack, source=f"Pulumi.{stack}.yaml")

    def build():
        args = GpuPlatformArgs.from_sections(sections, region=region, kubeconfig=None)
        GpuPlatform(args.plan.name, args)

    registered = register(build, config=mocks_config, stack=stack, project=PROJECT)
    golden = (ROOT / "tests" / "golden" / "urns" / f"{stack}.txt").read_text().splitlines()
    assert sorted(r.urn for r in registered) == golden


def test_a_bad_library_call_lists_every_problem_and_registers_nothing():
    from dra_gpu_platform.resources.platform import GpuPlatform, GpuPlatformArgs

    sections = {
        "cluster": {"platform": "kind", "name": "lab", "kubernetesVersion": "1.35"},
        "nodePools": [{"name": "dra", "gpu": "H100", "minNodes": 5, "maxNodes": 2}],
        "namespaces": [{"name": "team-a", "migration": "sideways"}],
    }
    problems: list = []

    def build():
        try:
            GpuPlatform("lab", GpuPlatformArgs.from_sections(sections))
        except InputError as error:
            problems.extend(error.problems)

    assert register(build) == []
    paths = {p.path for p in problems}
    assert {"nodePools[0].minNodes", "namespaces[0].migration"} <= paths, paths


def test_an_existing_cluster_needs_its_kubeconfig():
    from dra_gpu_platform.resources.platform import GpuPlatformArgs

    sections = {"cluster": {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35"}}
    with pytest.raises(InputError, match="kubeconfig"):
        register(lambda: GpuPlatformArgs.from_sections(sections))
    registered = register(lambda: GpuPlatformArgs.from_sections(sections, kubeconfig="apiVersion: v1"))
    assert registered == []  # planning registers nothing by itself
