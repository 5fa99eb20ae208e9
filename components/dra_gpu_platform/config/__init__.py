"""The stack file contract: pydantic models, the one loader, problems (errors) and the cross-field rules.

Who may import: plans and above, gpuplan, tests. Imports the ground only: facts, inputs (problems, strict YAML) and
cel (a selector that does not compile is a config error). Import the names below from here; the submodules are
`models` (StackConfig and every section model), `fields`, `cluster`, `sections` (one module per section),
`derived` (StackSections: the whole stack and what derives from it), `validation` (with `repair`: what
the rules see of a refused section, and `spelling`: misspelled keys), `parts` (a finer component's sections),
`loading`, `rules`, `reference`.
"""

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map, read_stack_file
from dra_gpu_platform.config.models import PROJECT, NodePool, StackConfig
from dra_gpu_platform.inputs.problems import ConfigError, InputError, Problem

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
