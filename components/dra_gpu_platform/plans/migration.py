"""Namespace migration from the device plugin (`nvidia.com/gpu`) to DRA. Pure: no Pulumi imports.

States are explicit stages; moving forward is legacy → dual → dra-only, and moving back one step at a time
is the rollback path (a plain config change).
"""

from __future__ import annotations

from typing import Literal

from dra_gpu_platform.facts.naming import ADMIN_ACCESS_LABEL, GPU_MODE_LABEL

MigrationState = Literal["legacy", "dual", "dra-only"]

# the label facts live in dra_gpu_platform/facts/naming.py; re-exported here for the modules that read them from here
__all__ = ["ADMIN_ACCESS_LABEL", "GPU_MODE_LABEL", "MigrationState", "namespace_labels"]


def namespace_labels(state: MigrationState, admin_access: bool, extra: dict[str, str] | None = None) -> dict[str, str]:
    labels = {**(extra or {}), GPU_MODE_LABEL: state}
    if admin_access:
        labels[ADMIN_ACCESS_LABEL] = "true"
    return dict(sorted(labels.items()))
