"""Rules of the `cluster` section: endpoint access, region, kind image and chart, kubeconfig. (A block of another
platform is refused while the section is read: dra_gpu_platform/config/validation.py.)"""

from __future__ import annotations

import ipaddress

from dra_gpu_platform.config.cluster import AksCluster, AksSettings, EksCluster, EksSettings, KindCluster
from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts import chart_releases, driver_charts, ip_ranges
from dra_gpu_platform.inputs.problems import MISSING


def check(r: RuleContext) -> None:
    cluster = r.c.cluster
    if isinstance(cluster, EksCluster):
        _eks(r, cluster.settings())
    elif isinstance(cluster, AksCluster):
        _aks(r, cluster.settings())
    elif isinstance(cluster, KindCluster):
        _kind(r, cluster)
    region = r.c.profile.region
    if region is not None and not r.c.region:
        r.add(
            region.key,
            MISSING,
            f"{r.c.profile.title} stacks need the {region.what}",
            f"add `{region.key}: {region.example}` under config",
        )
    if r.c.profile.api_access.kubeconfig_secret and not r.c.has_kubeconfig:
        r.add(
            "kubeconfig",
            MISSING,
            f"platform {r.c.platform} needs the cluster's kubeconfig as a secret config value",
            f'run `pulumi config set --secret kubeconfig "$(cat ~/.kube/config)" --stack {r.c.stack or "<stack>"}`; offline, without '
            "the Pulumi CLI, a placeholder is enough for gpuplan: `dra-gpu-platform:kubeconfig: {secure: v1:offline-placeholder}` "
            "(docs/configuration.md)",
        )


def _eks(r: RuleContext, eks: EksSettings) -> None:
    if eks.endpoint_public_access and not eks.public_access_cidrs:
        r.add(
            "cluster.eks.publicAccessCidrs",
            [],
            "a public endpoint needs explicit CIDRs",
            "list the office/VPN CIDRs, or set endpointPublicAccess: false",
        )
    _allow_list(
        r,
        "cluster.eks.publicAccessCidrs",
        eks.public_access_cidrs,
        "the API endpoint must not be open to the internet",
        "list the office, VPN or CI egress networks you deploy from, or keep the endpoint private",
    )
    if not eks.endpoint_public_access and not eks.subnet_ids:
        r.add(
            "cluster.eks.endpointPublicAccess",
            False,
            "a private-only API endpoint in a VPC this stack creates cannot be reached by whoever runs "
            "`pulumi up` (that VPC does not exist before the deploy), so every Kubernetes object would time out",
            "deploy with endpointPublicAccess: true and publicAccessCidrs: [<the CIDR you deploy from>] (turn it "
            "off afterwards once you reach the VPC), or set subnetIds to private subnets of a VPC you deploy "
            "from and list that network in privateAccessCidrs",
        )
    _allow_list(
        r,
        "cluster.eks.privateAccessCidrs",
        eks.private_access_cidrs,
        "the private endpoint must not admit every address that can route to the VPC",
        "list the VPN, bastion or CI networks you deploy from, e.g. 10.40.0.0/16",
        example="10.40.0.0/16",
    )
    if not is_cidr(eks.vpc_cidr):
        r.add("cluster.eks.vpcCidr", eks.vpc_cidr, "not an IPv4 CIDR", "write it like 10.0.0.0/16")


def _aks(r: RuleContext, aks: AksSettings) -> None:
    _allow_list(
        r,
        "cluster.aks.authorizedIpRanges",
        aks.authorized_ip_ranges,
        "the API server must not be open to the internet",
        "list the office, VPN or CI egress networks you deploy from, or set privateCluster: true",
    )
    if aks.private_cluster and aks.authorized_ip_ranges:
        r.add(
            "cluster.aks.authorizedIpRanges",
            list(aks.authorized_ip_ranges),
            "API server authorized IP ranges apply to a public API server; a private cluster has none",
            "remove authorizedIpRanges, or set privateCluster: false",
        )
    if not aks.private_cluster and not aks.authorized_ip_ranges:
        r.add(
            "cluster.aks.authorizedIpRanges",
            [],
            "an AKS API server that is neither private nor limited to authorized IP ranges is open to the "
            "whole internet",
            "set cluster.aks.authorizedIpRanges to the networks you deploy and operate from (CI runners' and VPN "
            "egress ranges), or set cluster.aks.privateCluster: true and deploy from the cluster's network",
        )


def _kind(r: RuleContext, cluster: KindCluster) -> None:
    kind = cluster.settings()
    if kind.node_image:
        tag = kind.node_image.split("@", 1)[0].rsplit(":", 1)[-1]  # name:tag@sha256:digest
        if not tag.startswith(f"v{cluster.kubernetes_version}."):
            r.add(
                "cluster.kind.nodeImage",
                kind.node_image,
                f"the node image must run Kubernetes {cluster.kubernetes_version} (kubernetesVersion)",
                f"use kindest/node:v{cluster.kubernetes_version}.x or change kubernetesVersion",
            )
    if kind.example_driver_version not in driver_charts.EXAMPLE_DRIVER_RELEASES:
        version = kind.example_driver_version
        if driver_charts.parse_version(version) is None:
            r.add(
                "cluster.kind.exampleDriverVersion",
                version,
                "not a chart version",
                f"use one of {', '.join(driver_charts.EXAMPLE_DRIVER_RELEASES)}",
            )
        elif not kind.allow_unlisted:
            r.add(
                "cluster.kind.exampleDriverVersion",
                version,
                "not a dra-example-driver chart release this package lists (dra_gpu_platform/facts/driver_charts.py)",
                chart_releases.unlisted_fix("cluster.kind", list(driver_charts.EXAMPLE_DRIVER_RELEASES)),
            )


def _allow_list(
    r: RuleContext, at: str, cidrs: list[str], rule: str, fix: str, example: str = "203.0.113.0/24"
) -> None:
    """An API server allow-list: every entry an IPv4 CIDR, and together not internet-wide
    (dra_gpu_platform/facts/ip_ranges.py)."""
    for i, cidr in enumerate(cidrs):
        if not is_cidr(cidr):
            r.add(f"{at}[{i}]", cidr, "not an IPv4 CIDR", f"write it like {example}")
        elif ip_ranges.coverage([cidr]).widest:
            r.add(f"{at}[{i}]", cidr, f"{rule}: {ip_ranges.coverage([cidr]).describe()}", fix)
    found = ip_ranges.coverage(c for c in cidrs if is_cidr(c))
    if not found.widest and found.internet_wide:
        r.add(at, list(cidrs), f"{rule}: {found.describe()}", fix)


def is_cidr(text: str) -> bool:
    try:
        ipaddress.IPv4Network(text, strict=False)
    except ValueError:
        return False
    return "/" in text
