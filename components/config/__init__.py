"""The stack file contract: pydantic models, the one loader, problems (errors) and the cross-field rules.

Who may import: dra, plans, resources, policies, gpuplan. Imports only `components.facts`.
"""
