"""`gpuplan inventory`: reading a live machine's NVML.

Who may import: gpuplan commands.
"""

__all__ = ["nvml_live", "slices"]  # the public modules of this package
