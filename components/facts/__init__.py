"""Facts: pure data with their sources, importing nothing else in the repository.

Who may import: everyone (config, dra, plans, resources, policies, gpuplan, bench, tests).
"""
