"""GPU software Helm releases: GPU Operator, NVIDIA DRA driver, dra-example-driver.

Who may import: dra_gpu_platform.resources.platform, gpuplan, tests.
"""

__all__ = ["dra_driver", "example_dra_driver", "gpu_operator", "helm_release"]  # the public modules of this package
