"""Namespace migration from the device plugin (`nvidia.com/gpu`) to DRA. Pure: no Pulumi imports.

States are explicit stages; moving forward is legacy → dual → dra-only, and moving back one step at a time
is the rollback path (a plain config change).
"""

from __future__ import annotations

from typing import Literal

MigrationState = Literal["legacy", "dual", "dra-only"]
ORDER: tuple[MigrationState, ...] = ("legacy", "dual", "dra-only")

GPU_MODE_LABEL = "gpu-mode"
ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"


def namespace_labels(state: MigrationState, admin_access: bool, extra: dict[str, str] | None = None) -> dict[str, str]:
    labels = {**(extra or {}), GPU_MODE_LABEL: state}
    if admin_access:
        labels[ADMIN_ACCESS_LABEL] = "true"
    return dict(sorted(labels.items()))


def allows_claims(state: MigrationState) -> bool:
    return state != "legacy"


def allows_legacy_gpus(state: MigrationState) -> bool:
    return state != "dra-only"


def transition(old: MigrationState, new: MigrationState) -> Literal["none", "forward", "rollback", "skip-forward", "skip-rollback"]:
    """Classify a state change; skipping `dual` works but gives workloads no window to move."""
    step = ORDER.index(new) - ORDER.index(old)
    if step == 0:
        return "none"
    if step == 1:
        return "forward"
    if step == -1:
        return "rollback"
    return "skip-forward" if step > 0 else "skip-rollback"
