"""`gpuplan preflight`: read-only AWS checks of an EKS stack.

Who may import: gpuplan commands.
"""

__all__ = ["checks"]  # the public modules of this package
