"""One descriptor per finer component (EksGpuNodePool, AksGpuNodePool, DeviceClasses, TenantNamespace, GpuOperator,
DraDriver): the stack-file sections it takes, its arguments with their docs, and where its part sits in the
StackPlan. Pure data: no Pulumi imports.

Everything that spells a finer component's arguments reads them here, so a new argument is one edit:
- dra_gpu_platform/config/parts.py binds a call's arguments (an unknown or a missing one is a problem) and validates
  the sections on the cluster the arguments describe;
- dra_gpu_platform/plans/parts.py plans those sections and picks the component's part, the one GpuPlatform gives it;
- each resource's `<Component>Args.from_sections(sections, **arguments)` takes the part and the arguments it keeps;
- provider/arguments.py makes the hosted arguments the component package's inputs (provider/generate.py writes their
  types and the schema from there).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from dra_gpu_platform.config.validation import SECTIONS
from dra_gpu_platform.facts import platforms

# The platforms a finer component composes on: those whose clusters exist apart from this package's GpuPlatform
# (dra_gpu_platform/facts/platforms.py hosts_finer_components).
COMPONENT_PLATFORMS: tuple[str, ...] = tuple(
    name for name, profile in platforms.PROFILES.items() if profile.hosts_finer_components
)

# The stack-file sections a finer component takes: every section but `cluster`, whose content are arguments here.
PART_SECTIONS: tuple[str, ...] = tuple(key for key in SECTIONS if key != "cluster")


@dataclass(frozen=True)
class Argument:
    """One keyword of a component's `from_sections`, and (hosted) an input of the component package."""

    name: str  # the library's keyword, the input's Python name (the schema says it in camelCase)
    annotation: str  # its type, as the library's keyword and the provider's input type spell it
    required: bool
    doc: str
    # a plain value, known when the program runs (what is built depends on it); False: wiring, an Output will do
    known: bool = True
    secret: bool = False
    choices: tuple[str, ...] = ()  # the values it takes (the provider's input is then an enum)
    default: Any = None  # what an optional argument is when left out
    fills: str = ""  # the stack-file key it stands for, validated as that key (cluster.kubernetesVersion, region)
    names_item: bool = False  # it names the item of the component's list section that the component builds
    kept: bool = False  # the component's Args keep it as it is (a field of the same name)
    waited_for: bool = False  # a component the part waits for when the plan says so (PlanPart.waits_when)
    hosted: bool = True  # an input of the hosted component (False: a library object, or from the resource options)


@dataclass(frozen=True)
class Refusal:
    """A problem a call meets whatever its values: where it points, the rule and the fix."""

    path: str
    rule: str
    fix: str


@dataclass(frozen=True)
class PlanPart:
    """Where a component's part sits in the StackPlan: an attribute path from the plan; for a list, the item whose
    `key` (an attribute path of the item) is the value of the component's item argument."""

    path: tuple[str, ...]
    key: tuple[str, ...] = ("name",)
    absent: Refusal | None = None  # when the plan has none (the value shown is False): sections that install none
    # a plan attribute path: when it holds, the part waits for the argument `waited_for`, which must then be given
    waits_when: tuple[str, ...] = ()
    waits_refusal: Refusal | None = None


@dataclass(frozen=True)
class FinerComponent:
    name: str  # the component's class, the hosted component's type name
    arguments: tuple[Argument, ...]
    plan_part: PlanPart
    platform: str | None = None  # the one platform it serves (a node pool's cloud); None: the `platform` argument
    item_section: str | None = None  # the list section whose item it builds (nodePools, namespaces)
    sections: tuple[str, ...] = PART_SECTIONS

    @property
    def item(self) -> Argument | None:
        return next((a for a in self.arguments if a.names_item), None)

    @property
    def waited_for(self) -> Argument | None:
        return next((a for a in self.arguments if a.waited_for), None)

    @property
    def hosted_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.hosted)

    @property
    def kubernetes(self) -> bool:
        """It takes the cluster's Kubernetes provider (the hosted component: from its resource options)."""
        return any(a.name == PROVIDER.name for a in self.arguments)

    def argument(self, name: str) -> Argument | None:
        return next((a for a in self.arguments if a.name == name), None)


REGION_DOC = (
    "Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location "
    "(`azure-native:location`)."
)
PLATFORM_DOC = (
    "The platform of the cluster the component is composed on: eks, aks, or existing for any other (a kind cluster "
    "you run yourself too)."
)
PLATFORM = Argument("platform", "str", True, PLATFORM_DOC, choices=COMPONENT_PLATFORMS, fills="cluster.platform")
KUBERNETES_VERSION = Argument(
    "kubernetes_version",
    "str",
    True,
    "The cluster's Kubernetes minor, e.g. \"1.35\" (the stack file's cluster.kubernetesVersion).",
    fills="cluster.kubernetesVersion",
)
REGION_FOR_EKS_OR_AKS = Argument(
    "region", "str", False, REGION_DOC + " Needed on eks and aks, as in a stack file.", fills="region"
)
PROVIDER = Argument(
    "provider",
    "pulumi_kubernetes.Provider",
    True,
    "The cluster's Kubernetes provider, which every object the component creates uses (the hosted component takes "
    "it from its resource options' `providers`).",
    known=False,
    kept=True,
    hosted=False,
)
# What a Kubernetes-side component takes besides its own arguments: the cluster and its provider.
ON_A_CLUSTER = (PLATFORM, KUBERNETES_VERSION, REGION_FOR_EKS_OR_AKS, PROVIDER)


