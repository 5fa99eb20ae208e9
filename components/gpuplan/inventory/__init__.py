"""`gpuplan inventory`: the ResourceSlices of one node from the catalog, an NVML snapshot file or this machine's NVML
(nvml_live), as YAML and as a List (slices).

Who may import: gpuplan commands.
"""

__all__ = ["nvml_live", "slices"]  # the public modules of this package
