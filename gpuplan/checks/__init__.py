"""Checks on a recorded plan: Kubernetes schema validation and the offline policy-pack runner.

Who may import: gpuplan commands.
"""
