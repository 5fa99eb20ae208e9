"""--check-values tells a key no template reads from a key a template reads, even when a template only tests it
(`{{ if .Values.x }}`, as cluster-autoscaler 9.59.0 does with autoDiscovery.clusterName)."""

from __future__ import annotations

from gpuplan.render import charts, helm, values_check

SWITCH_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: switch-probe\nversion: 1.0.0\n",
    "values.yaml": "discovery: {}\n",
    "templates/configmap.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n"
        "  {{- if .Values.discovery.clusterName }}\n  mode: auto\n  {{- end }}\n"
        '  tags: {{ join "," .Values.discovery.tags | quote }}\n'
    ),
}


def test_a_key_read_only_as_a_switch_is_read_and_a_dead_key_is_not(helm_path, tmp_path):
    chart = tmp_path / "charts" / "switch-probe-1.0.0"
    for name, text in SWITCH_CHART.items():
        (chart / name).parent.mkdir(parents=True, exist_ok=True)
        (chart / name).write_text(text)
    values = {"discovery": {"clusterName": "gpu-prod", "tags": ["a", "b"], "unused": "x"}}
    release = helm.ReleaseSpec("probe", "switch-probe", "1.0.0", None, "default", values)
    source = charts.ChartSource(str(chart), chart, "1.0.0")
    rendered = helm.render(helm_path, release, tmp_path / "work", kube_version="1.35.0", api_versions=[], chart=source)
    assert rendered.error is None, rendered.error
    unread = values_check.unread_keys(helm_path, rendered, tmp_path / "work", kube_version="1.35.0", api_versions=[])
    assert unread == ["discovery.unused"]
