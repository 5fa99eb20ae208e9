"""The stack file contract: pydantic models, the one loader, problems (errors) and the cross-field rules.

Who may import: dra, plans, resources, policies, gpuplan, tests. Imports only `components.facts`.
Import the names below from here; the submodules are `models`, `loading`, `problems`, `rules`, `reference`, `yamlio`, `strict_yaml` (reading user files).
"""

from components.config.loading import load_stack_file, parse_config_map, read_stack_file
from components.config.models import PROJECT, NodePool, StackConfig
from components.config.problems import InputError, Problem

__all__ = ["InputError", "NodePool", "PROJECT", "Problem", "StackConfig", "load_stack_file", "parse_config_map", "read_stack_file"]
