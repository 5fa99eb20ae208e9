"""The API server of the stack for `gpuplan fit`: what happens to a pod or a claim at create, in the order the API
server runs it (dra_gpu_platform/dra/admission.py): defaulting (limits become missing requests), the mutating plugins
(ExtendedResourceToleration where the platform runs it, then the stack's GPU-toleration MutatingAdmissionPolicy from
Kubernetes 1.36), Pod Security of the namespace's labels (dra_gpu_platform/dra/pod_security.py: the API server's first
validating plugin of these), the stack's ValidatingAdmissionPolicy (the dra-only guard: the plan's own CEL,
evaluated), then ResourceQuota as a running tally (dra_gpu_platform/dra/quota.py); the first refusal is the answer
(docs/references.md#psa-admission). ResourceClaims of the claim files go through quota as `kubectl apply` creates
them (`create_claims`), before the controllers create pods and their template claims; Services go through the
stack's policies on Services, then quota.

The GPU guard's policies (match constraints, namespace selector, CEL, actions, failure policy) are read from the
plan (dra_gpu_platform/plans/admission_policy.py), the one place the resources create them from; nothing is copied, and
tests/gpuplan/test_fit_admission_parity.py holds `validating_policy` equal to what the stack program records. A refusal
carries what refused the object (the quota's keys, or the policy's own message) for gpuplan/fit/fixes.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra import admission as adm
from dra_gpu_platform.dra import pod_security
from dra_gpu_platform.dra.claims import ClaimSpec
from dra_gpu_platform.dra.pod_resources import default_requests, pod_requests
from dra_gpu_platform.dra.quota import QuotaLedger, QuotaRefusal, claim_usage, pod_usage, service_usage
from dra_gpu_platform.facts import platforms
from dra_gpu_platform.facts.admission_plugins import EXTENDED_RESOURCE_TOLERATION
from dra_gpu_platform.plans.admission_policy import AdmissionPolicyPlan
from dra_gpu_platform.plans.gpu_toleration import NAMESPACE_NAME_LABEL, served
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.fit.inputs import ClaimEntry


def validating_policy(plan: AdmissionPolicyPlan) -> adm.ValidatingPolicy:
    """A planned ValidatingAdmissionPolicy and its binding as the API server runs them: match constraints, the
    binding's namespace selector, variables, validations, actions and failure policy, all read from the plan."""
    return adm.ValidatingPolicy(
        name=plan.name,
        binding=plan.name,
        match=adm.PolicyMatch(
            tuple(sorted({r for rule in plan.resource_rules for r in rule.resources})),
            tuple(sorted({o for rule in plan.resource_rules for o in rule.operations})),
            plan.namespace_selector,
        ),
        validations=tuple(adm.Validation(v.expression, "", v.message_expression, v.reason) for v in plan.validations),
        match_conditions=plan.match_conditions,
        variables=plan.variables,
        actions=plan.validation_actions,
        failure_policy=plan.failure_policy,
    )


@dataclass(frozen=True)
class Refusal:
    """Why the API server refuses an object: its error, and what refused it (a quota, or a policy's own words), or
    the fix where the refusal is made (a field that fails validation)."""

    message: str
    quota: QuotaRefusal | None = None
    policy_message: str | None = None
    fix: str | None = None
    pod_security: pod_security.Decision | None = None


@dataclass
class PodAdmission:
    """A pod after admission: the object the API server stores, or why it was refused, and what was changed."""

    object: dict[str, Any]
    rejected: str | None = None
    changes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    refusal: Refusal | None = None
    pod_security: pod_security.Decision | None = None


