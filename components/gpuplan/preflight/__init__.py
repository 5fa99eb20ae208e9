"""`gpuplan preflight`: read-only cloud checks of an EKS stack (checks) or an AKS stack (aks), the live on-demand
prices behind `--prices` (live_prices), one stack's preflight and its JSON (stack), and its text view (text).

Who may import: gpuplan commands.
"""

__all__ = ["aks", "checks", "live_prices", "stack", "text"]  # the public modules of this package
