"""gpuplan: know a dra-gpu-platform stack before deploying it (diff, fit, inventory, policy, preflight, preview,
render).

One direction, top to bottom (pyproject.toml's import contracts): `main.py` and `app.py` (the entry point and the
Typer app) -> `commands/` (one module per command: options and wiring) -> the feature folders, each owning its
report's JSON and text (diff, fit, inventory, policy, preflight, preview, render; checks and timing under them)
-> `engine/` (the stack a command works on, the program under the mock runtime, plan.json and manifests) ->
`output/` (the console, atomic writes, exit codes, signals). Nothing imports gpuplan (except its own tests and
bench): the program and the policy pack run without it.
"""
