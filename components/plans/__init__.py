"""Plans: StackConfig -> plain data (cloud plans, Helm values, DeviceClasses, claim templates, migration,
admission policy, the stack's simulated inventory, monitoring). No Pulumi imports.

Who may import: resources, policies, gpuplan. Imports facts, config and dra.
"""