def _protect(what: str) -> Argument:
    doc = f"Protect {what} from deletion (the stack file's cluster.protect)."
    return Argument("protect", "bool", False, doc, default=False, kept=True)


def _wiring(name: str, annotation: str, doc: str) -> Argument:
    """The existing cluster's wiring a pool needs: it may be the output of another resource."""
    return Argument(name, annotation, True, doc, known=False, kept=True)


def _pool_arguments(cloud: str) -> tuple[Argument, ...]:
    return (
        Argument("pool", "str", True, "The name of the pool to build, an item of nodePools.", names_item=True),
        Argument(
            "cluster_name",
            "str",
            True,
            f"The name of the existing {cloud} cluster the pool joins. Known when the program runs"
            + (": the cluster autoscaler's discovery tags carry it." if cloud == "EKS" else "."),
            fills="cluster.name",
            kept=True,
        ),
        replace(KUBERNETES_VERSION, kept=True),
        Argument("region", "str", True, REGION_DOC, fills="region"),
    )


EKS_GPU_NODE_POOL = FinerComponent(
    "EksGpuNodePool",
    (
        *_pool_arguments("EKS"),
        _wiring("node_role_arn", "pulumi.Input[str]", "The ARN of the cluster's node IAM role."),
        _wiring(
            "subnet_ids",
            "pulumi.Input[list[str]]",
            "The private subnets the pool's nodes run in (one zone's with availabilityZone).",
        ),
        _wiring(
            "cluster_security_group_id",
            "pulumi.Input[str]",
            "The cluster security group, which the pool's EFA interfaces join.",
        ),
        _protect("the node group"),
        Argument(
            "tags", "dict[str, str]", False, "AWS tags of the pool's resources, besides the cluster's own.", kept=True
        ),
        Argument(
            "after",
            "Sequence[pulumi.Resource]",
            False,
            "What the node group waits for: the node role's policies and the add-ons nodes need to become Ready.",
            known=False,
            default=(),
            kept=True,
            hosted=False,
        ),
    ),
    PlanPart(("cluster", "node_groups"), key=("pool", "name")),
    platform="eks",
    item_section="nodePools",
)

AKS_GPU_NODE_POOL = FinerComponent(
    "AksGpuNodePool",
    (
        *_pool_arguments("AKS"),
        _wiring("resource_group_name", "pulumi.Input[str]", "The resource group of the AKS cluster."),
        _protect("the agent pool"),
    ),
    PlanPart(("cluster", "agent_pools"), key=("pool", "name")),
    platform="aks",
    item_section="nodePools",
)

DEVICE_CLASSES = FinerComponent("DeviceClasses", ON_A_CLUSTER, PlanPart(("device_classes",)))

TENANT_NAMESPACE = FinerComponent(
    "TenantNamespace",
    (
        Argument(
            "namespace", "str", True, "The name of the namespace to build, an item of namespaces.", names_item=True
        ),
        PLATFORM,
        KUBERNETES_VERSION,
        REGION_FOR_EKS_OR_AKS,
        _protect("what it creates"),
        PROVIDER,
    ),
    PlanPart(("namespaces",)),
    item_section="namespaces",
)

GPU_OPERATOR = FinerComponent(
    "GpuOperator",
    ON_A_CLUSTER,
    PlanPart(
        ("software", "gpu_operator"),
        absent=Refusal(
            "gpuOperator.enabled",
            "these sections install no GPU Operator",
            "leave out the GpuOperator component, or remove gpuOperator.enabled: false",
        ),
    ),
)

DRA_DRIVER = FinerComponent(
    "DraDriver",
    (
        *ON_A_CLUSTER,
        Argument(
            "gpu_operator",
            "GpuOperator",
            False,
            "The GpuOperator component, which the driver waits for when the operator installs the NVIDIA driver, as "
            "in GpuPlatform (the hosted component takes it from its resource options' `dependsOn`).",
            known=False,
            waited_for=True,
            hosted=False,
        ),
    ),
    PlanPart(
        ("software", "dra_driver"),
        absent=Refusal(
            "draDriver.enabled",
            "these sections install no NVIDIA DRA driver",
            "leave out the DraDriver component, or remove draDriver.enabled: false",
        ),
        waits_when=("software", "dra_driver_waits_for_operator"),
        waits_refusal=Refusal(
            "gpu_operator",
            "the GPU Operator installs the NVIDIA driver here (gpuOperator.driver: operator), and the DRA driver "
            "reads its files: it must be installed after the operator",
            "pass gpu_operator=<the GpuOperator component>",
        ),
    ),
)

FINER_COMPONENTS: tuple[FinerComponent, ...] = (
    EKS_GPU_NODE_POOL,
    AKS_GPU_NODE_POOL,
    DEVICE_CLASSES,
    TENANT_NAMESPACE,
    GPU_OPERATOR,
    DRA_DRIVER,
)
BY_NAME = {component.name: component for component in FINER_COMPONENTS}
