"""Facts: pure data with their sources; imports nothing in the repository outside components.facts.

Who may import: everyone (config, dra, plans, resources, policies, gpuplan, bench, tests).
"""

__all__ = ["aks", "catalog", "driver_charts", "eks_amis", "naming", "node_labels", "quantity", "replacements", "type_tokens", "versions"]  # the public modules of this package
