"""The Kubernetes resources of one GPU software release: a privileged namespace and a pinned Helm release.
Shared by GpuOperator, DraDriver and ExampleDraDriver (each a ComponentResource in its own file)."""

from __future__ import annotations

from typing import Sequence

import pulumi
import pulumi_kubernetes as k8s

from components.plans.gpu_software import ReleasePlan
from components.facts.naming import child, labels

# The operator's driver, toolkit and device-plugin pods and the DRA kubelet plugins run privileged with
# host paths; Pod Security Admission would reject them in a baseline/restricted namespace.
POD_SECURITY = {"pod-security.kubernetes.io/enforce": "privileged"}


def install_release(
    name: str,
    plan: ReleasePlan,
    provider: k8s.Provider,
    parent: pulumi.Resource,
    depends_on: Sequence[pulumi.Resource] = (),
) -> tuple[k8s.core.v1.Namespace, k8s.helm.v3.Release]:
    namespace = k8s.core.v1.Namespace(
        child(name, "namespace"),
        metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.namespace, labels=labels(**POD_SECURITY)),
        opts=pulumi.ResourceOptions(parent=parent, provider=provider),
    )
    release = k8s.helm.v3.Release(
        child(name, "release"),
        name=plan.release,  # a stable Helm release name, never a generated one
        chart=plan.chart,
        version=plan.version,
        repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=plan.repository) if plan.repository else None,
        namespace=namespace.metadata.name,  # the namespace (and its PSA label) exists first
        create_namespace=False,
        atomic=True,
        timeout=plan.timeout_s,
        values=plan.values,
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(depends_on)),
    )
    return namespace, release
