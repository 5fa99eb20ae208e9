"""Pods that Pod Security `restricted` admits (every tenant namespace of a stack enforces it, or baseline): the
fields it asks of a pod and of each container (dra_gpu_platform/dra/pod_security_checks.py). Tests about scheduling
and quota build their pods with these, so that Pod Security is not what they meet first."""

from __future__ import annotations

from typing import Any

POD_SECURITY = {"runAsNonRoot": True, "runAsUser": 1000, "seccompProfile": {"type": "RuntimeDefault"}}
CONTAINER_SECURITY = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def container(**fields: Any) -> dict[str, Any]:
    return {"securityContext": dict(CONTAINER_SECURITY), **fields}


def restricted(spec: dict[str, Any]) -> dict[str, Any]:
    """`spec` (a pod spec) with the pod's and every container's security context restricted asks for."""
    secured = {**spec, "securityContext": {**POD_SECURITY, **(spec.get("securityContext") or {})}}
    for key in ("initContainers", "containers"):
        if key in spec:
            secured[key] = [
                {**c, "securityContext": {**CONTAINER_SECURITY, **(c.get("securityContext") or {})}} for c in spec[key]
            ]
    return secured
