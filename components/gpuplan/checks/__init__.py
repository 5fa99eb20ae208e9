"""Checks on a recorded plan: Kubernetes schema validation and the offline policy-pack runner.

Who may import: gpuplan commands.
"""

__all__ = ["crd_validate", "kube_validate", "policy_runner"]  # the public modules of this package
