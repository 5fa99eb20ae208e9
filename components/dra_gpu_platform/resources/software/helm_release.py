"""GpuSoftwareRelease: what GpuOperator, DraDriver and ExampleDraDriver share, one privileged namespace and one
pinned Helm release built from a ReleasePlan (dra_gpu_platform/plans/gpu_software.py). Each subclass, in its own
file, only names its type token, so the three components cannot drift apart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.pod_security import PRIVILEGED_NAMESPACE_LABELS
from dra_gpu_platform.plans.gpu_software import ReleasePlan

# The operator's driver, toolkit and device-plugin pods and the DRA kubelet plugins run privileged with
# host paths; Pod Security Admission would reject them in a baseline/restricted namespace.
POD_SECURITY = PRIVILEGED_NAMESPACE_LABELS


def pinned_release(
    resource_name: str, plan: ReleasePlan, namespace: pulumi.Input[str], opts: pulumi.ResourceOptions
) -> k8s.helm.v3.Release:
    """Every Helm release of the platform, as planned: a stable release name (never a generated one), the pinned
    chart version, atomic installs and upgrades, in a namespace that already exists."""
    return k8s.helm.v3.Release(
        resource_name,
        name=plan.release,
        chart=plan.chart,
        version=plan.version,
        repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=plan.repository) if plan.repository else None,
        namespace=namespace,
        create_namespace=False,
        atomic=True,
        timeout=plan.timeout_s,
        values=plan.values,
        opts=opts,
    )


@dataclass(frozen=True)
class ReleaseArgs:
    plan: ReleasePlan
    provider: k8s.Provider
    # resources that must be ready first (the GPU Operator's release when its driver container provides the
    # driver files the DRA driver reads)
    after: Sequence[pulumi.Resource] = field(default=())


class GpuSoftwareRelease(pulumi.ComponentResource):
    TYPE: ClassVar[str]
    plan: ReleasePlan
    namespace: k8s.core.v1.Namespace
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: ReleaseArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(self.TYPE, name, None, opts)
        plan = self.plan = args.plan
        self.namespace = k8s.core.v1.Namespace(
            child(name, "namespace"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.namespace, labels=labels(**POD_SECURITY)),
            opts=pulumi.ResourceOptions(parent=self, provider=args.provider),
        )
        self.release = pinned_release(
            child(name, "release"),
            plan,
            namespace=self.namespace.metadata.name,  # the namespace (and its PSA label) exists first
            opts=pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=list(args.after)),
        )
        self.register_outputs(
            {"release": plan.release, "namespace": plan.namespace, "chart": plan.chart, "version": plan.version}
        )
