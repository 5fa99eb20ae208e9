"""`gpuplan inventory`: reading a live machine's NVML.

Who may import: gpuplan commands.
"""
