"""Admission of an object at create, as the API server runs it: mutating plugins first (ExtendedResourceToleration,
then MutatingAdmissionPolicies with JSONPatch mutations), then ValidatingAdmissionPolicies; ResourceQuota comes last
(components/dra/quota.py). Pure: no Pulumi imports, no I/O; CEL runs on the project's engine
(components/dra/cel) with the variables the API server binds: object, oldObject, request, namespaceObject,
variables.

Sources (docs/references.md#kubernetes-admission-policies): kubernetes/apiserver v0.36.3
`pkg/admission/plugin/policy/validating/validator.go` (matchConditions, then the validations; a failed validation's
message is its trimmed messageExpression, else its message, else `failed expression: <expression>`; errors follow
failurePolicy), `validating/dispatcher.go` (`ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied
request: <message>` for Deny, a warning for Warn), `pkg/admission/errors.go` `NewForbidden` (`<resource> "<name>"
is forbidden: …`, the name or else generateName), `mutating/patch/json_patch.go` (JSON Patch from the CEL list; a
failed `test` leaves the object as it was); kubernetes `plugin/pkg/admission/extendedresourcetoleration/admission.go`
(`Admit`: an Exists/NoSchedule toleration per extended resource in the containers' requests, sorted).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from dra_gpu_platform.dra.cel import CelCompileError, CelEvaluationError, evaluate
from dra_gpu_platform.dra.cel.mutation import evaluate_json_patch
from dra_gpu_platform.dra.node_selectors import label_selector_matches
from dra_gpu_platform.dra.pod_resources import container_requests, is_extended_resource

FAIL, IGNORE = "Fail", "Ignore"
DENY, WARN, AUDIT = "Deny", "Warn", "Audit"


@dataclass(frozen=True)
class Request:
    """One create request: the object, what it is, and its namespace as the policies see it."""

    resource: str  # plural resource name: pods, resourceclaims, …
    group: str  # "" for core
    kind: str
    namespace: str
    name: str  # metadata.name, or generateName for a controller's pod
    object: Mapping[str, Any]
    namespace_labels: Mapping[str, str] = field(default_factory=dict)
    operation: str = "CREATE"

    def variables(self, obj: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """object, oldObject, request and namespaceObject as CEL sees them (CreateAdmissionRequest,
        CreateNamespaceObject)."""
        return {
            "object": dict(obj if obj is not None else self.object),
            "oldObject": None,
            "request": {
                "operation": self.operation,
                "namespace": self.namespace,
                "name": self.name,
                "kind": {"group": self.group, "version": "v1", "kind": self.kind},
                "resource": {"group": self.group, "version": "v1", "resource": self.resource},
                "dryRun": False,
            },
            "namespaceObject": {"metadata": {"name": self.namespace, "labels": dict(self.namespace_labels)}},
        }


@dataclass(frozen=True)
class Validation:
    expression: str
    message: str = ""
    message_expression: str = ""
    reason: str = "Invalid"


@dataclass(frozen=True)
class PolicyMatch:
    """matchConstraints and the binding's matchResources, as far as fit needs them."""

    resources: tuple[str, ...]  # plural names; "*" matches all
    operations: tuple[str, ...] = ("CREATE",)
    namespace_selector: Mapping[str, Any] | None = None  # metav1 LabelSelector; None: every namespace

    def matches(self, request: Request) -> bool:
        if request.operation not in self.operations and "*" not in self.operations:
            return False
        if request.resource not in self.resources and "*" not in self.resources:
            return False
        return self.namespace_selector is None or label_selector_matches(
            self.namespace_selector, request.namespace_labels
        )


@dataclass(frozen=True)
class ValidatingPolicy:
    """A ValidatingAdmissionPolicy with one binding."""

    name: str
    binding: str
    match: PolicyMatch
    validations: tuple[Validation, ...]
    match_conditions: tuple[tuple[str, str], ...] = ()
    variables: tuple[tuple[str, str], ...] = ()
    actions: tuple[str, ...] = (DENY,)
    failure_policy: str = FAIL


@dataclass(frozen=True)
class MutatingPolicy:
    """A MutatingAdmissionPolicy with JSONPatch mutations and one binding."""

    name: str
    binding: str
    match: PolicyMatch
    patches: tuple[str, ...]  # JSONPatch expressions, in order
    match_conditions: tuple[tuple[str, str], ...] = ()
    variables: tuple[tuple[str, str], ...] = ()
    failure_policy: str = FAIL


@dataclass(frozen=True)
class Decision:
    """What one policy did: `denied` the API error's message, `warnings`, `changed` for a mutation."""

    policy: str
    denied: str | None = None
    warnings: tuple[str, ...] = ()
    changed: bool = False


def forbidden(request: Request, message: str) -> str:
    """admission.NewForbidden's text."""
    return f'{request.resource} "{request.name}" is forbidden: {message}'


