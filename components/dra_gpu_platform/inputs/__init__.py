"""Reading what users hand in: input problems (each with file, field path, value, rule and fix; `InputError` carries
them all), strict YAML reading with limits, explained syntax errors, and YAML writing.

Who may import: everyone in the package, gpuplan. Imports nothing from the repository.
"""

__all__ = ["problems", "strict_yaml", "yaml_hints", "yamlio"]  # the public modules of this package
