"""Modelled `pulumi up` duration: the deploy model and the critical path of a recorded plan.

Who may import: gpuplan commands.
"""

__all__ = ["critical_path", "deploy_model"]  # the public modules of this package