def _conditions(conditions: Sequence[tuple[str, str]], variables: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(all true, the error text of the first that failed to evaluate)."""
    for name, expression in conditions:
        try:
            if evaluate(expression, variables) is not True:
                return False, None
        except (CelCompileError, CelEvaluationError) as error:
            return False, f"failed to evaluate matchCondition {name!r}: {error}"
    return True, None


def _variables(variables: Sequence[tuple[str, str]], context: dict[str, Any]) -> str | None:
    composed: dict[str, Any] = {}
    context["variables"] = composed
    for name, expression in variables:
        try:
            composed[name] = evaluate(expression, context)
        except (CelCompileError, CelEvaluationError) as error:
            return f"variable {name!r}: {error}"
    return None


def validate(policy: ValidatingPolicy, request: Request) -> Decision:
    """One ValidatingAdmissionPolicy on a create request."""
    if not policy.match.matches(request):
        return Decision(policy.name)
    context = request.variables()
    header = f"ValidatingAdmissionPolicy '{policy.name}' with binding '{policy.binding}'"
    failures: list[str] = []
    matched, error = _conditions(policy.match_conditions, context)
    if error is not None:
        failures.append(error)
    elif not matched:
        return Decision(policy.name)
    else:
        error = _variables(policy.variables, context)
        if error is not None:
            failures.append(error)
        else:
            for validation in policy.validations:
                try:
                    verdict = evaluate(validation.expression, context)
                except (CelCompileError, CelEvaluationError) as failure:
                    if policy.failure_policy == FAIL:
                        return _deny(policy, request, header, str(failure))
                    continue
                if verdict is True:
                    continue
                return _deny(policy, request, header, _message(validation, context))
    if failures and policy.failure_policy == FAIL:
        return _deny(policy, request, header, failures[0])
    return Decision(policy.name)


def _message(validation: Validation, context: Mapping[str, Any]) -> str:
    if validation.message_expression:
        try:
            found = evaluate(validation.message_expression, context)
        except (CelCompileError, CelEvaluationError):
            found = None
        if isinstance(found, str) and found.strip() and "\n" not in found:
            return found.strip()
    if validation.message.strip():
        return validation.message.strip()
    return f"failed expression: {validation.expression.strip()}"


def _deny(policy: ValidatingPolicy, request: Request, header: str, message: str) -> Decision:
    warnings = (f"Validation failed for {header}: {message}",) if WARN in policy.actions else ()
    if DENY in policy.actions:
        return Decision(policy.name, forbidden(request, f"{header} denied request: {message}"), warnings)
    return Decision(policy.name, None, warnings)


def mutate(policy: MutatingPolicy, request: Request, obj: Mapping[str, Any]) -> tuple[dict[str, Any], Decision]:
    """One MutatingAdmissionPolicy's JSONPatch mutations on `obj`; returns the object it leaves and the decision
    (an error under failurePolicy Fail denies the request)."""
    current = copy.deepcopy(dict(obj))
    if not policy.match.matches(request):
        return current, Decision(policy.name)
    context = request.variables(current)
    header = f"MutatingAdmissionPolicy '{policy.name}' with binding '{policy.binding}'"
    matched, error = _conditions(policy.match_conditions, context)
    if error is None and matched:
        error = _variables(policy.variables, context)
    if error is None and not matched:
        return current, Decision(policy.name)
    changed = False
    for expression in policy.patches if error is None else ():
        try:
            operations = evaluate_json_patch(expression, {**context, "object": current})
            current = jsonpatch.apply_patch(current, operations)
            changed = changed or bool(operations)
        except jsonpatch.JsonPatchTestFailed:
            continue  # a failed test operation leaves the object as it was
        except (CelCompileError, CelEvaluationError, jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as e:
            error = f"JSON Patch: {e}"
            break
    if error is not None:
        if policy.failure_policy == FAIL:
            return dict(obj), Decision(policy.name, forbidden(request, f"{header} denied request: {error}"))
        return dict(obj), Decision(policy.name)
    return current, Decision(policy.name, changed=changed)


def extended_resource_toleration(pod: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """ExtendedResourceToleration Admit: for every extended resource the containers request, sorted, an
    `{key: <resource>, operator: Exists, effect: NoSchedule}` toleration unless an equal one is there. Returns the
    pod and the resources it added tolerations for."""
    result: dict[str, Any] = copy.deepcopy(dict(pod))
    spec = result.get("spec")
    if not isinstance(spec, dict):
        return result, ()
    names: set[str] = set()
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if isinstance(container, Mapping):
                names |= {name for name in container_requests(container) if is_extended_resource(name)}
    added = []
    tolerations = list(spec.get("tolerations") or [])
    for name in sorted(names):
        wanted = {"key": name, "operator": "Exists", "effect": "NoSchedule"}
        if any(
            isinstance(t, Mapping)
            and t.get("key") == name
            and t.get("operator") == "Exists"
            and t.get("effect") == "NoSchedule"
            and not t.get("value")
            for t in tolerations
        ):
            continue
        tolerations.append(wanted)
        added.append(name)
    if added:
        spec["tolerations"] = tolerations
    return result, tuple(added)
