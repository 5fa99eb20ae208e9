"""GPU software Helm releases: GPU Operator, NVIDIA DRA driver, dra-example-driver.

Who may import: components.resources.platform, gpuplan, tests.
"""
