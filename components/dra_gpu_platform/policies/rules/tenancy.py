"""Stack rules that a GPU namespace is a boundary: Pod Security Admission, quotas that close, a guard that holds,
labels only the deployer changes, network isolation. Each reads what the stack declares (namespaces, quotas,
admission policies and their bindings, NetworkPolicies, the CNI) and, for the guards, runs their CEL against the
attacks they must refuse. Facts: docs/references.md#psa-labels, docs/references.md#quota-priority-scope,
docs/references.md#vap-tenant-guard, docs/references.md#vap-namespace-selector-on-namespaces,
docs/references.md#vpc-cni-network-policy, docs/references.md#aks-network-policy-engines."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable
from typing import Any

from pulumi_policy import Severity, StackValidationArgs

from dra_gpu_platform.dra import quota
from dra_gpu_platform.facts import cluster_access, network, platform_namespaces, pod_security
from dra_gpu_platform.facts.naming import COMMON_LABELS, GPU_MODE_LABEL
from dra_gpu_platform.facts.node_labels import GPU_TAINT_KEY
from dra_gpu_platform.plans.admission_policy import AdmissionRequest
from dra_gpu_platform.plans.quota import PRIORITY_SCOPE, SYSTEM_PRIORITY_CLASSES
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import admission as vap
from dra_gpu_platform.recorded import objects

TAGS = ["gpu", "security", "tenancy"]


def _tenants(args: StackValidationArgs) -> list[objects.NamespaceInfo]:
    return sorted(
        (ns for ns in objects.stack_namespaces(args.resources).values() if ns.gpu_mode is not None),
        key=lambda n: n.name,
    )


# ---------------------------------------------------------------------------------------------------
# tenant-namespace-pod-security


def _release_namespaces(args: StackValidationArgs) -> set[str] | None:
    """Namespaces a Helm release of the stack installs into (the GPU software, monitoring); None while one of them
    is not known yet (a preview's computed value)."""
    namespaces = [r.namespace for r in objects.stack_releases(args.resources)]
    return None if None in namespaces else {str(n) for n in namespaces}


def _pod_security_problem(labels: dict[str, str]) -> str | None:
    enforce = labels.get(pod_security.ENFORCE)
    if enforce not in pod_security.TENANT_LEVELS:
        return f"enforces Pod Security {enforce or '(no label: the cluster default, privileged)'}"
    version = labels.get(pod_security.ENFORCE_VERSION, pod_security.LATEST)
    minor = pod_security.enforce_minor(version)
    if minor is not None and minor < pod_security.MIN_ENFORCE_MINOR:
        return (
            f"pins {pod_security.ENFORCE_VERSION} {version}, older than v1.{pod_security.MIN_ENFORCE_MINOR} (it drops "
            "the check that keeps probes and lifecycle hooks off the node's metadata address)"
        )
    missing = [key for key in (pod_security.AUDIT, pod_security.WARN) if key not in labels]
    if missing:
        return f"has no {' or '.join(missing)} label (violations would go unseen until they are denied)"
    return None


def _validate_pod_security(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    for ns in _tenants(args):
        problem = _pod_security_problem(ns.labels)
        if problem:
            report_violation(
                f"namespace {ns.name} is a GPU tenant namespace ({GPU_MODE_LABEL}={ns.gpu_mode}) but {problem}: a "
                "privileged, host-network or hostPath pod would be admitted on GPU nodes.",
                ns.urn,
            )
    releases = _release_namespaces(args)
    if releases is None:
        return
    for ns in sorted(objects.stack_namespaces(args.resources).values(), key=lambda n: n.name):
        if ns.labels.get(pod_security.ENFORCE) == pod_security.PRIVILEGED and ns.name not in releases:
            report_violation(
                f"namespace {ns.name} enforces Pod Security privileged but no Helm release of the stack runs there: "
                "only the GPU software's and monitoring's namespaces need it.",
                ns.urn,
            )


TENANT_NAMESPACE_POD_SECURITY = c.stack_policy(
    "tenant-namespace-pod-security",
    description="GPU tenant namespaces enforce Pod Security restricted or baseline (pinned to v1.34 or newer, with "
    "audit and warn); privileged only where the platform's Helm releases run.",
    validate=_validate_pod_security,
    severity=Severity.HIGH,
    remediation_steps=(
        "dra-gpu-platform labels every namespace from `namespaces[].podSecurity` (restricted by default, or baseline) "
        "at the cluster's minor; on your own namespaces set pod-security.kubernetes.io/enforce, enforce-version, "
        "audit and warn. Keep privileged for the GPU Operator's, the DRA driver's and node-exporter's namespaces only."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# tenant-namespace-not-reserved


def reserved_tenants(args: StackValidationArgs) -> list[tuple[objects.NamespaceInfo, str]]:
    """Tenant namespaces that are Kubernetes' own or where the platform installs (the facts' list and wherever a Helm
    release of the stack installs), with why."""
    releases = {str(r.namespace): r.name for r in objects.stack_releases(args.resources) if r.namespace}
    found = []
    for ns in _tenants(args):
        why = platform_namespaces.reserved_reason(ns.name)
        if why is None and ns.name in releases:
            why = f"the stack's Helm release {releases[ns.name]} installs there"
        if why is not None:
            found.append((ns, why))
    return found


def _validate_not_reserved(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    for ns, why in reserved_tenants(args):
        report_violation(
            f"namespace {ns.name} is a GPU tenant namespace ({GPU_MODE_LABEL}={ns.gpu_mode}) but {why}: edit there runs "
            "pods as its service accounts (cluster-wide roles, cloud roles), and the tenant's labels and guards land "
            "on the platform's pods.",
            ns.urn,
        )


TENANT_NAMESPACE_NOT_RESERVED = c.stack_policy(
    "tenant-namespace-not-reserved",
    description="No GPU tenant namespace is a Kubernetes system namespace (default, kube-*) or one the platform "
    "installs into (the GPU Operator's, the DRA driver's, kube-system, any namespace of the stack's Helm releases).",
    validate=_validate_not_reserved,
    severity=Severity.CRITICAL,
    remediation_steps=(
        "Give every team a namespace of its own: dra-gpu-platform refuses such names in `namespaces[]` and "
        "`namespaceEditors`; in your own program never put the gpu-mode label on a platform namespace."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# tenant-quota-closed


def _cluster_classes(args: StackValidationArgs) -> set[str]:
    classes = set(objects.stack_device_classes(args.resources))
    classes |= set(objects.chart_device_classes(objects.stack_releases(args.resources)))
    return classes


def _priority_closed(spec: Any) -> bool:
    """A quota holds pods of both system priority classes at 0."""
    if str(c.string_map(c.dig(spec, "hard")).get("pods")) != "0":
        return False
    for expression in c.as_list(c.dig(spec, "scopeSelector", "matchExpressions")):
        if (
            c.dig(expression, "scopeName") == PRIORITY_SCOPE
            and c.dig(expression, "operator") == "In"
            and set(SYSTEM_PRIORITY_CLASSES) <= {str(v) for v in c.as_list(c.dig(expression, "values"))}
        ):
            return True
    return False


def _validate_quota_closed(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    classes = _cluster_classes(args)
    specs: dict[str, list[Any]] = {}
    for r in args.resources:
        if r.resource_type == c.RESOURCE_QUOTA:
            specs.setdefault(c.metadata_namespace(r.props), []).append(c.dig(r.props, "spec"))
    for ns in _tenants(args):
        keys = {key for spec in specs.get(ns.name, []) for key in c.string_map(c.dig(spec, "hard"))}
        missing = sorted(cls for cls in classes if quota.devices_key(cls) not in keys)
        if quota.CLAIMS_KEY not in keys:
            missing.append(quota.CLAIMS_KEY)
        if missing:
            report_violation(
                f"namespace {ns.name} has no quota for {c.short(missing)}: a quota cannot deny a key it does not "
                f"list, so {'those classes are' if len(missing) > 1 else 'it is'} unlimited there (set the key, at 0 "
                "when the namespace is not granted the class).",
                ns.urn,
            )
        if not any(_priority_closed(spec) for spec in specs.get(ns.name, [])):
            report_violation(
                f"namespace {ns.name} has no ResourceQuota holding pods of {' and '.join(SYSTEM_PRIORITY_CLASSES)} at "
                "0: a tenant pod with a system priority class preempts the GPU software and other tenants.",
                ns.urn,
            )


TENANT_QUOTA_CLOSED = c.stack_policy(
    "tenant-quota-closed",
    description="Every GPU tenant namespace's quotas name every DeviceClass of the cluster (the stack's and its "
    "driver charts') and the claim count, and hold the system-* priority classes at 0 pods.",
    validate=_validate_quota_closed,
    severity=Severity.HIGH,
    remediation_steps=(
        "dra-gpu-platform writes every class into each namespace's gpu-quota, at `namespaces[].quota.devices` or 0, "
        "and a gpu-system-priority quota (scopeSelector PriorityClass In system-cluster-critical, "
        'system-node-critical; pods: "0"). In your own program list `<class>.deviceclass.resource.k8s.io/devices` '
        "for every class."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# tenant-guard-holds

_TOLERATE_GPU = [{"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]


def _pod(**spec: Any) -> dict[str, Any]:
    spec.setdefault("containers", [{"name": "main", "image": "nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04"}])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"}, "spec": spec}


# A claimed pod whose other containers list no claim: the kubelet gives them no CDI `void`, so their image's
# NVIDIA_VISIBLE_DEVICES=all decides (docs/references.md#kubelet-cdi-per-container).
_CLAIMED = [{"name": "gpus", "resourceClaimTemplateName": "gpus"}]
_TRAINER = {"name": "trainer", "image": "cuda", "resources": {"claims": [{"name": "gpus"}]}}

# (what, operation, subresource, pod): each must be refused in every tenant namespace.
ATTACKS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    (
        "a container with NVIDIA_VISIBLE_DEVICES=all",
        "CREATE",
        "pods",
        _pod(
            containers=[{"name": "main", "image": "cuda", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]}]
        ),
    ),
    (
        "an ephemeral (kubectl debug) container with NVIDIA_VISIBLE_DEVICES",
        "UPDATE",
        "pods/ephemeralcontainers",
        _pod(ephemeralContainers=[{"name": "debug", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "0"}]}]),
    ),
    ("a GPU-taint toleration without a claim", "CREATE", "pods", _pod(tolerations=_TOLERATE_GPU)),
    ("spec.nodeName set by the tenant", "CREATE", "pods", _pod(nodeName="gpu-node-1")),
    ("priorityClassName system-node-critical", "CREATE", "pods", _pod(priorityClassName="system-node-critical")),
    (
        "a claimed pod's sidecar that lists no claim",
        "CREATE",
        "pods",
        _pod(
            containers=[_TRAINER, {"name": "sidecar", "image": "cuda"}],
            resourceClaims=_CLAIMED,
            tolerations=_TOLERATE_GPU,
        ),
    ),
    (
        "a claimed pod's init container that lists no claim",
        "CREATE",
        "pods",
        _pod(
            initContainers=[{"name": "setup", "image": "cuda"}],
            containers=[_TRAINER],
            resourceClaims=_CLAIMED,
            tolerations=_TOLERATE_GPU,
        ),
    ),
    (
        "envFrom in a pod that tolerates the GPU taint",
        "CREATE",
        "pods",
        _pod(
            containers=[{**_TRAINER, "envFrom": [{"configMapRef": {"name": "gpu-env"}}]}],
            resourceClaims=_CLAIMED,
            tolerations=_TOLERATE_GPU,
        ),
    ),
    (
        "runtimeClassName nvidia in a pod that tolerates the GPU taint",
        "CREATE",
        "pods",
        _pod(containers=[_TRAINER], resourceClaims=_CLAIMED, tolerations=_TOLERATE_GPU, runtimeClassName="nvidia"),
    ),
)
SIDECAR_POD = next(pod for what, _, _, pod in ATTACKS if what == "a claimed pod's sidecar that lists no claim")
MIG_POD = _pod(containers=[{"name": "main", "image": "cuda", "resources": {"limits": {"nvidia.com/mig-1g.10gb": "1"}}}])
WORKLOADS = (("apps", "deployments", "Deployment", ("spec", "template")), ("batch", "cronjobs", "CronJob", None))


def _workload(kind: str, pod: dict[str, Any]) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": "probe"}}, "spec": pod["spec"]}
    if kind == "CronJob":
        spec: dict[str, Any] = {"schedule": "@daily", "jobTemplate": {"spec": {"template": template}}}
    else:
        spec = {"selector": {"matchLabels": {"app": "probe"}}, "template": template}
    return {"kind": kind, "metadata": {"name": "probe"}, "spec": spec}


def guard_gaps(bound: list[vap.BoundPolicy], ns: objects.NamespaceInfo) -> list[str]:
    """What the namespace's guards let through."""
    namespace = vap.namespace_object(ns.name, ns.labels)
    gaps = []
    for what, operation, resource, pod in ATTACKS:
        request = AdmissionRequest(
            pod, namespace, operation=operation, old_object=pod if operation == "UPDATE" else None
        )
        if not vap.refused(bound, namespace, "", resource, request):
            gaps.append(what)
    if ns.gpu_mode == "dra-only" and not vap.refused(
        bound, namespace, "", "pods", AdmissionRequest(MIG_POD, namespace)
    ):
        gaps.append("a MIG slice (nvidia.com/mig-*) requested in a dra-only namespace")
    templates = (("sets NVIDIA_VISIBLE_DEVICES", ATTACKS[0][3]), ("has a sidecar that lists no claim", SIDECAR_POD))
    for group, resource, kind, _ in WORKLOADS:
        for what, pod in templates:
            if not vap.refused(bound, namespace, group, resource, AdmissionRequest(_workload(kind, pod), namespace)):
                gaps.append(f"a {kind} whose pod template {what} (refused only later, pod by pod)")
    return gaps


def _validate_guard(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    bound = vap.bound_policies(args.resources)
    for ns in _tenants(args):
        gaps = guard_gaps(bound, ns)
        if gaps:
            report_violation(
                f"namespace {ns.name} is a GPU tenant namespace but its admission policies admit "
                f"{'; '.join(gaps)}: each reaches GPUs nobody allocated, or GPU nodes past their taint.",
                ns.urn,
            )


TENANT_GUARD_HOLDS = c.stack_policy(
    "tenant-guard-holds",
    description="In every GPU tenant namespace a bound ValidatingAdmissionPolicy (Deny) refuses NVIDIA device "
    "variables in containers and ephemeral containers, a GPU-taint toleration without a claim, and in pods that "
    "tolerate the GPU taint containers that list no claim and request no GPU, envFrom and runtimeClassName; "
    "spec.nodeName, the system-* priority classes, nvidia.com/* resources in dra-only namespaces, and the same in "
    "workload templates.",
    validate=_validate_guard,
    severity=Severity.CRITICAL,
    remediation_steps=(
        "Keep the guard dra-gpu-platform installs (gpu-dra-only on pods and pods/ephemeralcontainers, "
        "gpu-dra-only-workloads, gpu-dra-only-cronjobs; failurePolicy Fail, no matchConditions, bound to every "
        "namespace with the gpu-mode label). Exempt platform namespaces by not labelling them, never by user, "
        "service account or a field of the pod."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# tenant-controls-guarded

# label -> values an attacker would set, the first that differs from the namespace's own is tried
_LABEL_CHANGES = (
    (GPU_MODE_LABEL, ("legacy", "dra-only")),
    (pod_security.ENFORCE, (pod_security.PRIVILEGED,)),
)
_PLATFORM_POLICY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "gpu-default-deny", "labels": dict(COMMON_LABELS)},
    "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
}
_OPEN_EGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-all-egress"},
    "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{}]},
}


def control_gaps(bound: list[vap.BoundPolicy], ns: objects.NamespaceInfo) -> list[str]:
    """What a tenant (or anyone but the deployer) may change about the namespace's controls. A tenant's requests
    carry the groups every tenant has (system:authenticated, and those of the namespace's service accounts, which it
    runs pods as): a guard that lets one of those through lets every tenant through."""
    tenant = cluster_access.tenant_groups(ns.name)
    gaps = []
    old = vap.namespace_object(ns.name, ns.labels)
    for key, values in _LABEL_CHANGES:
        value = next((v for v in values if ns.labels.get(key) != v), values[0])
        changed_labels = {**ns.labels, key: value}
        removed_labels = {k: v for k, v in ns.labels.items() if k != key}
        for labels, text in ((changed_labels, f"set {key}={value}"), (removed_labels, f"remove {key}")):
            changed = vap.namespace_object(ns.name, labels)
            request = AdmissionRequest(changed, None, operation="UPDATE", old_object=old, groups=tenant)
            # for a Namespace the binding's namespaceSelector is matched against the object's own labels
            if not vap.refused(bound, changed, "", "namespaces", request, selector_labels=labels):
                gaps.append(text)
    namespace = vap.namespace_object(ns.name, ns.labels)
    group = "networking.k8s.io"
    delete = AdmissionRequest(None, namespace, operation="DELETE", old_object=_PLATFORM_POLICY, groups=tenant)
    if not vap.refused(bound, namespace, group, "networkpolicies", delete):
        gaps.append("delete the platform's NetworkPolicies")
    create = AdmissionRequest(_OPEN_EGRESS, namespace, groups=tenant)
    if not vap.refused(bound, namespace, group, "networkpolicies", create):
        gaps.append("create a NetworkPolicy that opens egress to every address")
    return gaps


def _validate_controls_guarded(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    bound = vap.bound_policies(args.resources)
    for ns in _tenants(args):
        gaps = control_gaps(bound, ns)
        if gaps:
            report_violation(
                f"namespace {ns.name}: anyone who may update namespaces or edit in it can {'; '.join(gaps)}, which "
                "switches off its GPU guard, quotas, Pod Security or isolation; no bound policy keeps these to the "
                "platform's deployer.",
                ns.urn,
            )


TENANT_CONTROLS_GUARDED = c.stack_policy(
    "tenant-controls-guarded",
    description="Bound ValidatingAdmissionPolicies keep a GPU tenant namespace's controls to the platform's deployer: "
    "its gpu-mode and Pod Security labels (a binding without namespaceSelector, so removing a label does not escape "
    "it) and the platform's NetworkPolicies in it; tenants' own NetworkPolicies cannot open egress to addresses.",
    validate=_validate_controls_guarded,
    severity=Severity.HIGH,
    remediation_steps=(
        "dra-gpu-platform installs gpu-namespace-labels and gpu-tenant-network-policies when it knows the deployer's "
        "identity: on EKS its access entry's group, on AKS `cluster.aks.adminGroupObjectIds`/`deployerGroupObjectId`, "
        "on kind kubeadm's admin group, on an existing cluster `cluster.existing.deployerGroups`. Never name a group "
        "every tenant is in (system:authenticated, system:serviceaccounts[:<namespace>]): the rule tries the guards "
        "with exactly those groups."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# tenant-services-guarded

_EXTERNAL_IPS_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "probe"},
    "spec": {
        "type": "ClusterIP",
        "selector": {"app": "probe"},
        "ports": [{"port": 80}],
        "externalIPs": ["203.0.113.10"],
    },
}


def _validate_services(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    bound = vap.bound_policies(args.resources)
    for ns in _tenants(args):
        namespace = vap.namespace_object(ns.name, ns.labels)
        request = AdmissionRequest(_EXTERNAL_IPS_SERVICE, namespace)
        if not vap.refused(bound, namespace, "", "services", request):
            report_violation(
                f"namespace {ns.name}: no bound policy refuses a Service with spec.externalIPs, so a tenant can take "
                "the traffic every pod of the cluster sends to any address (CVE-2020-8554; EKS does not enable "
                "DenyServiceExternalIPs).",
                ns.urn,
            )


TENANT_SERVICES_GUARDED = c.stack_policy(
    "tenant-services-guarded",
    description="In every GPU tenant namespace a bound ValidatingAdmissionPolicy (Deny) refuses Services with new "
    "spec.externalIPs (CVE-2020-8554).",
    validate=_validate_services,
    severity=Severity.HIGH,
    remediation_steps=(
        "dra-gpu-platform installs gpu-tenant-services (externalIPs refused; NodePort and LoadBalancer only where "
        "`namespaces[].serviceTypes` allows them). In your own program bind such a policy to the gpu-mode namespaces, "
        "or turn on the DenyServiceExternalIPs admission plugin where your control plane lets you."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# tenant-network-isolated

_METADATA = tuple(ipaddress.ip_network(a) for a in network.METADATA_ADDRESSES)


def _selects_all(spec: Any) -> bool:
    selector = c.as_dict(c.dig(spec, "podSelector"))
    return not selector.get("matchLabels") and not selector.get("matchExpressions")


def _reaches_metadata(rule: Any) -> bool:
    peers = c.as_list(c.dig(rule, "to"))
    if not peers:
        return True  # no `to`: every destination
    for peer in peers:
        block = c.dig(peer, "ipBlock")
        if block is None:
            continue
        try:
            cidr = ipaddress.ip_network(str(c.dig(block, "cidr")), strict=False)
            excepts = [ipaddress.ip_network(str(e), strict=False) for e in c.as_list(c.dig(block, "except"))]
        except ValueError:
            continue
        for address in _METADATA:
            if (
                address.version == cidr.version
                and address.subnet_of(cidr)  # type: ignore[arg-type]
                and not any(address.version == e.version and address.subnet_of(e) for e in excepts)  # type: ignore[arg-type]
            ):
                return True
    return False


def _dns_ok(specs: list[Any]) -> bool:
    """Some egress rule reaches pods in another namespace (kube-dns in kube-system), or everything, on UDP and TCP 53."""
    protocols: set[str] = set()
    for spec in specs:
        for rule in c.as_list(c.dig(spec, "egress")):
            peers = c.as_list(c.dig(rule, "to"))
            if peers and not any(c.dig(p, "namespaceSelector") is not None for p in peers):
                continue  # addresses only (cluster DNS is a pod: an ipBlock need not match it) or this namespace only
            ports = c.as_list(c.dig(rule, "ports"))
            if not ports:
                return True
            for port in ports:
                if c.dig(port, "port") is None or c.as_int(c.dig(port, "port")) == network.DNS_PORT:
                    protocols.add(str(c.dig(port, "protocol", default="TCP")))
    return set(network.DNS_PROTOCOLS) <= protocols


def _engine_problem(args: StackValidationArgs) -> str | None:
    for r in args.resources:
        if r.resource_type == c.EKS_CLUSTER:
            addons = [
                a for a in args.resources if a.resource_type == c.EKS_ADDON and c.dig(a.props, "addonName") == "vpc-cni"
            ]
            settings = [json.loads(str(c.dig(a.props, "configurationValues", default="{}")) or "{}") for a in addons]
            if not any(str(s.get("enableNetworkPolicy")) == "true" for s in settings):
                return (
                    "the EKS cluster's VPC CNI add-on does not enforce NetworkPolicies (configurationValues "
                    'enableNetworkPolicy: "true")'
                )
        if c.AKS_CLUSTER_RE.match(r.resource_type):
            engine = c.dig(r.props, "networkProfile", "networkPolicy")
            if engine not in network.AKS_POLICY_ENGINES:
                return (
                    f"the AKS cluster has no network policy engine (networkProfile.networkPolicy {engine or 'unset'})"
                )
    return None


def _validate_network(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    tenants = _tenants(args)
    policies: dict[str, list[tuple[str, Any]]] = {}
    for r in args.resources:
        if r.resource_type == c.NETWORK_POLICY:
            policies.setdefault(c.metadata_namespace(r.props), []).append((r.urn, c.dig(r.props, "spec")))
    engine = _engine_problem(args) if tenants else None
    if engine:
        report_violation(f"{engine}: the tenants' NetworkPolicies are not enforced.")
    for ns in tenants:
        specs = [spec for _, spec in policies.get(ns.name, [])]
        problems = []
        types = [{str(t) for t in c.as_list(c.dig(s, "policyTypes"))} for s in specs if _selects_all(s)]
        if not any({"Ingress"} <= t for t in types) or not any({"Egress"} <= t for t in types):
            problems.append("no NetworkPolicy isolates every pod for ingress and egress")
        elif not _dns_ok(specs):
            problems.append("cluster DNS (UDP and TCP 53) is not allowed")
        open_rules = [
            urn
            for urn, spec in policies.get(ns.name, [])
            for rule in c.as_list(c.dig(spec, "egress"))
            if _reaches_metadata(rule)
        ]
        if open_rules:
            problems.append(f"an egress rule admits the instance metadata address {network.METADATA_ADDRESSES[0]}")
        if problems:
            report_violation(
                f"namespace {ns.name} is not isolated: {'; '.join(problems)}. Its pods can reach other tenants, "
                "monitoring or the node's cloud credentials.",
                ns.urn,
            )
    for release in objects.stack_releases(args.resources):
        if release.chart != "kube-prometheus-stack":
            continue
        namespace_name = str(release.namespace or "")
        specs = [spec for _, spec in policies.get(namespace_name, [])]
        if not any(_selects_all(s) and "Ingress" in c.as_list(c.dig(s, "policyTypes")) for s in specs):
            report_violation(
                f"monitoring namespace {namespace_name} (release {release.name}) admits ingress from every "
                "namespace: tenants reach Prometheus, Alertmanager and Grafana.",
                release.urn,
            )


TENANT_NETWORK_ISOLATED = c.stack_policy(
    "tenant-network-isolated",
    description="Every GPU tenant namespace denies ingress and egress by default, allows cluster DNS, never opens "
    "egress to the instance metadata address; the cluster's network plugin enforces NetworkPolicies; an installed "
    "monitoring namespace admits ingress only from itself (and the operator's webhook).",
    validate=_validate_network,
    severity=Severity.HIGH,
    remediation_steps=(
        "dra-gpu-platform creates gpu-default-deny, gpu-allow-dns, gpu-allow-same-namespace and (namespaces[].egress: "
        "internet) gpu-allow-internet with 169.254.169.254/32 excepted, turns on the VPC CNI's enableNetworkPolicy "
        "on EKS and Cilium on new AKS clusters (an existing AKS cluster: `az aks update --network-dataplane cilium`), "
        "(tenant-controls-guarded checks that tenants cannot remove them)."
    ),
    tags=TAGS,
)
