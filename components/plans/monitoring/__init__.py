"""Monitoring plans: alert rules, metric sources, PromQL helpers, chart values, the Grafana dashboard.

Who may import: resources, policies, gpuplan.
"""
