"""gpuplan: know a dra-gpu-platform stack before deploying it (preview, policy, fit, inventory, preflight)."""
