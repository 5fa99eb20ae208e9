"""The stack file contract: pydantic models, the one loader, problems (errors) and the cross-field rules.

Who may import: dra, plans, resources, policies, gpuplan, tests. Imports `components.facts` and, as the one exception to
the layers, the self-contained CEL engine `components.dra.cel` (a selector that does not compile is a config error).
Import the names below from here; the submodules are `models` (StackConfig and every section model), `fields`,
`cluster`, `sections`, `validation` (with `repair`: what the rules see of a refused section, and `spelling`:
misspelled keys), `parts` (a finer component's sections), `loading`, `problems`, `rules`, `reference`, `yamlio`,
`strict_yaml` (reading user files; its syntax errors explained by `yaml_hints`).
"""

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map, read_stack_file
from dra_gpu_platform.config.models import PROJECT, NodePool, StackConfig
from dra_gpu_platform.config.problems import ConfigError, InputError, Problem

__all__ = [
    "PROJECT",
    "ConfigError",
    "InputError",
    "NodePool",
    "Problem",
    "StackConfig",
    "load_stack_file",
    "parse_config_map",
    "read_stack_file",
]
