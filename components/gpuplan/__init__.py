"""gpuplan: know a dra-gpu-platform stack before deploying it (preview, policy, fit, inventory, preflight, diff).

`cli/` parses options and prints, `commands/` are thin, the library folders do the work. Nothing imports gpuplan
(except its own tests and bench): the program and the policy pack run without it.
"""
