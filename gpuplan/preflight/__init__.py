"""`gpuplan preflight`: read-only AWS checks of an EKS stack.

Who may import: gpuplan commands.
"""
