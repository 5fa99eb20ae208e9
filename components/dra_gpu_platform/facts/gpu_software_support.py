"""Which GPU software release its vendor supports on which Kubernetes minor, how long, and how it upgrades. Pure data.

- GPU Operator: NVIDIA's platform-support matrix per release (the Kubernetes column of its Ubuntu rows) and its life
  cycle policy (YY.MM is the major; a new major deprecates the previous one and ends support of all older ones;
  "Upgrades are only supported within a major release or to the next major release"):
  docs/references.md#gpu-operator-kubernetes-support, docs/references.md#gpu-operator-life-cycle.
- The operator's own driver and driver manager per release (what an operator-managed driver node reloads):
  docs/references.md#gpu-operator-operand-versions.
- NVIDIA DRA driver: no support matrix and no life cycle policy upstream; its docs name a lower bound only
  (docs/references.md#nvidia-dra-driver-kubernetes-support).

dra_gpu_platform/config reads the defaults (the newest listed release the vendor supports on the stack's minor),
dra_gpu_platform/plans/upgrade.py the hops and support checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from dra_gpu_platform.facts.chart_releases import GPU_OPERATOR_RELEASES
from dra_gpu_platform.facts.driver_charts import lineage_of, parse_version

# ---------------------------------------------------------------------------------------------------
# GPU Operator

SUPPORTED = "supported"
DEPRECATED = "deprecated"
END_OF_SUPPORT = "end of support"

# life-cycle-policy.rst "Support Status for Releases" (the page's review build names 26.7.x; the published source
# at 52dcb7b8 says "26.6.x", a typo: there is no v26.6 tag). Majors older than these are end of support.
LIFECYCLE: dict[str, str] = {"26.7": SUPPORTED, "26.3": DEPRECATED}
# The majors in release order (the repository's tags): the upgrade path goes through each.
MAJORS = ("25.3", "25.10", "26.3", "26.7")
UPGRADE_RULE = "upgrades are only supported within a major release or to the next major release"
LIFECYCLE_SOURCE = "NVIDIA/cloud-native-docs gpu-operator/life-cycle-policy.rst:41-48"


@dataclass(frozen=True)
class OperatorSupport:
    """The Kubernetes minors NVIDIA lists for one GPU Operator release, and where it says so."""

    first: int  # 1.<first>
    last: int  # 1.<last>
    source: str

    def covers(self, minor: int) -> bool:
        return self.first <= minor <= self.last

    @property
    def text(self) -> str:
        return f"1.{self.first}-1.{self.last}"


_V25_10_0 = OperatorSupport(30, 34, "NVIDIA/cloud-native-docs@3e11d275 gpu-operator/platform-support.rst:315-326")
_V25_10_1 = OperatorSupport(
    30, 35, "NVIDIA/cloud-native-docs@a5b94d57 gpu-operator/platform-support.rst:317-327 (release-25.10 :393)"
)
_V26_3_0 = OperatorSupport(32, 35, "NVIDIA/cloud-native-docs@adfe9224 gpu-operator/platform-support.rst:332-343")
_V26_3_2 = OperatorSupport(
    32, 36, "NVIDIA/cloud-native-docs@de99f9d3 gpu-operator/platform-support.rst:322-333; release-notes.rst:223"
)
# 1.33-1.36 at release (52dcb7b8 platform-support.rst:327-355); 1.37 added after the release by
# NVIDIA/cloud-native-docs#488 (merged 2026-09-04, "26.7.0 > Post-Release Documentation Updates").
_V26_7_0 = OperatorSupport(
    33, 37, "NVIDIA/cloud-native-docs#488 (on 52dcb7b8 gpu-operator/platform-support.rst:327-355)"
)

OPERATOR_SUPPORT: dict[str, OperatorSupport] = {
    "v25.10.0": _V25_10_0,
    "v25.10.1": _V25_10_1,
    "v26.3.0": _V26_3_0,
    "v26.3.1": _V26_3_0,
    "v26.3.2": _V26_3_2,
    "v26.3.3": _V26_3_2,
    "v26.7.0": _V26_7_0,
}


@dataclass(frozen=True)
class OperandVersions:
    """What a release installs where the operator manages the driver (deployments/gpu-operator/values.yaml)."""

    driver: str  # driver.version
    driver_manager: str  # driver.manager.version (k8s-driver-manager)
    source: str


OPERANDS: dict[str, OperandVersions] = {
    "v25.10.1": OperandVersions("580.105.08", "v0.9.1", "NVIDIA/gpu-operator@v25.10.1 values.yaml:146,196"),
    "v26.3.0": OperandVersions("580.126.20", "v0.10.0", "NVIDIA/gpu-operator@v26.3.0 values.yaml:134,184"),
    "v26.3.1": OperandVersions("580.126.20", "v0.10.0", "NVIDIA/gpu-operator@v26.3.1 values.yaml:134,184"),
    "v26.3.2": OperandVersions("580.126.20", "v0.11.0", "NVIDIA/gpu-operator@v26.3.2 values.yaml:135,185"),
    "v26.3.3": OperandVersions("580.126.20", "v0.11.0", "NVIDIA/gpu-operator@v26.3.3 values.yaml:135,185"),
    "v26.7.0": OperandVersions("595.91.07", "v0.12.0", "NVIDIA/gpu-operator@v26.7.0 values.yaml:154,204"),
}
# k8s-driver-manager v0.12.0 (the first with NVIDIA/k8s-driver-manager#203, #204, #219: GPU pods holding
# gpu.nvidia.com claims are evicted before a driver reload, and no eviction when no driver is loaded); it drains
# the DRA kubelet plugin last only where the GPUCluster's dra-driver label is set (cmd/driver-manager/main.go:704-724).
DRIVER_MANAGER_DRA_AWARE_FROM = "v0.12.0"


def major(version: str) -> str:
    """`YY.MM` of a GPU Operator version (v26.3.3 -> 26.3)."""
    parsed = Version(version)
    return f"{parsed.major}.{parsed.minor}"


def status(version: str) -> str:
    """The release's life-cycle status today: supported, deprecated or end of support."""
    return LIFECYCLE.get(major(version), END_OF_SUPPORT)


