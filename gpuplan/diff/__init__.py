"""`gpuplan diff`: compare two recorded plans and classify every change.

Who may import: gpuplan commands.
"""
