"""Rules of `cluster.kubernetesVersion` per platform: EKS and AKS create clusters only of minors they offer on
the day (components/facts/kubernetes.py OFFERS); kind and existing clusters take every minor this package knows.
Notes about a minor's support dates are components/facts/kubernetes.py lifecycle_notes."""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts import kubernetes

PATH = "cluster.kubernetesVersion"


def check(r: RuleContext) -> None:
    cluster = r.c.cluster
    platform, version = cluster.platform, cluster.kubernetes_version
    if platform not in kubernetes.MANAGED_PLATFORMS:
        return
    day = kubernetes.today()
    found = kubernetes.availability(platform, version, day)
    if found.offered:
        return
    service = platform.upper()
    newest = kubernetes.newest_offered(platform, day)
    fix = (
        f'use "{newest}", the newest minor {service} offers, or platform kind or existing for {version}'
        if newest
        else f"use platform kind or existing; {service} offers no minor this package knows on {day.isoformat()}"
    )
    offer = found.offer
    if offer is None or offer.available_from is None:
        planned = f" ({offer.planned})" if offer is not None and offer.planned else ""
        rule = f"{service} does not offer Kubernetes {version} on {day.isoformat()}{planned}"
    elif day < offer.available_from:
        rule = (
            f"{service} offers Kubernetes {version} from {offer.when(offer.available_from)}, not on {day.isoformat()}"
        )
    elif offer.extended_until is not None and day <= offer.extended_until and not offer.extended_usable:
        rule = (
            f"{service} standard support for Kubernetes {version} ended {offer.at(offer.standard_until)}; "
            f"only {offer.extended_kind} (Premium tier) keeps it until {offer.when(offer.extended_until)}, and "
            f"this package creates Standard-tier {service} clusters"
        )
    else:
        last = offer.extended_until or offer.standard_until
        rule = f"{service} support for Kubernetes {version} ended {offer.at(last)}"
    r.add(PATH, version, rule, fix)
