"""Pinned versions per Kubernetes minor: the kind node images (by digest) and the cluster-autoscaler images."""

from __future__ import annotations

import re

from dra_gpu_platform.facts import autoscaler, kubernetes, versions


def test_pinned_versions_cover_every_supported_kubernetes_minor():
    assert versions.SUPPORTED_KUBERNETES == ("1.34", "1.35", "1.36", "1.37")
    for minor in versions.SUPPORTED_KUBERNETES:
        image = versions.KIND_NODE_IMAGES[minor]
        name, digest = image.split("@sha256:")
        assert name.startswith(f"kindest/node:v{minor}.") and re.fullmatch(r"[0-9a-f]{64}", digest)
        assert all(v.startswith(f"{minor}.") for v in autoscaler.RELEASES.get(minor, ()))


def test_every_minor_a_managed_service_offers_has_an_autoscaler_image():
    """No cluster-autoscaler 1.37 image exists yet (docs/references.md#cluster-autoscaler-chart); no managed
    service this package deploys to offers 1.37 either, so no stack needs one."""
    offered = {
        m for platform in kubernetes.MANAGED_PLATFORMS for m in kubernetes.offered_minors(platform, kubernetes.CHECKED)
    }
    assert offered and offered <= set(autoscaler.RELEASES)
    assert "1.37" not in autoscaler.RELEASES
