"""Limits, known capacity names and the errors of the CEL adapter."""

from __future__ import annotations

import re

# resourceapi.CELSelectorExpressionMaxLength; Go's len() counts bytes.
MAX_SELECTOR_BYTES = 10 * 1024

# Capacities the NVIDIA driver (docs/references.md#nvidia-dra-gpu-attributes, plus memorySlice<N> on MIG devices:
# docs/references.md#nvidia-dra-mig-devices) and dra-example-driver (docs/references.md#example-driver-devices)
# publish. Reading one through device.attributes is an evaluation error that aborts allocation.
KNOWN_CAPACITY_NAMES = frozenset(
    {
        "memory",
        "multiprocessors",
        "copyEngines",
        "decoders",
        "encoders",
        "jpegEngines",
        "ofaEngines",
        "addressableMemory",
    }
)
_MEMORY_SLICE_RE = re.compile(r"memorySlice[0-9]+")

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class CelCompileError(ValueError):
    """The expression does not compile: syntax, unknown name or function, wrong type, non-bool result, too long."""


class CelEvaluationError(RuntimeError):
    """The expression failed at run time; for a selector Kubernetes aborts the allocation."""
