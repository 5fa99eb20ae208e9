"""The ValidatingAdmissionPolicies that make a GPU namespace a boundary, as plain data: their CEL lives here and only
here (the resources create exactly this, `gpuplan fit` and the tests evaluate the very same expressions).

The GPU guard (`gpu-dra-only` on pods, the same rules on the pod templates of workloads and CronJobs), bound to
every tenant namespace (label gpu-mode present), denies:
- in `gpu-mode=dra-only` namespaces, any `nvidia.com/*` resource (whole GPUs, MIG slices, shared GPUs): GPUs come
  from spec.resourceClaims there;
- everywhere, NVIDIA device variables in containers, init and ephemeral containers (the NVIDIA runtime hands a
  container every GPU it names, claim or not);
- a toleration of the GPU taint without a claim (or a device-plugin GPU request): such a pod on a GPU node whose
  default runtime is NVIDIA's sees every GPU through its image's NVIDIA_VISIBLE_DEVICES;
- in a pod that tolerates the GPU taint (and so may run on a GPU node), every container, init container and
  ephemeral container that lists no claim and requests no GPU, unless it sets NVIDIA_VISIBLE_DEVICES=void itself:
  the kubelet passes a claim's CDI devices (and the driver's `void`) only to the containers that list it, so GPU
  isolation is per container, not per pod; `envFrom` there (a ConfigMap or Secret can carry the device variables,
  which the guard cannot see) and `runtimeClassName` (the GPU Operator's `nvidia` runtime classes);
- `spec.nodeName` set at creation (the kubelet ignores NoSchedule taints: it bypasses the GPU taint) and the
  `system-*` priority classes (which preempt the GPU software and other tenants).
No exemption a tenant can set: no matchCondition on the pod, no user or service account exemption (pods are created
by controllers, and tenants can run pods as any service account of their namespace); platform namespaces are
exempt by not carrying gpu-mode. `failurePolicy: Fail`; every field read is guarded by has().

The namespace-label guard denies changing gpu-mode, the admin-access label and the Pod Security labels of a tenant
namespace (or making a namespace one) to anyone but the platform's deployer; the NetworkPolicy guard keeps tenants
from changing or deleting the platform's NetworkPolicies and from opening egress to addresses (ipBlock) themselves;
the Services guard refuses new externalIPs and the Service types a namespace is not allowed.
Sources: docs/references.md#vap-dra-only, docs/references.md#vap-tenant-guard, docs/references.md#kubelet-ignores-noschedule,
docs/references.md#nvidia-device-env, docs/references.md#kubelet-cdi-per-container,
docs/references.md#vap-namespace-selector-on-namespaces, docs/references.md#service-external-ips.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra import admission
from dra_gpu_platform.facts import pod_security
from dra_gpu_platform.facts.naming import COMMON_LABELS
from dra_gpu_platform.facts.node_labels import GPU_TAINT_KEY
from dra_gpu_platform.plans.migration import ADMIN_ACCESS_LABEL, GPU_MODE_LABEL

POLICY_NAME = "gpu-dra-only"
WORKLOADS_POLICY_NAME = "gpu-dra-only-workloads"
CRONJOBS_POLICY_NAME = "gpu-dra-only-cronjobs"
NAMESPACE_LABELS_POLICY_NAME = "gpu-namespace-labels"
NETWORK_POLICIES_POLICY_NAME = "gpu-tenant-network-policies"

GPU_RESOURCE_PREFIX = "nvidia.com/"
LEGACY_RESOURCE = "nvidia.com/gpu"  # the device plugin's resource (what dra-only namespaces used to request)
IMPLICIT_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"  # a DeviceClass's implicit extended resource
# The NVIDIA container toolkit's device-selecting variables (nvidia-container-toolkit v1.19.1
# internal/config/image/envvars.go:19-30): GPUs, MIG configuration and monitoring access, IMEX channels. The value
# "void" (what the DRA driver's CDI edits set) selects nothing.
GPU_DEVICE_ENV = (
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_MIG_CONFIG_DEVICES",
    "NVIDIA_MIG_MONITOR_DEVICES",
    "NVIDIA_IMEX_CHANNELS",
)
NO_DEVICES = "void"
SYSTEM_PRIORITY_PREFIX = "system-"
PROTECTED_NAMESPACE_LABELS = (GPU_MODE_LABEL, ADMIN_ACCESS_LABEL, *pod_security.LABELS)
PLATFORM_LABEL, PLATFORM_VALUE = "app.kubernetes.io/part-of", COMMON_LABELS["app.kubernetes.io/part-of"]
FAILURE_POLICY = "Fail"
# Deny, and record in the audit log; Deny cannot be combined with Warn.
VALIDATION_ACTIONS = ("Deny", "Audit")
TENANT_NAMESPACES = {"matchExpressions": [{"key": GPU_MODE_LABEL, "operator": "Exists"}]}


@dataclass(frozen=True)
class ResourceRulePlan:
    api_groups: tuple[str, ...]
    api_versions: tuple[str, ...]
    operations: tuple[str, ...]
    resources: tuple[str, ...]

    def manifest(self) -> dict[str, Any]:
        return {
            "apiGroups": list(self.api_groups),
            "apiVersions": list(self.api_versions),
            "operations": list(self.operations),
            "resources": list(self.resources),
        }


@dataclass(frozen=True)
class ValidationPlan:
    expression: str
    message_expression: str
    reason: str = "Forbidden"


@dataclass(frozen=True)
class AdmissionPolicyPlan:
    """A ValidatingAdmissionPolicy and its binding (same name), as the resources create them."""

    name: str
    resource_rules: tuple[ResourceRulePlan, ...]
    variables: tuple[tuple[str, str], ...]  # (name, CEL), in evaluation order
    validations: tuple[ValidationPlan, ...]
    # the binding's namespaceSelector (a LabelSelector); None: no selector, every namespace (and every Namespace)
    namespace_selector: dict[str, Any] | None = field(default_factory=lambda: dict(TENANT_NAMESPACES))
    match_conditions: tuple[tuple[str, str], ...] = ()  # (name, CEL)
    failure_policy: str = FAILURE_POLICY
    validation_actions: tuple[str, ...] = VALIDATION_ACTIONS

    def policy_manifest(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "failurePolicy": self.failure_policy,
            "matchConstraints": {"resourceRules": [r.manifest() for r in self.resource_rules]},
            "variables": [{"name": n, "expression": e} for n, e in self.variables],
            "validations": [
                {"expression": v.expression, "messageExpression": v.message_expression, "reason": v.reason}
                for v in self.validations
            ],
        }
        if self.match_conditions:
            spec["matchConditions"] = [{"name": n, "expression": e} for n, e in self.match_conditions]
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": self.name},
            "spec": spec,
        }

    def binding_manifest(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"policyName": self.name, "validationActions": list(self.validation_actions)}
        if self.namespace_selector is not None:
            spec["matchResources"] = {"namespaceSelector": self.namespace_selector}
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": self.name},
            "spec": spec,
        }


# ---------------------------------------------------------------------------------------------------
# The GPU guard: one set of rules, three places a pod spec sits


def _quoted(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


def _requests_device(container: str) -> str:
    """CEL: the container requests (or limits) more than zero of an nvidia.com/* or implicit DeviceClass resource."""
    checks = []
    for part in ("requests", "limits"):
        checks.append(
            f"(has({container}.resources.{part}) && {container}.resources.{part}.exists(k, "
            f"(k.startsWith('{GPU_RESOURCE_PREFIX}') || k.startsWith('{IMPLICIT_RESOURCE_PREFIX}')) && "
            f"quantity(string({container}.resources.{part}[k])).isGreaterThan(quantity('0'))))"
        )
    return f"has({container}.resources) && ({' || '.join(checks)})"


def _gpu_resource(container: str) -> str:
    return (
        f"has({container}.resources) && ("
        f"(has({container}.resources.limits) && {container}.resources.limits.exists(k, k.startsWith('{GPU_RESOURCE_PREFIX}'))) || "
        f"(has({container}.resources.requests) && {container}.resources.requests.exists(k, k.startsWith('{GPU_RESOURCE_PREFIX}'))))"
    )


_GPU_ENV = f"has(c.env) && c.env.exists(e, e.name in {_quoted(GPU_DEVICE_ENV)} && !(has(e.value) && e.value == '{NO_DEVICES}'))"
# The container names no device itself: NVIDIA_VISIBLE_DEVICES=void in its own env, which overrides its image's
# (what the DRA driver's own pods set: "explicit void; otherwise we inherit all").
_VOID_ENV = (
    f"has(c.env) && c.env.exists(e, e.name == '{GPU_DEVICE_ENV[0]}' && has(e.value) && e.value == '{NO_DEVICES}')"
)
_LISTS_CLAIM = "has(c.resources) && has(c.resources.claims) && size(c.resources.claims) > 0"
_ENV_FROM = "has(c.envFrom) && size(c.envFrom) > 0"


def pod_spec_variables(spec_path: str) -> tuple[tuple[str, str], ...]:
    """The guard's variables for a pod spec at `spec_path` (object.spec, object.spec.template.spec, ...)."""
    return (
        ("spec", spec_path),
        (
            "containers",
            "variables.spec.containers + (has(variables.spec.initContainers) ? variables.spec.initContainers : [])",
        ),
        ("ephemeral", "has(variables.spec.ephemeralContainers) ? variables.spec.ephemeralContainers : []"),
        (
            "draOnly",
            f"has(namespaceObject.metadata.labels) && '{GPU_MODE_LABEL}' in namespaceObject.metadata.labels && "
            f"namespaceObject.metadata.labels['{GPU_MODE_LABEL}'] == 'dra-only'",
        ),
        ("gpuResourceContainers", f"variables.containers.filter(c, {_gpu_resource('c')}).map(c, c.name)"),
        (
            "gpuEnvContainers",
            f"variables.containers.filter(c, {_GPU_ENV}).map(c, c.name) + "
            f"variables.ephemeral.filter(c, {_GPU_ENV}).map(c, c.name)",
        ),
        (
            "claimsGpu",
            "(has(variables.spec.resourceClaims) && size(variables.spec.resourceClaims) > 0) || "
            f"variables.containers.exists(c, {_requests_device('c')})",
        ),
        (
            "toleratesGpuTaint",
            "has(variables.spec.tolerations) && variables.spec.tolerations.exists(t, "
            f"(has(t.key) && t.key == '{GPU_TAINT_KEY}') || "
            "((!has(t.key) || t.key == '') && has(t.operator) && t.operator == 'Exists'))",
        ),
        # In a pod that may run on a GPU node, every container must get its GPUs (or `void`) from a claim or a GPU
        # request: the kubelet passes a claim's CDI devices only to the containers that list it, so another container
        # keeps its image's NVIDIA_VISIBLE_DEVICES (init and ephemeral containers alike; sidecars are init containers).
        (
            "unclaimedContainers",
            "!variables.toleratesGpuTaint ? [] : "
            f"variables.containers.filter(c, !({_LISTS_CLAIM}) && !({_requests_device('c')}) && !({_VOID_ENV}))"
            ".map(c, c.name) + "
            f"variables.ephemeral.filter(c, !({_VOID_ENV})).map(c, c.name)",
        ),
        (
            "envFromContainers",
            "!variables.toleratesGpuTaint ? [] : "
            f"variables.containers.filter(c, {_ENV_FROM}).map(c, c.name) + "
            f"variables.ephemeral.filter(c, {_ENV_FROM}).map(c, c.name)",
        ),
    )


_WHERE = "'namespace ' + namespaceObject.metadata.name + ': '"


def pod_spec_validations(*, pod: bool) -> tuple[ValidationPlan, ...]:
    """The guard's validations. `pod`: the object is a Pod (nodeName is checked on creation only: the scheduler's
    binding sets it later); for workload templates a nodeName is refused outright."""
    node_name = "!has(variables.spec.nodeName) || variables.spec.nodeName == ''"
    if pod:
        node_name = f"request.operation != 'CREATE' || {node_name}"
    return (
        ValidationPlan(
            "!variables.draOnly || size(variables.gpuResourceContainers) == 0",
            f"'namespace ' + namespaceObject.metadata.name + ' is {GPU_MODE_LABEL}=dra-only: container(s) ' + "
            "variables.gpuResourceContainers.join(', ') + "
            f"' request {GPU_RESOURCE_PREFIX}* resources ({LEGACY_RESOURCE}, MIG or shared GPUs); request GPUs through "
            "spec.resourceClaims (a ResourceClaimTemplate) instead'",
        ),
        ValidationPlan(
            "size(variables.gpuEnvContainers) == 0",
            f"{_WHERE} + 'container(s) ' + variables.gpuEnvContainers.join(', ') + ' set "
            f"{'/'.join(GPU_DEVICE_ENV)}: the NVIDIA runtime would hand them GPUs nobody allocated; GPUs come from "
            f"spec.resourceClaims (or {LEGACY_RESOURCE} in legacy and dual namespaces)'",
        ),
        ValidationPlan(
            "!variables.toleratesGpuTaint || variables.claimsGpu",
            f"{_WHERE} + 'the pod tolerates the GPU taint {GPU_TAINT_KEY} but claims no GPU: on a GPU node it would see "
            f"every GPU; add spec.resourceClaims (or request {LEGACY_RESOURCE} in a legacy or dual namespace), or drop "
            "the toleration'",
        ),
        ValidationPlan(
            "size(variables.unclaimedContainers) == 0",
            f"{_WHERE} + 'the pod tolerates the GPU taint {GPU_TAINT_KEY}, and container(s) ' + "
            "variables.unclaimedContainers.join(', ') + ' list no claim (resources.claims) and request no GPU: the "
            "kubelet gives only the containers that list a claim its devices, so on a GPU node the NVIDIA runtime would "
            "hand these every GPU their image\\'s NVIDIA_VISIBLE_DEVICES names; list the claim in their "
            f"resources.claims, set env {GPU_DEVICE_ENV[0]}={NO_DEVICES} in them, or run them in a pod of their own'",
        ),
        ValidationPlan(
            "size(variables.envFromContainers) == 0",
            f"{_WHERE} + 'the pod tolerates the GPU taint {GPU_TAINT_KEY}, and container(s) ' + "
            "variables.envFromContainers.join(', ') + ' take envFrom, which can carry NVIDIA_VISIBLE_DEVICES (the "
            "guard cannot see a ConfigMap or Secret); list the variables under env instead'",
        ),
        ValidationPlan(
            "!variables.toleratesGpuTaint || !has(variables.spec.runtimeClassName) || variables.spec.runtimeClassName == ''",
            f"{_WHERE} + 'runtimeClassName ' + variables.spec.runtimeClassName + ' in a pod that tolerates the GPU "
            f"taint {GPU_TAINT_KEY}: a runtime class can pick the NVIDIA runtime (the GPU Operator\\'s nvidia, "
            "nvidia-legacy, nvidia-cdi), which hands a container GPUs by NVIDIA_VISIBLE_DEVICES; GPU pods run on the "
            "node\\'s default runtime, so drop runtimeClassName'",
        ),
        ValidationPlan(
            node_name,
            f"{_WHERE} + 'spec.nodeName ' + variables.spec.nodeName + ' skips the scheduler and with it the GPU taint; "
            "place pods with nodeSelector or affinity'",
        ),
        ValidationPlan(
            f"!has(variables.spec.priorityClassName) || !variables.spec.priorityClassName.startsWith('{SYSTEM_PRIORITY_PREFIX}')",
            f"{_WHERE} + 'priority class ' + variables.spec.priorityClassName + ' is reserved for the cluster\\'s own "
            "components (it preempts the GPU software and other tenants); use a priority class of your platform team'",
        ),
    )


POD_RULE = ResourceRulePlan(("",), ("v1",), ("CREATE", "UPDATE"), ("pods", "pods/ephemeralcontainers"))
WORKLOAD_RULES = (
    ResourceRulePlan(
        ("apps",), ("v1",), ("CREATE", "UPDATE"), ("daemonsets", "deployments", "replicasets", "statefulsets")
    ),
    ResourceRulePlan(("batch",), ("v1",), ("CREATE", "UPDATE"), ("jobs",)),
    ResourceRulePlan(("",), ("v1",), ("CREATE", "UPDATE"), ("replicationcontrollers",)),
)
CRONJOB_RULE = ResourceRulePlan(("batch",), ("v1",), ("CREATE", "UPDATE"), ("cronjobs",))

DRA_ONLY_POLICY = AdmissionPolicyPlan(
    name=POLICY_NAME,
    resource_rules=(POD_RULE,),
    variables=pod_spec_variables("object.spec"),
    validations=pod_spec_validations(pod=True),
)
WORKLOAD_POLICIES = (
    AdmissionPolicyPlan(
        name=WORKLOADS_POLICY_NAME,
        resource_rules=WORKLOAD_RULES,
        variables=pod_spec_variables("object.spec.template.spec"),
        validations=pod_spec_validations(pod=False),
    ),
    AdmissionPolicyPlan(
        name=CRONJOBS_POLICY_NAME,
        resource_rules=(CRONJOB_RULE,),
        variables=pod_spec_variables("object.spec.jobTemplate.spec.template.spec"),
        validations=pod_spec_validations(pod=False),
    ),
)


# ---------------------------------------------------------------------------------------------------
# Who the deployer is, and the guards of what only the deployer may change


def is_deployer(groups: tuple[str, ...]) -> str:
    """CEL: the request comes from the platform's deployer (one of these Kubernetes groups)."""
    return f"has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in {_quoted(groups)})"


_ABSENT = "<absent>"  # not a label value (label values are letters, digits, '-', '_' and '.')


def _label(obj: str, key: str) -> str:
    return f"(has({obj}.metadata.labels) && '{key}' in {obj}.metadata.labels ? {obj}.metadata.labels['{key}'] : '{_ABSENT}')"


def namespace_labels_policy(deployer_groups: tuple[str, ...]) -> AdmissionPolicyPlan:
    """Only the deployer sets or changes the labels that make a namespace a tenant and set its isolation. Bound
    without a namespaceSelector: for a Namespace the selector would be matched against the object's own labels, so
    an update that removes gpu-mode would escape it."""
    old = {
        k: f"(request.operation == 'UPDATE' ? {_label('oldObject', k)} : '{_ABSENT}')"
        for k in PROTECTED_NAMESPACE_LABELS
    }
    changed = " + ".join(f"({_label('object', k)} != {old[k]} ? ['{k}'] : [])" for k in PROTECTED_NAMESPACE_LABELS)
    return AdmissionPolicyPlan(
        name=NAMESPACE_LABELS_POLICY_NAME,
        resource_rules=(ResourceRulePlan(("",), ("v1",), ("CREATE", "UPDATE"), ("namespaces",)),),
        variables=(
            ("tenant", f"{_label('object', GPU_MODE_LABEL)} != '{_ABSENT}' || {old[GPU_MODE_LABEL]} != '{_ABSENT}'"),
            ("changed", changed),
            ("deployer", is_deployer(deployer_groups)),
        ),
        validations=(
            ValidationPlan(
                "!variables.tenant || size(variables.changed) == 0 || variables.deployer",
                "'namespace ' + object.metadata.name + ': only the platform deployer may set or change ' + "
                "variables.changed.join(', ') + ' on a GPU tenant namespace (change namespaces[] in the stack and "
                "run pulumi up)'",
            ),
        ),
        namespace_selector=None,
    )


def network_policies_policy(deployer_groups: tuple[str, ...]) -> AdmissionPolicyPlan:
    """The platform's NetworkPolicies in tenant namespaces stay as deployed, and a tenant's own NetworkPolicies
    may open egress to pods and namespaces only: an ipBlock (or a rule without `to`) could reach the instance
    metadata address again, since NetworkPolicies only ever add allowances."""
    owned = f"has({{o}}.metadata.labels) && '{PLATFORM_LABEL}' in {{o}}.metadata.labels && {{o}}.metadata.labels['{PLATFORM_LABEL}'] == '{PLATFORM_VALUE}'"
    return AdmissionPolicyPlan(
        name=NETWORK_POLICIES_POLICY_NAME,
        resource_rules=(
            ResourceRulePlan(("networking.k8s.io",), ("v1",), ("CREATE", "UPDATE", "DELETE"), ("networkpolicies",)),
        ),
        variables=(
            ("deployer", is_deployer(deployer_groups)),
            # the namespace controller deletes everything in a namespace being deleted
            ("terminating", "has(namespaceObject.metadata.deletionTimestamp)"),
            ("wasPlatforms", f"request.operation != 'CREATE' && {owned.format(o='oldObject')}"),
            ("isPlatforms", f"request.operation != 'DELETE' && {owned.format(o='object')}"),
        ),
        validations=(
            ValidationPlan(
                "variables.deployer || variables.terminating || (!variables.wasPlatforms && !variables.isPlatforms)",
                "'NetworkPolicy ' + namespaceObject.metadata.name + '/' + (request.operation == 'DELETE' ? "
                "oldObject.metadata.name : object.metadata.name) + ' belongs to the platform "
                f"({PLATFORM_LABEL}={PLATFORM_VALUE}): only the deployer creates, changes or deletes it'",
            ),
            ValidationPlan(
                "variables.deployer || request.operation == 'DELETE' || !has(object.spec.egress) || "
                "object.spec.egress.all(r, has(r.to) && size(r.to) > 0 && r.to.all(p, !has(p.ipBlock)))",
                "'NetworkPolicy ' + namespaceObject.metadata.name + '/' + object.metadata.name + ': egress rules in a "
                "GPU tenant namespace name pods or namespaces (podSelector, namespaceSelector); addresses (ipBlock) "
                "and rules without `to` are the platform\\'s (namespaces[].egress)'",
            ),
        ),
    )


# ---------------------------------------------------------------------------------------------------
# Services of tenant namespaces

SERVICES_POLICY_NAME = "gpu-tenant-services"
GATED_SERVICE_TYPES = ("NodePort", "LoadBalancer")  # what namespaces[].serviceTypes may allow
SERVICE_RULE = ResourceRulePlan(("",), ("v1",), ("CREATE", "UPDATE"), ("services",))


def _service_types_literal(allowed: Mapping[str, tuple[str, ...]]) -> str:
    """CEL: the Service types each namespace may create beyond ClusterIP (names are immutable, so they key it)."""
    entries = ", ".join(f"'{ns}': {_quoted(types)}" for ns, types in sorted(allowed.items()) if types)
    name = "namespaceObject.metadata.name"
    return f"{name} in {{{entries}}} ? {{{entries}}}[{name}] : []" if entries else "[]"


def services_policy(allowed: Mapping[str, tuple[str, ...]]) -> AdmissionPolicyPlan:
    """Services in tenant namespaces: no new `spec.externalIPs` (kube-proxy would send every pod's traffic to those
    addresses to the tenant's pods: CVE-2020-8554, which upstream leaves to admission; the semantics of the
    DenyServiceExternalIPs plugin: addresses a Service already has may stay or go), and NodePort or LoadBalancer only
    where namespaces[].serviceTypes allows them. `allowed`: namespace -> the types it may create beyond ClusterIP.
    Sources: docs/references.md#service-external-ips."""
    return AdmissionPolicyPlan(
        name=SERVICES_POLICY_NAME,
        resource_rules=(SERVICE_RULE,),
        variables=(
            ("allowedTypes", _service_types_literal(allowed)),
            ("type", "has(object.spec.type) ? object.spec.type : 'ClusterIP'"),
            (
                "newExternalIPs",
                "!has(object.spec.externalIPs) ? [] : object.spec.externalIPs.filter(ip, "
                "oldObject == null || !has(oldObject.spec.externalIPs) || !(ip in oldObject.spec.externalIPs))",
            ),
        ),
        validations=(
            ValidationPlan(
                "size(variables.newExternalIPs) == 0",
                "'Service ' + namespaceObject.metadata.name + '/' + object.metadata.name + ': spec.externalIPs ' + "
                "variables.newExternalIPs.join(', ') + ' would capture the traffic every pod sends to those addresses "
                "(CVE-2020-8554); GPU tenant namespaces may not add externalIPs (use a ClusterIP Service, or a "
                "LoadBalancer where namespaces[].serviceTypes allows it)'",
            ),
            ValidationPlan(
                f"!(variables.type in {_quoted(GATED_SERVICE_TYPES)}) || variables.type in variables.allowedTypes",
                "'Service ' + namespaceObject.metadata.name + '/' + object.metadata.name + ': type ' + variables.type "
                "+ ' is not allowed in GPU tenant namespace ' + namespaceObject.metadata.name + ' (it opens the "
                "namespace\\'s pods to addresses outside the cluster); use ClusterIP, or ask the platform team to "
                "list ' + variables.type + ' in namespaces[].serviceTypes'",
            ),
        ),
    )


def tenancy_policies(
    deployer_groups: tuple[str, ...], service_types: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[AdmissionPolicyPlan, ...]:
    """The guards of what a tenant may change besides its pods: with a known deployer, the namespace labels and the
    platform's NetworkPolicies; always, its Services."""
    deployer = (namespace_labels_policy(deployer_groups), network_policies_policy(deployer_groups))
    return (*(deployer if deployer_groups else ()), services_policy(service_types or {}))


# ---------------------------------------------------------------------------------------------------
# Evaluating a policy as the API server does (what `gpuplan fit`, the policy pack and the tests run)


@dataclass(frozen=True)
class AdmissionRequest:
    """One admission request to a ValidatingAdmissionPolicy: the object (None on DELETE), its namespace object
    (None for a cluster-scoped object), the operation, the previous object on UPDATE and DELETE, and who sends it."""

    object: Mapping[str, Any] | None
    namespace: Mapping[str, Any] | None = None
    operation: str = "CREATE"
    old_object: Mapping[str, Any] | None = None
    groups: tuple[str, ...] = ()
    username: str = "tenant"

    def as_request(self) -> admission.Request:
        """The request as dra_gpu_platform/dra/admission.py evaluates it (userInfo included: the tenancy guards read
        request.userInfo.groups)."""
        subject = self.object if self.object is not None else self.old_object or {}
        metadata = (self.namespace or {}).get("metadata") or {}
        return admission.Request(
            resource="",
            group="",
            kind=str(subject.get("kind", "")),
            namespace=str(metadata.get("name", "")),
            name=str((subject.get("metadata") or {}).get("name", "")),
            object=self.object,
            namespace_labels={str(k): str(v) for k, v in (metadata.get("labels") or {}).items()},
            operation=self.operation,
            old_object=self.old_object,
            username=self.username,
            groups=self.groups,
            namespace_object=self.namespace,
        )


def denials(spec: Mapping[str, Any], request: AdmissionRequest) -> list[str]:
    """The messages a ValidatingAdmissionPolicy's spec (planned or as recorded) denies the request with, one per
    failing validation; [] when it admits it or its matchConditions leave it out. The caller has matched the request
    to the policy. Evaluated by the one evaluator, dra_gpu_platform/dra/admission.py `validate`: a CEL error denies under
    failurePolicy Fail (the default), as in the API server, and reads `policy error: <the API server's words>`."""
    decision = admission.validate(admission.policy_from_manifests({"spec": dict(spec)}), request.as_request())
    return [f"policy error: {f.message}" if f.error else f.message for f in decision.failures]