def support(version: str) -> OperatorSupport | None:
    """The minors NVIDIA lists for the release; None where none was read (the 25.3 line, unlisted releases)."""
    return OPERATOR_SUPPORT.get(version)


def operator_supports(version: str, minor: int) -> bool:
    found = support(version)
    return found is not None and found.covers(minor)


def skips_major(old: str, new: str) -> bool:
    """Whether going from `old` to `new` crosses more than one major (25.10 -> 26.7 skips 26.3)."""
    a, b = major(old), major(new)
    if a not in MAJORS or b not in MAJORS:
        return False
    return MAJORS.index(b) - MAJORS.index(a) > 1


def newest_of_major(line: str) -> str | None:
    """The newest listed release of a major (the stop an upgrade path makes there)."""
    tags = [tag for tag in GPU_OPERATOR_RELEASES if major(tag) == line]
    return max(tags, key=Version) if tags else None


def operator_hops(old: str, new: str) -> list[str]:
    """The releases an upgrade from `old` to `new` installs, one per major in between and then `new`: never two
    majors at once. Empty when `new` is not newer."""
    if Version(new) <= Version(old):
        return []
    a, b = major(old), major(new)
    hops: list[str] = []
    if a in MAJORS and b in MAJORS:
        for line in MAJORS[MAJORS.index(a) + 1 : MAJORS.index(b)]:
            stop = newest_of_major(line)
            if stop is not None:
                hops.append(stop)
    return [*hops, new]


def default_gpu_operator(minor: int) -> str | None:
    """The release a stack gets without a pin: the newest listed release NVIDIA supports on 1.<minor> and whose
    major is still supported (not deprecated); None where there is none."""
    found = [tag for tag in GPU_OPERATOR_RELEASES if status(tag) == SUPPORTED and operator_supports(tag, minor)]
    return max(found, key=Version) if found else None


# ---------------------------------------------------------------------------------------------------
# NVIDIA DRA driver

# The lowest minor each line documents: kubernetes-sigs 0.4.x "v1.34.2 or later" (docs/prerequisites.md:10 at
# v0.4.1; the chart's kubeVersion >=1.32.0-0 is looser); the CalVer 25.x README "For Kubernetes 1.32 or newer".
# No upper bound, support matrix or life cycle exists upstream: a minor is taken as supported where this package
# models the driver on it (facts/kubernetes.py MINORS), never on an unreleased one.
DRA_DRIVER_LOWEST = {"kubernetes-sigs": 34, "nvidia-calver": 32}
DRA_DRIVER_SOURCE = (
    "kubernetes-sigs/dra-driver-nvidia-gpu@v0.4.1 docs/prerequisites.md:10, README.md:8; "
    "NVIDIA/k8s-dra-driver-gpu@v25.12.0 README.md:8"
)


def dra_driver_supports(version: str, minor: int, modelled: tuple[int, ...]) -> bool:
    """Whether the DRA driver release is documented for 1.<minor>: at or above its line's lower bound and a minor this
    package models (`modelled`: the known minors' numbers)."""
    lineage = lineage_of(version)
    if lineage is None or parse_version(version) is None:
        return False
    return minor in modelled and minor >= DRA_DRIVER_LOWEST[lineage]
