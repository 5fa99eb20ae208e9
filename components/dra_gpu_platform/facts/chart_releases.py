"""Released Helm chart versions this package supports, each with the public source it was read at. Pure data.

A version is listed when upstream released it (the git tag its chart was published from; the commit is the tag's)
and the values this package emits for it were rendered with a real helm against the chart at that tag. A config
rule rejects any other version unless its section says `allowUnlisted: true` (someone pinning a newer release on
purpose; docs/gpu-software.md#chart-versions). Sources: docs/references.md#gpu-operator-chart,
docs/references.md#kube-prometheus-stack-releases. The DRA driver and dra-example-driver releases carry their
source in dra_gpu_platform/facts/driver_charts.py, next to the other facts of each release.
"""

from __future__ import annotations

from dataclasses import dataclass

# The config key beside every pinned chart version that lets an unlisted version through.
ALLOW_UNLISTED_KEY = "allowUnlisted"


@dataclass(frozen=True)
class ChartSource:
    """Where a released chart version was read: the repository, its release tag and the tag's commit."""

    repo: str  # GitHub owner/name
    tag: str
    commit: str
    path: str  # the chart's folder at the tag

    def cite(self) -> str:
        return f"{self.repo}@{self.tag} ({self.commit[:12]}) {self.path}"


def _gpu_operator(tag: str, commit: str) -> ChartSource:
    return ChartSource("NVIDIA/gpu-operator", tag, commit, "deployments/gpu-operator")


# NGC chart versions are the git tags (the chart at a tag says `version: v1.0.0-devel`; the release job stamps
# the tag). Every key the GPU software plan writes is read by each of these charts (rendered with helm 4.1.4).
# v25.10.0 is the first with CDI on by default, which DRA pools need (versions.GPU_OPERATOR_MIN_FOR_DRA); the
# v25.3 line serves device-plugin-only stacks. v26.7.0 is the first with the GPUCluster resource
# (gpuOperator.draManagement: gpucluster; versions.GPU_OPERATOR_MIN_FOR_GPUCLUSTER). The v26.3.x tags are the stop
# between 25.10 and 26.7 that an upgrade must make (facts/gpu_software_support.py operator_hops); the prod and
# staging values rendered with helm 4.1.4 against each of them with every values key read
# (docs/references.md#gpu-operator-chart).
GPU_OPERATOR_RELEASES: dict[str, ChartSource] = {
    tag: _gpu_operator(tag, commit)
    for tag, commit in (
        ("v25.3.0", "b5479aaa85c72a3f67090e9cb205dfefd6c7b010"),
        ("v25.3.1", "a1da4772ae73020aea2b829449b2b07e48c75fb8"),
        ("v25.3.2", "616690d88d86bb4e88897b6775dfe76a6c15c741"),
        ("v25.3.3", "1f1f9cda3340d30558dbfa3926e689b83bee8665"),
        ("v25.3.4", "d73a0086a6ba41c5972a704f8d36e3a162ee656f"),
        ("v25.10.0", "6f3d599dfe65b7d4247a90ca2ab27b32a6d6ed98"),
        ("v25.10.1", "846018752b8a34d4039feb6f18629b4c64210e32"),
        ("v26.3.0", "30a8bbd2d04ab9fafa9da637b98b0d23b0316367"),
        ("v26.3.1", "5a25fef4572b2b36e32ebcacd482b586e467dc2d"),
        ("v26.3.2", "2369b0586cbd033132f44529ed0fe18256fae001"),
        ("v26.3.3", "b0a49c0e7b2e061dcd83f2bb2fe4fe960c5d0338"),
        ("v26.7.0", "10ee5b3638b89e11e949412aafa5ba99279c3721"),
    )
}

# The node-feature-discovery subchart gpu-operator v25.10.x pins (deployments/gpu-operator/Chart.yaml
# dependencies) and vendors under charts/; its templates equal NFD v0.18.2 deployment/helm/node-feature-discovery.
NFD_SUBCHART = ChartSource(
    "kubernetes-sigs/node-feature-discovery",
    "v0.18.2",
    "6140d1daf21074e50d6eaf0e538b27e7b8381c03",
    "deployment/helm/node-feature-discovery",
)


def _kps(version: str, commit: str) -> ChartSource:
    return ChartSource(
        "prometheus-community/helm-charts", f"kube-prometheus-stack-{version}", commit, "charts/kube-prometheus-stack"
    )


