"""GPU node user data that makes the NVIDIA container toolkit ignore NVIDIA_VISIBLE_DEVICES from unprivileged
containers, for every GPU node the platform launches on EKS: managed node groups' launch templates here, and any
later provisioner's node classes (Karpenter EC2NodeClass `userData`, which takes the same AL2023 MIME document and
Bottlerocket TOML). Pure: no Pulumi imports.

Why: the kubelet passes a claim's CDI devices (and with them NVIDIA_VISIBLE_DEVICES=void) only to the containers that
list the claim; any other container of a claimed pod keeps its image's NVIDIA_VISIBLE_DEVICES=all, and the AL2023
NVIDIA AMI makes the NVIDIA runtime containerd's default with the toolkit's defaults, which accept the variable from
unprivileged containers (dra_gpu_platform/facts/container_toolkit.py; docs/references.md#nvidia-toolkit-unprivileged-envvar).

- AL2023 NVIDIA (x86_64 and arm64): a MIME multi-part document (what EKS merges with its own NodeConfig part for a
  managed node group) whose `text/x-shellscript` part runs `nvidia-ctk config --in-place --set ...=false` and checks
  the result. cloud-init runs it in cloud-final, and nodeadm-run.service starts containerd and the kubelet only
  after cloud-final (awslabs/amazon-eks-ami@v20260724 templates/al2023/runtime/rootfs/etc/systemd/system/
  nodeadm-run.service:6), so no container ever starts under the default; nodeadm reads only the
  `application/node.eks.aws` parts (nodeadm/internal/configprovider/mime.go:34-74), so the NodeConfig parts stay its.
- Bottlerocket NVIDIA: `[settings.nvidia-container-runtime]` written out (its defaults are already safe; written so
  drift is visible and a policy can read them), beside the host DRA driver's settings on DRA pools.
"""

from __future__ import annotations

import base64
import email
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from dra_gpu_platform.facts import container_toolkit, eks_amis

BOUNDARY = "BOUNDARY"
NODE_CONFIG_TYPE = "application/node.eks.aws"
SHELL_TYPE = "text/x-shellscript"

# The one command that sets it (its presence is what the policy pack checks in a launch template's user data).
TOOLKIT_COMMAND = (
    f"nvidia-ctk config --config-file {container_toolkit.CONFIG_FILE} --in-place "
    f"--set {container_toolkit.ACCEPT_ENVVAR_UNPRIVILEGED}=false"
)
TOOLKIT_SCRIPT = f"""#!/bin/bash
# dra-gpu-platform: the NVIDIA runtime ignores NVIDIA_VISIBLE_DEVICES from unprivileged containers (docs/security.md,
# "GPU isolation per container"). cloud-final runs this before nodeadm starts containerd and the kubelet.
set -euo pipefail
{TOOLKIT_COMMAND}
grep -Eq '^[[:space:]]*{container_toolkit.ACCEPT_ENVVAR_UNPRIVILEGED}[[:space:]]*=[[:space:]]*false' \\
  {container_toolkit.CONFIG_FILE}
"""


def al2023_user_data(node_configs: Sequence[Mapping[str, Any]] = ()) -> str:
    """AL2023 NVIDIA user data (MIME multi-part, not encoded): the given nodeadm NodeConfig specs, each its own part,
    then the toolkit script."""
    parts = []
    for spec in node_configs:
        document = yaml.safe_dump(
            {"apiVersion": "node.eks.aws/v1alpha1", "kind": "NodeConfig", "spec": dict(spec)}, sort_keys=False
        )
        parts.append(f"--{BOUNDARY}\nContent-Type: {NODE_CONFIG_TYPE}\n\n---\n{document}\n")
    parts.append(f'--{BOUNDARY}\nContent-Type: {SHELL_TYPE}; charset="us-ascii"\n\n{TOOLKIT_SCRIPT}\n')
    return (
        f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{BOUNDARY}"\n\n'
        + "".join(parts)
        + f"--{BOUNDARY}--\n"
    )


def bottlerocket_settings(host_dra_driver: bool) -> dict[str, Any]:
    """Bottlerocket NVIDIA settings: the toolkit's, and on DRA pools the AMI's device plugin off and its host DRA
    driver on."""
    settings: dict[str, Any] = {container_toolkit.BOTTLEROCKET_TABLE: dict(container_toolkit.BOTTLEROCKET_SETTINGS)}
    if host_dra_driver:
        settings.update(eks_amis.BOTTLEROCKET_DRA_SETTINGS)
    return settings


def bottlerocket_user_data(host_dra_driver: bool) -> str:
    """Bottlerocket NVIDIA user data (TOML, not encoded)."""
    return eks_amis.bottlerocket_settings_toml(bottlerocket_settings(host_dra_driver))


def gpu_user_data(ami_type: str, *, host_dra_driver: bool = False, raid0: bool = False) -> str | None:
    """The user data (not encoded) of a GPU node of `ami_type`: Bottlerocket TOML or AL2023 MIME. None only for an AMI
    type without the NVIDIA toolkit."""
    if eks_amis.is_bottlerocket(ami_type):
        return bottlerocket_user_data(host_dra_driver)
    if ami_type in eks_amis.AL2023_NVIDIA_AMI_TYPES:
        return al2023_user_data([{"instance": {"localStorage": {"strategy": "RAID0"}}}] if raid0 else [])
    return None


def encoded(user_data: str) -> str:
    """Base64, as a launch template takes user data."""
    return base64.b64encode(user_data.encode()).decode()


# ---------------------------------------------------------------------------------------------------
# reading user data back (the policy pack and tests): does it harden the toolkit?


def al2023_hardens_toolkit(user_data: str) -> bool:
    """A MIME document with a shell part that runs the toolkit command."""
    message = email.message_from_string(user_data)
    if not message.is_multipart():
        return False
    for part in message.walk():
        payload = part.get_payload(decode=True) if part.get_content_type() == SHELL_TYPE else None
        if isinstance(payload, bytes) and TOOLKIT_COMMAND in payload.decode("utf-8", errors="replace"):
            return True
    return False


def bottlerocket_hardens_toolkit(settings: Mapping[str, Any]) -> bool:
    """Parsed Bottlerocket TOML whose settings keep the toolkit's safe values."""
    table = (settings.get("settings") or {}).get(container_toolkit.BOTTLEROCKET_TABLE)
    return isinstance(table, Mapping) and all(
        table.get(key) is value for key, value in container_toolkit.BOTTLEROCKET_SETTINGS.items()
    )
