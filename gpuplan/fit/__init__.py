"""`gpuplan fit` inputs: claim files, cluster dumps and the stack's own objects.

Who may import: gpuplan commands.
"""
