"""Outputs the mock runtime returns for resources and invokes that compute values in a real deployment
(kubeconfigs, ARNs, zones). Values are fixed and fake, so offline runs are byte-identical."""

from __future__ import annotations

from typing import Any, Callable

from components.config import StackConfig

FAKE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: offline
  cluster: {server: "https://offline.invalid:6443"}
contexts:
- name: offline
  context: {cluster: offline, user: offline}
current-context: offline
users:
- name: offline
  user: {token: offline}
"""

ResourceOutputs = Callable[[str, dict[str, Any], StackConfig], dict[str, Any]]
InvokeResult = Callable[[dict[str, Any], StackConfig], dict[str, Any]]

# type token -> extra outputs; extended by the cloud components' needs
RESOURCE_OUTPUTS: dict[str, ResourceOutputs] = {
    "command:local:Command": lambda name, inputs, config: {"stdout": FAKE_KUBECONFIG, "stderr": ""},
}

INVOKES: dict[str, InvokeResult] = {}


def outputs_for(type_: str, name: str, inputs: dict[str, Any], config: StackConfig) -> dict[str, Any]:
    handler = RESOURCE_OUTPUTS.get(type_)
    return handler(name, inputs, config) if handler else {}


def invoke(token: str, args: dict[str, Any], config: StackConfig) -> dict[str, Any]:
    handler = INVOKES.get(token)
    return handler(args, config) if handler else {}
