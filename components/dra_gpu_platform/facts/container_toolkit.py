"""The NVIDIA container toolkit setting that decides whether an unprivileged container picks GPUs with
NVIDIA_VISIBLE_DEVICES, and where each kind of GPU node keeps it. Pure data.

A container that lists no claim gets no CDI edit from the kubelet, so nothing sets its NVIDIA_VISIBLE_DEVICES to
`void`; an image's `ENV NVIDIA_VISIBLE_DEVICES=all` (or a legacy CUDA image's implicit `all`) then hands it every GPU
of the node wherever the toolkit accepts the variable from unprivileged containers, which is its default. With the
setting false the runtime ignores the variable unless the container has CAP_SYS_ADMIN, which Pod Security baseline
and restricted never allow; CDI-injected devices (DRA claims, the device plugin's CDI strategies) are not affected.

Sources (docs/references.md#nvidia-toolkit-unprivileged-envvar):
- NVIDIA/nvidia-container-toolkit: the key, `AcceptEnvvarUnprivileged: true` by default (v1.18.1
  internal/config/config.go:64,106; v1.19.1 and v1.20.0 api/config/v1/config.go:64,106), the runtime ignoring the
  variable for unprivileged containers (v1.18.1 internal/config/image/cuda_image.go:258-292), the config file
  (api/config/v1/config.go:35 "nvidia-container-runtime/config.toml" under /etc), `nvidia-ctk config --in-place --set`
  (v1.19.1 cmd/nvidia-ctk/config/config.go:74-102), the operator toolkit container's environment variable (v1.18.1 and
  v1.20.0 cmd/nvidia-ctk-installer/toolkit/toolkit.go:157-163; v1.17.8 tools/container/toolkit/toolkit.go:166-171).
- NVIDIA/gpu-operator: `toolkit.env` (v25.10.1 deployments/gpu-operator/values.yaml:227, templates/clusterpolicy.yaml
  :440-441; v26.7.0 :236 and :460-461) copied onto the toolkit container (v25.10.1 controllers/object_controls.go
  :1324-1328); EnvVar values are strings (api/nvidia/v1/clusterpolicy_types.go EnvVar).
- bottlerocket-os/bottlerocket: `settings.nvidia-container-runtime` (sources/shared-defaults/
  nvidia-k8s-container-toolkit.toml:1-3, defaults volume-mounts true and envvar false; SECURITY_GUIDANCE.md:233-262).
"""

from __future__ import annotations

# /etc/nvidia-container-runtime/config.toml, top-level keys
CONFIG_FILE = "/etc/nvidia-container-runtime/config.toml"
ACCEPT_ENVVAR_UNPRIVILEGED = "accept-nvidia-visible-devices-envvar-when-unprivileged"
ACCEPT_AS_VOLUME_MOUNTS = "accept-nvidia-visible-devices-as-volume-mounts"

# The GPU Operator's toolkit container (nvidia-ctk-installer) reads the setting from this variable; the ClusterPolicy's
# EnvVar.value is a string, so "false", never a YAML boolean.
INSTALLER_ENVVAR_UNPRIVILEGED = "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED"
INSTALLER_VALUE = "false"

# Bottlerocket: [settings.nvidia-container-runtime], rendered into the same two keys (both already safe by default;
# the platform writes them so a policy can see them).
BOTTLEROCKET_TABLE = "nvidia-container-runtime"
BOTTLEROCKET_SETTINGS: dict[str, bool] = {
    "visible-devices-as-volume-mounts": True,
    "visible-devices-envvar-when-unprivileged": False,
}
