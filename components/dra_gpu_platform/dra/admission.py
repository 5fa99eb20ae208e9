"""Admission of an object at create, as the API server runs it: mutating plugins first (ExtendedResourceToleration,
then MutatingAdmissionPolicies with JSONPatch mutations), then ValidatingAdmissionPolicies; ResourceQuota comes last
(dra_gpu_platform/dra/quota.py). Pure: no Pulumi imports, no I/O; CEL runs on the project's engine
(dra_gpu_platform/cel) with the variables the API server binds: object, oldObject, request (userInfo included),
namespaceObject, variables.

This is the one evaluator of a ValidatingAdmissionPolicy's CEL: `gpuplan fit` runs the plan's policies through
`validate`, and the policy pack and tests run manifests (planned or recorded) through it with
dra_gpu_platform/plans/admission_policy.py `denials` (`policy_from_manifests`).

Sources (docs/references.md#kubernetes-admission-policies): kubernetes/apiserver v0.36.3
`pkg/admission/plugin/policy/validating/validator.go` (matchConditions, then every validation; a failed validation's
message is its trimmed messageExpression, else its message, else `failed expression: <expression>`; errors follow
failurePolicy), `validating/dispatcher.go` (`ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied
request: <message>` of the first denial for Deny, a warning per failure for Warn), `cel/composition.go` (variables
evaluated where read: their errors are the reading expression's), `webhook/matchconditions/matcher.go` (a false
condition wins over errors), `pkg/admission/errors.go` `NewForbidden` (`<resource> "<name>"
is forbidden: …`, the name or else generateName), `mutating/patch/json_patch.go` (JSON Patch from the CEL list; a
failed `test` leaves the object as it was); kubernetes `plugin/pkg/admission/extendedresourcetoleration/admission.go`
(`Admit`: an Exists/NoSchedule toleration per extended resource in the containers' requests, sorted).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from dra_gpu_platform.cel import CelCompileError, CelEvaluationError, evaluate
from dra_gpu_platform.cel.mutation import evaluate_json_patch
from dra_gpu_platform.dra.node_selectors import label_selector_matches
from dra_gpu_platform.dra.pod_resources import container_requests, is_extended_resource

FAIL, IGNORE = "Fail", "Ignore"
DENY, WARN, AUDIT = "Deny", "Warn", "Audit"


@dataclass(frozen=True)
class Request:
    """One admission request: the object, what it is, its namespace as the policies see it, and who sends it."""

    resource: str  # plural resource name: pods, resourceclaims, …
    group: str  # "" for core
    kind: str
    namespace: str  # "" for a cluster-scoped object
    name: str  # metadata.name, or generateName for a controller's pod
    object: Mapping[str, Any] | None  # None on DELETE
    namespace_labels: Mapping[str, str] = field(default_factory=dict)
    operation: str = "CREATE"
    old_object: Mapping[str, Any] | None = None  # UPDATE and DELETE
    username: str = ""
    groups: tuple[str, ...] = ()
    # the whole Namespace object where it is known (its deletionTimestamp, say); else built from name and labels
    namespace_object: Mapping[str, Any] | None = None

    def variables(self, obj: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """object, oldObject, request (with userInfo) and namespaceObject as CEL sees them (CreateAdmissionRequest,
        CreateNamespaceObject; null for a cluster-scoped object)."""
        found = obj if obj is not None else self.object
        namespace = self.namespace_object
        if namespace is None and self.namespace:
            namespace = {"metadata": {"name": self.namespace, "labels": dict(self.namespace_labels)}}
        return {
            "object": dict(found) if found is not None else None,
            "oldObject": dict(self.old_object) if self.old_object is not None else None,
            "request": {
                "operation": self.operation,
                "namespace": self.namespace,
                "name": self.name,
                "kind": {"group": self.group, "version": "v1", "kind": self.kind},
                "resource": {"group": self.group, "version": "v1", "resource": self.resource},
                "userInfo": {"username": self.username, "groups": list(self.groups)},
                "dryRun": False,
            },
            "namespaceObject": dict(namespace) if namespace is not None else None,
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
    namespace_selector: Mapping[str, Any] | None = None  # the binding's LabelSelector; None: every namespace
    policy_namespace_selector: Mapping[str, Any] | None = None  # matchConstraints.namespaceSelector

    def matches(self, request: Request) -> bool:
        if request.operation not in self.operations and "*" not in self.operations:
            return False
        if request.resource not in self.resources and "*" not in self.resources:
            return False
        return all(
            selector is None or label_selector_matches(selector, request.namespace_labels)
            for selector in (self.namespace_selector, self.policy_namespace_selector)
        )


MATCH_EVERYTHING = PolicyMatch(("*",), ("*",))


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


def _named(entries: Any) -> tuple[tuple[str, str], ...]:
    return tuple(
        (str(e.get("name", "")), str(e.get("expression", ""))) for e in entries or () if isinstance(e, Mapping)
    )


def _strings(values: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in values or ())


def policy_from_manifests(policy: Mapping[str, Any], binding: Mapping[str, Any] | None = None) -> ValidatingPolicy:
    """A ValidatingAdmissionPolicy and its binding as manifests (planned, recorded by the stack program, or read
    from a cluster) as the API server runs them. Without a binding the policy sees every request and denies (the
    caller has matched the request already). Resources and operations are the resource rules' union, sorted."""
    spec = policy.get("spec") or {}
    binding_spec = (binding or {}).get("spec") or {}
    constraints = spec.get("matchConstraints") or {}
    rules = [r for r in constraints.get("resourceRules") or () if isinstance(r, Mapping)]
    match = MATCH_EVERYTHING
    if binding is not None:
        match = PolicyMatch(
            tuple(sorted({str(x) for r in rules for x in r.get("resources") or ()})),
            tuple(sorted({str(x) for r in rules for x in r.get("operations") or ()})),
            (binding_spec.get("matchResources") or {}).get("namespaceSelector"),
            constraints.get("namespaceSelector"),
        )
    return ValidatingPolicy(
        name=str((policy.get("metadata") or {}).get("name", "")),
        binding=str(((binding or {}).get("metadata") or {}).get("name", "")),
        match=match,
        validations=tuple(
            Validation(
                str(v.get("expression", "")),
                str(v.get("message") or ""),
                str(v.get("messageExpression") or ""),
                str(v.get("reason") or "Invalid"),
            )
            for v in spec.get("validations") or ()
            if isinstance(v, Mapping)
        ),
        match_conditions=_named(spec.get("matchConditions")),
        variables=_named(spec.get("variables")),
        actions=_strings(binding_spec.get("validationActions")) if binding is not None else (DENY,),
        failure_policy=str(spec.get("failurePolicy") or FAIL),
    )


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
class Failure:
    """A validation that did not pass: its message, and whether its CEL failed to evaluate (an error, which denies
    only under failurePolicy Fail) rather than returned false."""

    message: str
    error: bool = False


