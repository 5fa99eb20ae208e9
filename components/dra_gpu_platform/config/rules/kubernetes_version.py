"""Rules of `cluster.kubernetesVersion` per platform: EKS and AKS create clusters only of minors they have started
to offer (dra_gpu_platform/facts/kubernetes.py OFFERS); kind and existing clusters take every minor this package knows.

A minor the service offered once and whose support has since ended is not refused here: the stack keeps working
for the cluster that exists, and a stack file must not turn invalid by the calendar alone (CI would fail on a date,
with no change). What is left of its support (extended, LTS, none) is a preview note (lifecycle_notes)."""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts import kubernetes

PATH = "cluster.kubernetesVersion"


def check(r: RuleContext) -> None:
    cluster = r.c.cluster
    platform, version = cluster.platform, cluster.kubernetes_version
    if r.c.profile.kubernetes.service is None:
        return  # kind and existing clusters run every minor this package knows
    day = kubernetes.today()
    found = kubernetes.availability(platform, version, day)
    if found.offered:
        return
    service = r.c.profile.title
    newest = kubernetes.newest_offered(platform, day)
    fix = (
        f'use "{newest}", the newest minor {service} offers, or platform kind or existing for {version}'
        if newest
        else f"use platform kind or existing; {service} offers no minor this package knows on {day.isoformat()}"
    )
    offer = found.offer
    if offer is not None and offer.available_from is not None and day >= offer.available_from:
        return  # offered once, support since ended: a note, not an error (module docstring)
    if offer is None or offer.available_from is None:
        planned = f" ({offer.planned})" if offer is not None and offer.planned else ""
        rule = f"{service} does not offer Kubernetes {version} on {day.isoformat()}{planned}"
    else:
        rule = (
            f"{service} offers Kubernetes {version} from {offer.when(offer.available_from)}, not on {day.isoformat()}"
        )
    r.add(PATH, version, rule, fix)
