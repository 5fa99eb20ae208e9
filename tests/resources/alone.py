"""One component under Pulumi mocks, alone: no stack file, no config, no GpuPlatform, only the plan a test hands it.

`register(build)` runs `build()` (which creates the component and whatever wiring it takes: a Kubernetes provider,
Outputs standing in for a cluster's name) under the mock runtime and returns every registration with its parent,
provider, protect and inputs, recorded by the same monitor `gpuplan preview` uses. Hand-built plans for the tests
live here too, written out field by field, so a component's test says exactly what the component is given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import settings

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.plans.node_pools import GPU_TAINT, PoolPlan, PoolTaint
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.engine import mock_outputs
from gpuplan.engine.outputs import clean
from gpuplan.engine.runtime import Read, RecordingMonitor, Registration

PROJECT, STACK = "alone", "test"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
KUBECONFIG = "apiVersion: v1\nkind: Config\n"


class _Mocks(pulumi_mocks.Mocks):
    """Every resource's state is its inputs, plus what EKS computes that the node pool reads back. With `config`
    (a cluster component's test), the clouds' computed outputs and invokes `gpuplan preview` fakes
    (gpuplan/engine/mock_outputs.py, which reads only the region from it)."""

    def __init__(self, config: StackConfig | None = None):
        self.scope = mock_outputs.CloudScope.of(plan_stack(config)) if config is not None else None

    def new_resource(self, args: pulumi_mocks.MockResourceArgs):
        state = dict(args.inputs)
        if self.scope is not None:
            state.update(mock_outputs.outputs_for(args.typ, args.name, args.inputs, self.scope))
        elif args.typ == NODE_GROUP:
            state["resources"] = [{"autoscalingGroups": [{"name": f"eks-{args.name}-asg"}]}]
            state["arn"] = f"arn:aws:eks:us-east-1:123456789012:nodegroup/{args.name}"
        elif args.typ == LAUNCH_TEMPLATE:
            state["latestVersion"] = 1
        return f"{args.name}-id", state

    def call(self, args: pulumi_mocks.MockCallArgs):
        return mock_outputs.invoke(args.token, args.args, self.scope) if self.scope is not None else {}


class _Logs(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelname.lower(), record.getMessage()))


class Registered(list):
    """The registrations, in order; `reads`: the existing objects the component reads (`Resource.get`); `logs`:
    (severity, message) of what it logs."""

    reads: list[Read]
    logs: list[tuple[str, str]]

    @property
    def resources(self) -> list[Registration]:
        return list(self)

    def of_type(self, *types: str) -> list[Registration]:
        return [r for r in self if r.type in types]


def register(
    build: Callable[[], Any], config: StackConfig | None = None, stack: str = STACK, project: str = PROJECT
) -> Registered:
    """Run `build` under the mock runtime; every resource it registers, in registration order."""
    mocks = _Mocks(config)
    monitor = RecordingMonitor(mocks)
    logs = _Logs()
    logger = logging.getLogger(f"tests.resources.alone.{stack}")
    logger.handlers, logger.propagate = [logs], False
    logger.setLevel(logging.INFO)
    settings.ROOT.set(None)  # a fresh root Stack: runs never share state
    pulumi_mocks.set_mocks(mocks, project=project, stack=stack, preview=True, monitor=monitor, logger=logger)

    @pulumi.runtime.test
    def run():
        build()

    run()
    registered = Registered(monitor.registrations)
    registered.reads = list(monitor.reads)
    registered.logs = list(logs.records)
    return registered


def provider() -> Any:
    import pulumi_kubernetes as k8s

    return k8s.Provider("k8s", kubeconfig=KUBECONFIG)


def of_type(registrations: list[Registration], type_: str) -> list[Registration]:
    return [r for r in registrations if r.type == type_]


def inputs(registration: Registration) -> dict[str, Any]:
    return clean(registration.inputs)


def gpu_pool(**fields: Any) -> PoolPlan:
    """A hand-built EKS pool: two p5.48xlarge nodes with 8 H100s each, DRA, on demand, autoscaled 0..2."""
    shape = catalog.instance_type("eks", fields.get("instance_type", "p5.48xlarge"))
    plan: dict[str, Any] = {
        "name": "train",
        "platform": "eks",
        "gpu": "H100",
        "gpu_stack": "dra",
        "instance_type": "p5.48xlarge",
        "shape": shape,
        "gpus_per_node": 8,
        "gpus_per_pcie_root": 2,
        "labels": {"dra-gpu-platform.io/pool": "train", "nvidia.com/dra-kubelet-plugin": "true", "team": "ml"},
        "taints": (GPU_TAINT,),
        "min_nodes": 0,
        "max_nodes": 2,
        "desired_nodes": 0,
        "autoscaled": True,
        "disk_size_gb": 300,
        "ami_type": "AL2023_x86_64_NVIDIA",
    }
    plan.update(fields)
    return PoolPlan(**plan)


def spot_taint() -> PoolTaint:
    return PoolTaint.of("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")


def cluster_alone(config: dict[str, Any], stack: str) -> Registered:
    """A stack's cluster component alone from the stack's cluster plan: no GPU software, no tenants."""
    from dra_gpu_platform.config.loading import parse_config_map
    from dra_gpu_platform.plans.stack import plan_stack
    from tests.conftest import qualify

    parsed = parse_config_map(qualify(config), stack=stack, source=f"Pulumi.{stack}.yaml")
    plan = plan_stack(parsed)

    def build() -> None:
        if plan.platform == "aks":
            from dra_gpu_platform.resources.clusters.aks import AksCluster, AksClusterArgs

            AksCluster(f"{plan.name}-aks", AksClusterArgs(plan.cluster))
        elif plan.platform == "eks":
            from dra_gpu_platform.resources.clusters.eks import EksCluster, EksClusterArgs

            EksCluster(f"{plan.name}-eks", EksClusterArgs(plan.cluster))
        elif plan.platform == "kind":
            from dra_gpu_platform.resources.clusters.kind import KindCluster, KindClusterArgs

            KindCluster(f"{plan.name}-kind", KindClusterArgs(plan.cluster))
        else:
            from dra_gpu_platform.resources.clusters.existing import ExistingCluster, ExistingClusterArgs

            ExistingCluster(f"{plan.name}-existing", ExistingClusterArgs(plan.cluster, KUBECONFIG))

    return register(build, config=parsed, stack=stack)
