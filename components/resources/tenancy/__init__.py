"""Tenancy: namespaces with migration state, quota and claim templates; the dra-only admission guard.

Who may import: components.resources.platform, gpuplan, tests.
"""
