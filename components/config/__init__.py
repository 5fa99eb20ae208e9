"""The stack file contract: pydantic models, the one loader, problems (errors) and the cross-field rules.

Who may import: dra, plans, resources, policies, gpuplan, tests. Imports only `components.facts`.
Import the names below from here; the submodules are `models`, `loading`, `problems`, `rules`, `reference`, `yamlio`, `strict_yaml` (reading user files).
"""

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map, read_stack_file
from dra_gpu_platform.config.models import PROJECT, NodePool, StackConfig
from dra_gpu_platform.config.problems import InputError, Problem

__all__ = [
    "PROJECT",
    "InputError",
    "NodePool",
    "Problem",
    "StackConfig",
    "load_stack_file",
    "parse_config_map",
    "read_stack_file",
]