KUBE_PROMETHEUS_STACK_CHART = "kube-prometheus-stack"
KUBE_PROMETHEUS_STACK_REPO = "https://prometheus-community.github.io/helm-charts"
# The 81.x release tags (there is no 81.2.3, 81.2.4 or 81.4.5: 81.4.5 exists only on commit 48793177 of an
# unmerged pull request). Every 81.x pins kube-state-metrics chart 7.1.0 (kube-state-metrics v2.18.0). The 88.5.x
# tags pin kube-state-metrics chart 8.4.0, whose appVersion 2.20.0 is the first kube-state-metrics with
# kube_pod_resourceclaim_info (docs/references.md#kube-state-metrics-resourceclaim-info); the monitoring plan writes
# the same values to both lines (read by every template of 81.4.3 and 88.5.3, rendered with helm 4.1.4).
KUBE_PROMETHEUS_STACK_RELEASES: dict[str, ChartSource] = {
    version: _kps(version, commit)
    for version, commit in (
        ("81.0.0", "369feba650d10b8f45bf6b0680262212485fee92"),
        ("81.0.1", "43146df428e8313079598da86e130cba8d8eba3b"),
        ("81.1.0", "6c3ec4860424529f6e545684298c046bf7b31677"),
        ("81.2.0", "3ca4cc8b002766b848de21422b3e4bdf5a3d7445"),
        ("81.2.1", "17c59d5251f0ee22927521443ef3e6ec944a1a79"),
        ("81.2.2", "989bde9282d8413b8adfdb9f4793b5a37a9b56b5"),
        ("81.2.5", "39dff3ca9ca95b5e8eae564bdc2daeabfd277bae"),
        ("81.3.0", "2885a529aa647c0da087a70266bf8e1f16c762a8"),
        ("81.3.1", "15efca129e97e906c7fc46136c0f0ef50da59f52"),
        ("81.3.2", "6bfe4aade02a2e6f9c296ea6879e49a71b384c86"),
        ("81.4.0", "16c94d7bf798c130429c22998691e00a8ee30b51"),
        ("81.4.1", "196e5cf31728e047eb41d9bf51f04558aca0eb0d"),
        ("81.4.2", "a687510d16d06c9f44562b3300b331efa0e75733"),
        ("81.4.3", "d43b29960e2d31ef0790a64f56f1d62b36ff8ec4"),
        ("81.5.0", "ff2631012671c516654fa2a1caf2efbf54cba483"),
        ("81.5.1", "96d2a2c20b555c1d6f889d7873b0d583f0e8cf19"),
        ("81.5.2", "1d2923b284050f0662976d9120e5863af897ef33"),
        ("81.6.0", "dfd548107eefebcb190de9edd2c609dec1448bdd"),
        ("81.6.1", "e5b339de215abb64122ac0786369e5c6374e72d7"),
        ("81.6.2", "e65a6d49b8ef963ae61129f95a60838f59376af5"),
        ("81.6.3", "90dc56b3bd73c9145b8e73d9c6d391f282690dfe"),
        ("81.6.4", "9d3748b31d17c0f71d44225d945247b9646fbac4"),
        ("81.6.5", "5605e6e8ea5327ec71dda51f64610a9df9e720d4"),
        ("81.6.6", "866571d6d2ecb0e652411e2c6a1cf9b90815d435"),
        ("81.6.7", "69f128853dac83ef383f9c3d8358164bf3a7a708"),
        ("81.6.8", "181835ca123dfeec3b237a429ebeea4d2f445506"),
        ("81.6.9", "2bd5a1886b91e6f6e2cb09b4131e912bd029025d"),
        ("88.5.0", "a754ab1cae7ca9b8bcd53682be34f4f5dae56121"),
        ("88.5.1", "ce2d4cbfe11c2c4f49237613bf731d3b760bc1fe"),
        ("88.5.2", "6eee8c044ab424da7d59e643fe9bed55a1e8d2c8"),
        ("88.5.3", "ea930baeebeba39f56d6b44e351f23b2a072a600"),
    )
}
# The newest release read (2026-08-21): kube-state-metrics v2.20.0 (chart 8.4.0), grafana chart 12.11.1 (Grafana
# 13), prometheus-operator v0.93.1; its values (and its subcharts') read every key the monitoring plan sets.
KUBE_PROMETHEUS_STACK_DEFAULT = "88.5.3"
# The kube-state-metrics the default release runs (its subchart's appVersion), and the first one with
# kube_pod_resourceclaim_info.
KUBE_STATE_METRICS_VERSION = "v2.20.0"


def unlisted_fix(section: str, listed: list[str] | tuple[str, ...]) -> str:
    """The fix of an unlisted-version problem, the same words for every versioned section."""
    return (
        f"use one of {', '.join(listed)}, or set {section}.{ALLOW_UNLISTED_KEY}: true to pin a newer "
        "release on purpose (its values are then unchecked)"
    )
