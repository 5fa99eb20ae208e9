"""The Monitoring component, inside the real program (offline) and alone from its plan: what it registers with and
without `monitoring.install`, the namespace created or required, the dcgm-exporter RBAC, with the cluster's
provider, and that the recorded PrometheusRule passes promtool."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.plans.monitoring import dashboard
from dra_gpu_platform.plans.monitoring import values as monitoring_values
from dra_gpu_platform.plans.monitoring.plan import monitoring_plan
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.engine.outputs import clean
from gpuplan.engine.sources import StackFileSource
from gpuplan.preview.stack import preview_stack
from tests.conftest import KIND_BASE, qualify, run_config, with_gpu_operator_on_dra, write_stack
from tests.monitoring_support import promtool, write_rules
from tests.resources.alone import provider, register

MONITORING = "dra-gpu-platform:monitoring:Monitoring"
RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
CONFIGMAP = "kubernetes:core/v1:ConfigMap"
RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"
# Your own Prometheus reads kube-state-metrics and the kubelet (install: false).
BYO = {"enabled": True, "externalSources": ["kube-state-metrics", "kubelet"]}


def _config(monitoring):
    config = copy.deepcopy(KIND_BASE)
    config["monitoring"] = monitoring
    return config


@pytest.fixture(scope="module")
def byo(tmp_path_factory):
    """Bring-your-own Prometheus (install: false), through `gpuplan preview` (run + manifests + validation)."""
    directory = tmp_path_factory.mktemp("byo")
    stack = write_stack(directory, _config(BYO), "byo")
    return preview_stack(StackFileSource.of(stack), directory / "out")


def _parsed(config):
    return parse_config_map(qualify(config), stack="test", source="Pulumi.test.yaml")


class Alone:
    """The Monitoring component registered alone from the stack's monitoring plan (no cluster, no platform)."""

    def __init__(self, config):
        from dra_gpu_platform.resources.monitoring import Monitoring, MonitoringArgs

        self.config = _parsed(config)
        plan = plan_stack(self.config).monitoring
        self.resources = register(lambda: Monitoring("gpu-test-monitoring", MonitoringArgs(plan, provider())))
        self.reads = self.resources.reads

    def of_type(self, *types):
        return [r for r in self.resources if r.type in types]


@pytest.fixture(scope="module")
def installed():
    return Alone(_config({"enabled": True, "install": True, "dashboard": False, "claimPendingMinutes": 20}))


def _in_monitoring(run):
    (component,) = run.of_type(MONITORING)
    return component, [r for r in run.resources if r.parent == component.urn]


def _configmaps(children):
    return {clean(r.inputs)["metadata"]["name"]: clean(r.inputs) for r in children if r.type == CONFIGMAP}


def test_monitoring_is_a_child_of_the_platform_and_uses_the_cluster_provider(byo):
    run = byo.run
    component, children = _in_monitoring(run)
    assert component.name == "gpu-test-monitoring"
    assert run.by_urn()[component.parent].type == "dra-gpu-platform:index:GpuPlatform"
    (provider,) = {r.provider for r in children}
    assert provider.endswith("::gpu-test-kind-k8s")
    assert sorted(r.type for r in children) == [CONFIGMAP, RULE]


def test_prometheus_rule_carries_the_rendered_groups(byo):
    run = byo.run
    (rule,) = run.of_type(RULE)
    inputs = clean(rule.inputs)
    assert inputs["apiVersion"] == "monitoring.coreos.com/v1" and inputs["kind"] == "PrometheusRule"
    assert inputs["metadata"]["namespace"] == "monitoring" and inputs["metadata"]["name"] == "dra-gpu-platform"
    assert inputs["metadata"]["labels"]["app.kubernetes.io/part-of"] == "dra-gpu-platform"
    assert inputs["spec"] == clean({"groups": monitoring_plan(run.config).rule_groups})


