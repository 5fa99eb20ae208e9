"""`gpuplan fit`'s evaluation: the stack's own claim templates (and --claims manifests) against the stack's simulated
DRA inventory (or a cluster dump), with the scheduler's allocation rules (components/dra/allocator.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from components.config.models import StackConfig
from components.config.problems import InputError
from components.dra.allocator import Simulator
from components.dra.quota import quota_limit
from components.dra.slices import Inventory, chart_device_classes, dump_inventory
from components.plans.stack_inventory import stack_inventory
from gpuplan.engine.outputs import is_kubernetes_object, manifest
from gpuplan.fit.inputs import ADMIN_ACCESS_LABEL, ClaimEntry, FitInputs, add_claim_files, add_stack_objects, read_documents

STACK_KINDS = ("DeviceClass", "ResourceClaimTemplate", "ResourceQuota", "Namespace", "DeviceTaintRule")
RESULT_KEYS = ("source", "namespace", "name", "satisfiable", "allocations", "maxConcurrent", "quotaLimit", "reasons", "errors")


def stack_manifests(run) -> list[dict[str, Any]]:
    """The DRA objects the stack would deploy, exactly as recorded by the offline program run."""
    return [manifest(r) for r in run.resources if is_kubernetes_object(r) and r.inputs.get("kind") in STACK_KINDS]


def chart_classes(config: StackConfig) -> list[dict[str, Any]]:
    version = None if config.uses_example_driver else config.dra_driver.version
    return chart_device_classes(config.driver_device_classes(), version)


def load_inventory(config: StackConfig, inventory_file: Optional[Path]) -> Inventory:
    simulated = stack_inventory(config)
    if inventory_file is None:
        return simulated
    documents, problems = read_documents(inventory_file)
    if problems:
        raise InputError(problems, str(inventory_file))
    # A dump of this stack's cluster names nodes as the simulation does (kind workers): keep its pool names.
    return dump_inventory(documents, str(inventory_file)).with_node_pools(simulated.node_pools)


def fit_report(run, claim_files: list[Path] | None = None, inventory_file: Optional[Path] = None) -> dict[str, Any]:
    """Evaluate a recorded program run; returns {"claims": [...], "inventory": {...}, "notes": [...]}.
    Raises InputError for unreadable or invalid claim files and inventories."""
    config: StackConfig = run.config
    source = f"stack:{run.stack}"
    inputs = FitInputs(extended_gate=config.dra_driver.extended_resource_bridge,
                       plugin_pools=tuple(p.name for p in config.device_plugin_pools))
    add_stack_objects(inputs, stack_manifests(run), chart_classes(config), source)
    problems = add_claim_files(inputs, list(claim_files or []), config.cluster.kubernetes_version, source)
    if problems:
        raise InputError(problems, "the claim files")
    inventory = load_inventory(config, inventory_file)
    nodes = inventory.nodes(inputs.taint_rules)
    simulator = Simulator(nodes, inputs.classes)
    claims = [evaluate_entry(simulator, entry, inputs) for entry in inputs.entries]
    drivers = sorted({d.driver for n in nodes for d in n.devices})
    return {
        "claims": claims,
        "inventory": {"source": inventory.source, "nodes": len(nodes), "devices": sum(len(n.devices) for n in nodes),
                      "drivers": drivers, "notes": list(inventory.notes)},
        "notes": inputs.notes,
        "stats": {"selectorEvaluations": simulator.stats.evaluations, "selectorLookups": simulator.stats.lookups},
    }


def evaluate_entry(simulator: Simulator, entry: ClaimEntry, inputs: FitInputs) -> dict[str, Any]:
    result: dict[str, Any] = {
        "source": entry.source, "namespace": entry.namespace, "name": entry.name, "satisfiable": False,
        "allocations": [], "maxConcurrent": 0, "quotaLimit": None, "reasons": list(entry.reasons), "errors": list(entry.errors),
    }
    spec = entry.spec
    if spec is None or entry.errors:
        return result
    result["quotaLimit"] = quota_limit(spec, inputs.quotas.get(entry.namespace, []))
    outcome = simulator.evaluate_claim(spec, single=entry.single)
    result["errors"] += outcome.errors
    blockers = list(entry.reasons)
    if spec.admin_access and entry.namespace in inputs.namespaces and inputs.namespaces[entry.namespace].get(ADMIN_ACCESS_LABEL) != "true":
        blockers.append(f"adminAccess needs the namespace label {ADMIN_ACCESS_LABEL}: \"true\"; namespace {entry.namespace} "
                        "lacks it, so the API server rejects the claim")
    if entry.kind == "extended-resources" and spec.requests and not inputs.extended_gate:
        resources = ", ".join(dict.fromkeys(entry.extended_resources))
        fits = f"; with the gate the claim would fit on pool(s) {', '.join(outcome.pools)}" if outcome.pools else ""
        blockers.append(f"DRA serves extended resources ({resources}) only with the DRAExtendedResource feature gate (alpha in "
                        f"Kubernetes 1.34/1.35), which this stack leaves off (draDriver.extendedResourceBridge: false){fits}")
    if blockers:
        result["reasons"] = blockers
        return result
    result["satisfiable"] = outcome.satisfiable and not outcome.errors
    result["allocations"] = outcome.allocations
    result["maxConcurrent"] = outcome.max_concurrent
    result["reasons"] = outcome.reasons
    return result


def failing(claims: list[dict[str, Any]]) -> bool:
    return any(not c["satisfiable"] or c["errors"] for c in claims)


def binds(claim: dict[str, Any]) -> str:
    """What limits how many claims run at once: the namespace quota or the capacity."""
    quota, capacity = claim["quotaLimit"], claim["maxConcurrent"]
    if not claim["satisfiable"]:
        return "-"
    if quota is None or capacity < quota:
        return "capacity"
    return "quota" if quota < capacity else "both"
