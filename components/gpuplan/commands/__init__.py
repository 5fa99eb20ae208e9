"""gpuplan's commands, one module each: its options and the wiring of its feature folder's report (common.py: the
one shape of a command; runner.py: what is raised becomes the exit-code contract; options.py: the shared options).

Who may import: gpuplan/app.py.
"""

__all__ = [
    "common",
    "diff",
    "fit",
    "inventory",
    "options",
    "policy",
    "preflight",
    "preview",
    "render",
    "runner",
    "upgrade",
]  # the public modules of this package
