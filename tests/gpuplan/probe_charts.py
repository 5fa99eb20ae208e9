"""Small Helm charts written for the render tests, with names of their own (never an upstream chart). Each reads
the values keys of the release it stands in for the way the real chart does (noted per template), so a real helm
renders the program's values into the objects `gpuplan render` places."""

from __future__ import annotations

from pathlib import Path

import yaml

from dra_gpu_platform.facts import versions

# probe-operator stands in for gpu-operator: a ClusterPolicy from the values (templates/clusterpolicy.yaml of the
# real chart copies these sections), its CRD, the NFD worker DaemonSet of the node-feature-discovery subchart
# (templates/worker.yaml: nodeSelector, affinity, tolerations), and a pre-delete hook Job.
OPERATOR_TEMPLATES = {
    "crd.yaml": """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterpolicies.nvidia.com
spec:
  group: nvidia.com
  names: {kind: ClusterPolicy, plural: clusterpolicies, singular: clusterpolicy, listKind: ClusterPolicyList}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
""",
    "clusterpolicy.yaml": """{{- if .Values.clusterPolicy.deployCR }}
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: cluster-policy
spec:
{{- $spec := dict "cdi" .Values.cdi "driver" .Values.driver "toolkit" .Values.toolkit "devicePlugin" .Values.devicePlugin "mig" .Values.mig "migManager" (merge (dict "config" (dict "default" "all-disabled")) .Values.migManager) "dcgmExporter" .Values.dcgmExporter "gfd" .Values.gfd "daemonsets" .Values.daemonsets }}
{{ toYaml $spec | indent 2 }}
{{- end }}
""",
    # v26.7.0 templates/gpucluster.yaml: the GPUCluster instead of the ClusterPolicy (validations.yaml refuses both)
    "gpucluster.yaml": """{{- if .Values.gpuCluster.deployCR }}
apiVersion: nvidia.com/v1alpha1
kind: GPUCluster
metadata:
  name: gpu-cluster
spec:
{{- $spec := dict "draDriver" .Values.draDriver "dcgmExporter" .Values.dcgmExporter "daemonsets" .Values.daemonsets }}
{{ toYaml $spec | indent 2 }}
{{- end }}
""",
    "nfd-worker.yaml": """{{- $w := index .Values "node-feature-discovery" "worker" }}
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}-probe-nfd-worker
  labels: {app.kubernetes.io/name: node-feature-discovery, role: worker}
spec:
  selector: {matchLabels: {app: probe-nfd-worker}}
  template:
    metadata: {labels: {app: probe-nfd-worker}}
    spec:
      containers: [{name: worker, image: "registry.example/probe-nfd:1"}]
      {{- with $w.nodeSelector }}
      nodeSelector: {{ toYaml . | nindent 8 }}
      {{- end }}
      {{- with $w.affinity }}
      affinity: {{ toYaml . | nindent 8 }}
      {{- end }}
      {{- with $w.tolerations }}
      tolerations: {{ toYaml . | nindent 8 }}
      {{- end }}
""",
    "cleanup-hook.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-probe-cleanup
  annotations: {"helm.sh/hook": pre-delete}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: cleanup, image: "registry.example/probe-cleanup:1"}]
""",
}

# probe-dra-driver stands in for dra-driver-nvidia-gpu: the kubelet plugin DaemonSet (templates/kubeletplugin.yaml:
# nodeSelector, affinity, tolerations; nvidiaDriverRoot; resourceApiVersion), the controller only with
# ComputeDomains (templates/controller.yaml:15). It reads no gpuResourcesEnabledOverride (the real chart's
# validation.yaml does), which --check-values must report.
DRA_TEMPLATES = {
    "kubeletplugin.yaml": """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}-kubelet-plugin
  annotations: {probe/resource-api: {{ .Values.resourceApiVersion | default "detect" | quote }}}
spec:
  selector: {matchLabels: {app: probe-kubelet-plugin}}
  template:
    metadata: {labels: {app: probe-kubelet-plugin}}
    spec:
      containers:
      - name: plugin
        image: "registry.example/probe-dra:1"
        env: [{name: DRIVER_ROOT, value: {{ .Values.nvidiaDriverRoot | quote }}}]
      {{- if not .Values.probeIgnoresNodeSelector }}
      {{- with .Values.kubeletPlugin.nodeSelector }}
      nodeSelector: {{ toYaml . | nindent 8 }}
      {{- end }}
      {{- end }}
      {{- with .Values.kubeletPlugin.affinity }}
      affinity: {{ toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.kubeletPlugin.tolerations }}
      tolerations: {{ toYaml . | nindent 8 }}
      {{- end }}
