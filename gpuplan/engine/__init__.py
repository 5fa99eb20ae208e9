"""The offline engine: the program under Pulumi's mock runtime, a recording monitor, plan.json and manifests.

Who may import: gpuplan commands and library folders.
"""
