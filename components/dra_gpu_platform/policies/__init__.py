"""dra-gpu-platform's CrossGuard policy pack: `pack` (its name, level and policies) and `rules/`, importable without
starting the analyzer. The pack's shell, the repository's policies/ folder (PulumiPolicy.yaml, `__main__.py` holding
only the PolicyPack, the policy configs), is what the Pulumi CLI runs.

Imports the pure layers and `recorded` only: never resources, the stack program or gpuplan (import-linter).
"""
