"""dra-gpu-platform: one stack file in, one GPU Kubernetes platform scheduled with DRA out (the package's stack
program; a team's own program uses the library instead: docs/library.md)."""

from dra_gpu_platform.program import run

run()