@dataclass(frozen=True)
class Decision:
    """What one policy did: `denied` the API error's message (the first failure, as the dispatcher reports it),
    `warnings`, `changed` for a mutation, and `failures`: every validation that failed and counts, in order."""

    policy: str
    denied: str | None = None
    warnings: tuple[str, ...] = ()
    changed: bool = False
    failures: tuple[Failure, ...] = ()


def forbidden(request: Request, message: str) -> str:
    """admission.NewForbidden's text."""
    return f'{request.resource} "{request.name}" is forbidden: {message}'


def _resulted_in_error(expression: str, error: Exception | str) -> str:
    return f"expression '{expression}' resulted in error: {error}"


def _conditions(conditions: Sequence[tuple[str, str]], variables: Mapping[str, Any]) -> tuple[bool, str | None]:
    """matchconditions.Match: any condition false leaves the request out; else conditions that failed to evaluate
    are an error (all of them, aggregated); else it matches."""
    errors = []
    for _, expression in conditions:
        try:
            if evaluate(expression, variables) is not True:
                return False, None
        except (CelCompileError, CelEvaluationError) as error:
            errors.append(_resulted_in_error(expression, error))
    if errors:
        return False, errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return True, None


def _compose(variables: Sequence[tuple[str, str]], context: dict[str, Any]) -> dict[str, str]:
    """Binds `variables` in `context`. The API server evaluates a variable when an expression first reads it, so its
    error is that expression's error: here a variable that fails is left unbound (reading it fails) and its error is
    returned by name."""
    composed: dict[str, Any] = {}
    context["variables"] = composed
    failed: dict[str, str] = {}
    for name, expression in variables:
        try:
            composed[name] = evaluate(expression, context)
        except (CelCompileError, CelEvaluationError) as error:
            failed[name] = f'composited variable "{name}" fails to evaluate: {error}'
    return failed


