"""Monitoring plans: alert rules, metric sources, PromQL helpers, chart values, the Grafana dashboard.

Who may import: resources, policies, gpuplan.
"""

__all__ = [
    "alerts",
    "dashboard",
    "metrics",
    "plan",
    "promql",
    "sources",
    "values",
]  # the public modules of this package
