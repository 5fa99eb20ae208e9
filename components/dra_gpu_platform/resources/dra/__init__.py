"""DRA objects: DeviceClasses and DeviceTaintRules.

Who may import: dra_gpu_platform.resources.platform, gpuplan, tests.
"""

__all__ = ["device_classes", "maintenance"]  # the public modules of this package