def _evaluation_error(expression: str, error: Exception, failed: Mapping[str, str]) -> str:
    """The error of an expression, naming the failed variable it reads where there is one."""
    read = next((failed[n] for n in failed if re.search(rf"\bvariables\.{re.escape(n)}\b", expression)), None)
    return _resulted_in_error(expression, read or error)


def validate(policy: ValidatingPolicy, request: Request) -> Decision:
    """One ValidatingAdmissionPolicy on a request: matchConditions, then every validation (validator.go Validate);
    the API error names the first failure (dispatcher.go), Warn bindings warn for each."""
    if not policy.match.matches(request):
        return Decision(policy.name)
    context = request.variables()
    fail = policy.failure_policy == FAIL
    matched, error = _conditions(policy.match_conditions, context)
    failures: list[Failure] = []
    if error is not None:
        if fail:
            failures.append(Failure(error, error=True))
    elif not matched:
        return Decision(policy.name)
    else:
        failed = _compose(policy.variables, context)
        for validation in policy.validations:
            try:
                verdict = evaluate(validation.expression, context)
            except (CelCompileError, CelEvaluationError) as problem:
                if fail:
                    failures.append(Failure(_evaluation_error(validation.expression, problem, failed), error=True))
                continue
            if verdict is not True:
                failures.append(Failure(_message(validation, context)))
    if not failures:
        return Decision(policy.name)
    header = f"ValidatingAdmissionPolicy '{policy.name}' with binding '{policy.binding}'"
    warnings = tuple(f"Validation failed for {header}: {f.message}" for f in failures) if WARN in policy.actions else ()
    denied = forbidden(request, f"{header} denied request: {failures[0].message}") if DENY in policy.actions else None
    return Decision(policy.name, denied, warnings, failures=tuple(failures))


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


def mutate(policy: MutatingPolicy, request: Request, obj: Mapping[str, Any]) -> tuple[dict[str, Any], Decision]:
    """One MutatingAdmissionPolicy's JSONPatch mutations on `obj`; returns the object it leaves and the decision
    (an error under failurePolicy Fail denies the request)."""
    current = copy.deepcopy(dict(obj))
    if not policy.match.matches(request):
        return current, Decision(policy.name)
    context = request.variables(current)
    header = f"MutatingAdmissionPolicy '{policy.name}' with binding '{policy.binding}'"
    matched, error = _conditions(policy.match_conditions, context)
    if error is None and not matched:
        return current, Decision(policy.name)
    failed = _compose(policy.variables, context) if error is None else {}
    changed = False
    for expression in policy.patches if error is None else ():
        try:
            operations = evaluate_json_patch(expression, {**context, "object": current})
            current = jsonpatch.apply_patch(current, operations)
            changed = changed or bool(operations)
        except jsonpatch.JsonPatchTestFailed:
            continue  # a failed test operation leaves the object as it was
        except (CelCompileError, CelEvaluationError) as e:
            error = _evaluation_error(expression, e, failed)
            break
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as e:
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
