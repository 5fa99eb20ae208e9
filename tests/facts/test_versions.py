"""Pinned versions per Kubernetes minor: the kind node images (by digest) and the cluster-autoscaler images."""

from __future__ import annotations

import re

from dra_gpu_platform.facts import autoscaler, versions


def test_pinned_versions_cover_every_supported_kubernetes_minor():
    for minor in versions.SUPPORTED_KUBERNETES:
        image = versions.KIND_NODE_IMAGES[minor]
        name, digest = image.split("@sha256:")
        assert name.startswith(f"kindest/node:v{minor}.") and re.fullmatch(r"[0-9a-f]{64}", digest)
        assert all(v.startswith(f"{minor}.") for v in autoscaler.RELEASES[minor])