@dataclass
class StackAdmission:
    platform: str
    minor: int
    namespaces: Mapping[str, Mapping[str, str]]  # namespace -> labels
    validating: list[adm.ValidatingPolicy]
    mutating: list[adm.MutatingPolicy]
    ledger: QuotaLedger
    extended_names: dict[str, str] = field(default_factory=dict)  # class -> extendedResourceName
    extended_resource: bool = False  # DRAExtendedResource
    notes: list[str] = field(default_factory=list)
    services: list[adm.ValidatingPolicy] = field(default_factory=list)  # the plan's policies on Services

    @classmethod
    def of(
        cls,
        plan: StackPlan,
        minor: int,
        namespaces: Mapping[str, Mapping[str, str]],
        quotas: Mapping[str, list[tuple[str, dict[str, Any]]]],
        extended_names: dict[str, str],
        extended_resource: bool,
        scopes: Mapping[tuple[str, str], Mapping[str, Any]] | None = None,
    ) -> StackAdmission:
        mutating = []
        notes = []
        if plan.gpu_toleration is not None:
            if served(minor):
                mutating.append(plan.gpu_toleration.policy())
            else:
                notes.append(
                    f"gpuToleration: Kubernetes 1.{minor} serves no MutatingAdmissionPolicy (v1 from 1.36), so pods "
                    "must carry the GPU toleration themselves"
                )
        if not platforms.profile(plan.platform).kubernetes.admission_plugins_known:
            notes.append(
                "existing cluster: ExtendedResourceToleration is assumed off (its admission plugins are unknown)"
            )
        return cls(
            plan.platform,
            minor,
            namespaces,
            [validating_policy(p) for p in (plan.admission_policy, *plan.workload_policies)],
            mutating,
            QuotaLedger(quotas, scopes or {}),
            extended_names,
            extended_resource,
            notes,
            [
                validating_policy(p)
                for p in plan.tenancy_policies
                if any("services" in rule.resources for rule in p.resource_rules)
            ],
        )

    def _labels(self, namespace: str) -> dict[str, str]:
        return {**self.namespaces.get(namespace, {}), NAMESPACE_NAME_LABEL: namespace}

    def admit_pod(self, pod: Mapping[str, Any], name: str, spec_path: str = "spec") -> PodAdmission:
        """Defaulting, mutation, validation and the pod's quota, in that order (`name`: its name or generateName;
        `spec_path`: where the pod's spec sits in what the user wrote, for the Pod Security fixes)."""
        namespace = str((pod.get("metadata") or {}).get("namespace") or "default")
        current = default_requests(pod)
        changes: list[str] = []
        if EXTENDED_RESOURCE_TOLERATION.get(self.platform, False):
            current, added = adm.extended_resource_toleration(current)
            if added:
                changes.append(f"ExtendedResourceToleration added the toleration for {', '.join(added)}")
        request = adm.Request("pods", "", "Pod", namespace, name, current, self._labels(namespace))
        for policy in self.mutating:
            current, decision = adm.mutate(policy, request, current)
            if decision.denied:
                return PodAdmission(current, decision.denied, changes, refusal=Refusal(decision.denied))
            if decision.changed:
                changes.append(f"MutatingAdmissionPolicy {policy.name} added the GPU toleration")
        request = adm.Request("pods", "", "Pod", namespace, name, current, self._labels(namespace))
        security = pod_security.admit(self.namespaces.get(namespace), current, self.minor, spec_path=spec_path)
        warnings: list[str] = list(security.warnings)
        if security.denied:
            message = adm.forbidden(request, security.denied)
            refused = Refusal(message, pod_security=security)
            return PodAdmission(current, message, changes, warnings, refusal=refused, pod_security=security)
        for validating in self.validating:
            result = adm.validate(validating, request)
            warnings += result.warnings
            if result.denied:
                refusal = Refusal(result.denied, policy_message=result.failures[0].message)
                return PodAdmission(current, result.denied, changes, warnings, refusal=refusal, pod_security=security)
        requests = pod_requests(current.get("spec") or {})
        priority = str((current.get("spec") or {}).get("priorityClassName") or "")
        exceeded = self.ledger.admit(namespace, pod_usage(requests), priority)
        if exceeded:
            message = adm.forbidden(request, exceeded.message)
            refusal = Refusal(message, exceeded)
            return PodAdmission(current, message, changes, warnings, refusal=refusal, pod_security=security)
        return PodAdmission(current, None, changes, warnings, requests, pod_security=security)

    def admit_controller(self, namespace: str, template: Mapping[str, Any], spec_path: str) -> pod_security.Decision:
        """Pod Security of a pod controller (Deployment, Job, ...) at create: never refused, warned about in warn mode
        (its pods are refused by enforce)."""
        return pod_security.admit(
            self.namespaces.get(namespace), template, self.minor, controller=True, spec_path=spec_path
        )

    def admit_service(self, service: Mapping[str, Any]) -> Refusal | None:
        """A Service at create: the stack's policies on Services (externalIPs, the types a namespace may create), then
        ResourceQuota (services, count/services, services.loadbalancers, services.nodeports), as the API server
        orders them; Pod Security judges pods only."""
        metadata = service.get("metadata") or {}
        namespace = str(metadata.get("namespace") or "default")
        name = str(metadata.get("name") or metadata.get("generateName") or "")
        request = adm.Request("services", "", "Service", namespace, name, service, self._labels(namespace))
        for policy in self.services:
            result = adm.validate(policy, request)
            if result.denied:
                return Refusal(result.denied, policy_message=result.failures[0].message)
        exceeded = self.ledger.admit(namespace, service_usage(service))
        if exceeded is not None:
            return Refusal(adm.forbidden(request, exceeded.message), exceeded)
        return None

    def claim_usage(self, spec: ClaimSpec, pod_requests_: Mapping[str, int] | None = None) -> dict[str, int]:
        usage = claim_usage(spec, self.extended_names, extended_resource=self.extended_resource)
        if pod_requests_ is not None:  # a pod's extended-resource claim: what the pod is charged is not counted twice
            for key in list(usage):
                if key.startswith("requests.") and key[len("requests.") :] in pod_requests_:
                    usage[key] = max(0, usage[key] - pod_requests_[key[len("requests.") :]])
        return usage

    def admit_claim(
        self, namespace: str, name: str, spec: ClaimSpec, pod_requests_: Mapping[str, int] | None = None
    ) -> Refusal | None:
        """A ResourceClaim the resourceclaim controller (or the scheduler, for extended resources) creates: the
        quota's refusal (the API error and the quota), or None."""
        exceeded = self.ledger.admit(namespace, self.claim_usage(spec, pod_requests_))
        if exceeded is None:
            return None
        request = adm.Request("resourceclaims", "resource.k8s.io", "ResourceClaim", namespace, name, {})
        return Refusal(adm.forbidden(request, exceeded.message), exceeded)


def create_claims(admission: StackAdmission, entries: Sequence[ClaimEntry]) -> None:
    """The ResourceClaims that exist before any pod: a cluster dump's are counted as used; the stack's shared claims,
    then those of the claim files in file order, are created through quota as `kubectl apply` creates them. A refused
    claim is `rejected` with the API server's error and keeps its refusal for the row's fix."""
    for entry in entries:
        if entry.kind != "ResourceClaim" or entry.spec is None or entry.rejected:
            continue
        if entry.origin == "cluster":
            admission.ledger.record(entry.namespace, admission.claim_usage(entry.spec))
            continue
        refusal = admission.admit_claim(entry.namespace, entry.name, entry.spec)
        if refusal is not None:
            entry.rejected.append(refusal.message)
            entry.refusal = refusal
