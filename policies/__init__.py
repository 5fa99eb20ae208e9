"""dra-gpu-platform's CrossGuard policy pack. Rules live in `policies/rules/` (importable without starting the
analyzer); `__main__.py` holds only the PolicyPack, which the Pulumi CLI runs.

Imports components.facts, config, dra and plans only: never components.resources or gpuplan.
"""