""",
    "controller.yaml": """{{- if .Values.resources.computeDomains.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-controller
spec:
  selector: {matchLabels: {app: probe-controller}}
  template:
    metadata: {labels: {app: probe-controller}}
    spec:
      containers: [{name: controller, image: "registry.example/probe-dra:1"}]
{{- end }}
""",
}


# probe-efa-plugin stands in for aws-efa-k8s-device-plugin v0.5.30 (docs/references.md#efa-device-plugin-chart,
# templates/daemonset.yaml:34-63): tolerations CriticalAddonsOnly plus .Values.tolerations, .Values.nodeSelector, and a
# required node affinity per key of .Values.supportedInstanceLabels (In its values; the last term also excludes EKS Auto
# Mode nodes, as the chart's does). The real values.yaml lists every EFA instance type; the probe's values name a few of
# them, p6-b200.48xlarge among them.
EFA_TEMPLATES = {
    "daemonset.yaml": """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}
spec:
  selector: {matchLabels: {name: {{ .Release.Name }}}}
  template:
    metadata: {labels: {name: {{ .Release.Name }}}}
    spec:
      tolerations:
        - key: CriticalAddonsOnly
          operator: Exists
        {{- with .Values.tolerations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector: {{ toYaml . | nindent 8 }}
      {{- end }}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              {{- range .Values.supportedInstanceLabels.keys }}
              - matchExpressions:
                - key: {{ . }}
                  operator: In
                  values: {{ toYaml $.Values.supportedInstanceLabels.values | nindent 20 }}
              {{- end }}
                - key: eks.amazonaws.com/compute-type
                  operator: NotIn
                  values: [auto]
      containers: [{name: plugin, image: "registry.example/probe-efa:1"}]
""",
}
EFA_VALUES = {
    "supportedInstanceLabels": {
        "keys": ["node.kubernetes.io/instance-type"],
        "values": ["g5.12xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge", "p6e-gb200.36xlarge"],
    },
    "nodeSelector": {},
    "tolerations": [],
}

# probe-autoscaler stands in for cluster-autoscaler: one Deployment (no DaemonSet, so it places nothing on the pools).
AUTOSCALER_TEMPLATES = {
    "deployment.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-probe
spec:
  selector: {matchLabels: {app: probe-autoscaler}}
  template:
    metadata: {labels: {app: probe-autoscaler}}
    spec:
      containers: [{name: autoscaler, image: "registry.example/probe-autoscaler:1"}]
      {{- with .Values.nodeSelector }}
      nodeSelector: {{ toYaml . | nindent 8 }}
      {{- end }}
""",
}


# probe-karpenter stands in for the Karpenter chart: its controller Deployment with the chart's default affinity (never
# on nodes Karpenter manages) and the stack's nodeSelector; no CRDs, so the stack's NodePools stay unvalidated.
KARPENTER_TEMPLATES = {
    "deployment.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: probe-karpenter}}
  template:
    metadata: {labels: {app: probe-karpenter}}
    spec:
      containers: [{name: controller, image: "registry.example/probe-karpenter:1"}]
      nodeSelector: {{ toYaml .Values.nodeSelector | nindent 8 }}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: karpenter.sh/nodepool, operator: DoesNotExist}
""",
}


def write_karpenter_chart(root: Path, version: str) -> Path:
    return write_chart(
        root / f"karpenter-{version}",
        "probe-karpenter",
        version,
        KARPENTER_TEMPLATES,
        {
            "replicas": 2,
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "settings": {},
            "serviceAccount": {},
            "controller": {},
        },
    )


def write_chart(folder: Path, name: str, version: str, templates: dict[str, str], values: dict | None = None) -> Path:
    (folder / "templates").mkdir(parents=True, exist_ok=True)
    (folder / "Chart.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v2", "name": name, "version": version}), encoding="utf-8"
    )
    (folder / "values.yaml").write_text(yaml.safe_dump(values or {}), encoding="utf-8")
    for filename, text in templates.items():
        (folder / "templates" / filename).write_text(text, encoding="utf-8")
    return folder


def write_charts(root: Path, operator_version: str = versions.GPU_OPERATOR_DEFAULT, dra_version: str = "0.4.1") -> Path:
    """A --charts folder: <chart>-<version>/ as the stack's releases name them, holding the probe charts (the GPU
    Operator at the version a stack gets without a pin)."""
    write_chart(
        root / f"gpu-operator-{operator_version}",
        "probe-operator",
        operator_version,
        OPERATOR_TEMPLATES,
        {
            "node-feature-discovery": {"worker": {}},
            "migManager": {},
            "clusterPolicy": {"deployCR": True},
            "gpuCluster": {"deployCR": False},
        },
    )
    write_chart(
        root / f"dra-driver-nvidia-gpu-{dra_version}",
        "probe-dra-driver",
        dra_version,
        DRA_TEMPLATES,
        {"kubeletPlugin": {}, "resources": {"computeDomains": {"enabled": False}}},
    )
    return root


def write_eks_addon_charts(root: Path, efa_version: str = "v0.5.30", autoscaler_version: str = "9.59.0") -> Path:
    """The EKS add-on charts an EKS stack's render needs beside the GPU charts: the EFA device plugin (EFA pools) and
    the cluster autoscaler, as probes in the same --charts folder."""
    write_chart(
        root / f"aws-efa-k8s-device-plugin-{efa_version}", "probe-efa-plugin", efa_version, EFA_TEMPLATES, EFA_VALUES
    )
    write_chart(
        root / f"cluster-autoscaler-{autoscaler_version}", "probe-autoscaler", autoscaler_version, AUTOSCALER_TEMPLATES
    )
    return root