def test_recorded_prometheus_rule_passes_promtool(byo, tmp_path):
    (rule,) = byo.run.of_type(RULE)
    path = write_rules(tmp_path, clean(rule.inputs)["spec"]["groups"])
    result = promtool("check", "rules", path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dashboard_configmap_is_labelled_for_the_grafana_sidecar(byo):
    _, children = _in_monitoring(byo.run)
    configmap = _configmaps(children)["dra-gpu-platform-dashboard"]
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"
    text = configmap["data"][dashboard.FILE_NAME]
    assert text == dashboard.dashboard_json(monitoring_plan(byo.run.config).inputs)
    assert dashboard.to_json(dashboard.from_json(text)) == text
    assert json.loads(text)["uid"] == dashboard.UID


def test_without_install_the_namespace_must_exist_and_is_read_not_created(byo):
    run = byo.run
    _, children = _in_monitoring(run)
    assert NAMESPACE not in {r.type for r in children}
    (read,) = [r for r in run.reads if r.type == NAMESPACE]
    assert read.id == "monitoring" and read.name == "gpu-test-monitoring-namespace-existing"
    assert not [r for r in run.of_type(RELEASE) if clean(r.inputs).get("chart") == "kube-prometheus-stack"]
    # the example-driver kind stack has no GPU Operator: only the alerts of the declared exporters
    alerts = [r["alert"] for g in clean(run.of_type(RULE)[0].inputs)["spec"]["groups"] for r in g["rules"]]
    assert alerts == [
        "DraPodUnschedulable",
        "DraClaimPrepareFailing",
        "DraKubeletPluginCallsFailing",
        "DraKubeletPluginNotRunning",
        "DraPodClaimNotCreated",
    ]


def test_a_namespace_the_stack_is_told_to_create_is_created_in_the_configured_name():
    run = Alone(_config({**BYO, "namespace": "observability", "createNamespace": True}))
    _, children = _in_monitoring(run)
    (namespace,) = [r for r in children if r.type == NAMESPACE]
    assert clean(namespace.inputs)["metadata"]["name"] == "observability"
    assert not [r for r in run.reads if r.type == NAMESPACE]
    (rule,) = run.of_type(RULE)
    assert clean(rule.inputs)["metadata"]["namespace"] == "observability"


def test_dcgm_dra_mapping_gets_resourceslice_rbac_for_the_operators_exporter(tmp_path):
    config = with_gpu_operator_on_dra(_config(BYO))
    config["cluster"]["kind"] = {"gpuDriver": "nvidia"}
    run = run_config(tmp_path, config, "dcgm")
    _, children = _in_monitoring(run)
    (role,) = [r for r in children if r.type == "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"]
    (binding,) = [r for r in children if r.type == "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"]
    assert clean(role.inputs)["rules"] == [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"], "verbs": ["get", "list", "watch"]}
    ]
    subjects = clean(binding.inputs)["subjects"]
    assert subjects == [{"kind": "ServiceAccount", "name": "nvidia-dcgm-exporter", "namespace": "gpu-operator"}]
    operator = next(r for r in run.of_type(RELEASE) if clean(r.inputs)["chart"] == "gpu-operator")
    assert clean(operator.inputs)["values"]["dcgmExporter"]["env"] == [
        {"name": "KUBERNETES_ENABLE_DRA", "value": "true"}
    ]
    assert clean(operator.inputs)["namespace"] == subjects[0]["namespace"]


def test_preview_validates_the_monitoring_manifests(byo):
    assert byo.errors == []
    kinds = {yaml.safe_load(p.read_text())["kind"] for p in byo.manifests}
    assert {"PrometheusRule", "ConfigMap"} <= kinds


def test_install_adds_a_pinned_kube_prometheus_stack(installed):
    _component, children = _in_monitoring(installed)
    (release,) = [r for r in children if r.type == RELEASE]
    inputs = clean(release.inputs)
    assert (inputs["chart"], inputs["version"]) == ("kube-prometheus-stack", monitoring_values.VERSION)
    assert inputs["repositoryOpts"]["repo"] == monitoring_values.REPOSITORY
    assert inputs["namespace"] == "monitoring" and inputs["name"] == "kube-prometheus-stack"
    assert inputs["values"] == clean(monitoring_values.values(installed.config))
    (namespace,) = [r for r in children if r.type == "kubernetes:core/v1:Namespace"]
    assert clean(namespace.inputs)["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    assert namespace.urn in release.dependencies


def test_with_install_the_rule_waits_for_the_chart_and_thresholds_follow_the_stack(installed):
    _, children = _in_monitoring(installed)
    (release,) = [r for r in children if r.type == RELEASE]
    (rule,) = [r for r in children if r.type == RULE]
    assert release.urn in rule.dependencies
    pending = clean(rule.inputs)["spec"]["groups"][0]["rules"][0]
    assert pending["alert"] == "DraPodUnschedulable" and pending["for"] == "20m"
    # dashboard: false
    assert [r for r in children if r.type == CONFIGMAP] == []


def test_monitoring_off_plans_nothing():
    # GpuPlatform creates Monitoring only from a monitoring plan (dra_gpu_platform/resources/platform.py)
    assert plan_stack(_parsed(KIND_BASE)).monitoring is None
