"""Manifest checks shared by preview, render and fit: Kubernetes schema validation (kubernetes-validate) and
custom resources against their CRDs.

Who may import: gpuplan feature folders.
"""

__all__ = ["crd_validate", "kube_validate"]  # the public modules of this package
