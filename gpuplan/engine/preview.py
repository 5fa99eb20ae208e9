"""The run behind `gpuplan preview` (and every command that previews first): the program offline, plan.json and
manifests written, each manifest validated with kubernetes-validate --strict for the stack's Kubernetes versions."""

from __future__ import annotations

from pathlib import Path

import yaml

from components.plans import kind as kind_config
from components.plans.monitoring.alerts import PROMETHEUS_RULE_API, prometheus_rule_errors
from gpuplan.checks.kube_validate import ManifestError, validate_document, versions_for
from gpuplan.engine.outputs import write_outputs
from gpuplan.engine.runtime import run_program


def preview_stack(stack_file: Path, out: Path):
    """Shared by other commands: run + write outputs + validate. Returns (run, manifests, errors)."""
    run = run_program(stack_file)
    extra = {}
    if run.config.platform == "kind":
        extra["kind-config.yaml"] = kind_config.render_yaml(run.config)
    out.mkdir(parents=True, exist_ok=True)
    manifests = write_outputs(run, out, extra)
    errors = []
    checked = versions_for(run.config.cluster.kubernetes_version)
    for path in manifests:
        # libyaml's parser when present: the pure-Python one was the largest cost of a 2,000-object preview.
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if doc.get("apiVersion") == PROMETHEUS_RULE_API:
            # A Prometheus Operator CRD: not in Kubernetes' schemas, checked against the rule format instead.
            errors.extend(ManifestError(str(path), "CRD", where, message) for where, message in prometheus_rule_errors(doc))
            continue
        for version in checked:
            errors.extend(validate_document(doc, version, str(path)))
    return run, manifests, checked, errors
