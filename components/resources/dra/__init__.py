"""DRA objects: DeviceClasses and DeviceTaintRules.

Who may import: components.resources.platform, gpuplan, tests.
"""
