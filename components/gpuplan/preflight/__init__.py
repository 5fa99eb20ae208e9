"""`gpuplan preflight`: read-only cloud checks of an EKS stack (checks) or an AKS stack (aks), and the live
on-demand prices behind `--prices` (live_prices).

Who may import: gpuplan commands.
"""

__all__ = ["aks", "checks", "live_prices"]  # the public modules of this package
