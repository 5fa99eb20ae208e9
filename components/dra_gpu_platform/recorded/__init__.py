"""A recorded stack read back: resource props (the engine's inputs, as the policy pack and `gpuplan` see them) to
PoolPlans, Helm releases, DRA objects, namespaces, quotas, workloads and bound admission policies. It judges foreign
programs too, so it reads by type token and the catalog, never by this package's logical names.

Who may import: policies, gpuplan. Imports facts, inputs, cel, dra and plans (and pulumi_policy's unknown-value proxies).
"""

__all__ = ["admission", "objects", "pools", "props"]  # the public modules of this package
