"""What each hosted component takes besides the stack file's sections: the keyword arguments of its library
constructor (`GpuPlatformArgs.from_sections`, `EksGpuNodePoolArgs.from_sections`, ...), as schema inputs.

The sections are read from the config models (provider/shapes.py); the arguments are listed here once, and both the
generator (provider/generate.py, the input types and the schema) and the hosted components (provider/wire.py,
turning what the engine sends back into the library's arguments) read this table. A finer component takes every
section but `cluster`: it is composed on a cluster that exists, whose platform, name and Kubernetes version are
arguments (dra_gpu_platform/config/parts.py).
"""

from dataclasses import dataclass

from pulumi.provider.experimental.util import camel_case

from dra_gpu_platform.config.loading import SECTIONS
from dra_gpu_platform.config.models import PROJECT
from dra_gpu_platform.config.parts import COMPONENT_PLATFORMS, PART_SECTIONS
from provider.shapes import Shape


@dataclass(frozen=True)
class Argument:
    name: str  # the library's keyword, the input's Python name (the schema says it in camelCase)
    annotation: "str | Shape"  # the input type's annotation, or an enum's shape
    required: bool
    doc: str
    known: bool = True  # a plain value, known when the program runs: what is built depends on it
    secret: bool = False


@dataclass(frozen=True)
class Hosted:
    component: str  # the hosted class's name
    sections: tuple[str, ...]  # the stack-file sections it takes
    arguments: tuple[Argument, ...]
    kubernetes: bool = False  # it takes the Kubernetes provider from its resource options (`providers`)

    @property
    def inputs_class(self) -> str:
        return f"{self.component}Inputs"

    def argument(self, key: str) -> Argument | None:
        """The argument named `key` by its Python name or its camelCase input name."""
        return next((a for a in self.arguments if key in (a.name, camel_case(a.name))), None)


REGION_DOC = (
    "Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location "
    "(`azure-native:location`)."
)
PLATFORM_DOC = (
    "The platform of the cluster the component is composed on: eks, aks, or existing for any other (a kind cluster "
    "you run yourself too)."
)
PLATFORM = Argument("platform", Shape("enum", values=COMPONENT_PLATFORMS, description=PLATFORM_DOC), True, PLATFORM_DOC)
KUBERNETES_VERSION = Argument(
    "kubernetes_version",
    "str",
    True,
    "The cluster's Kubernetes minor, e.g. \"1.35\" (the stack file's cluster.kubernetesVersion).",
)
REGION_FOR_EKS_OR_AKS = Argument("region", "str", False, REGION_DOC + " Needed on eks and aks, as in a stack file.")
PROTECT_OBJECTS = Argument(
    "protect", "bool", False, "Protect what it creates from deletion (the stack file's cluster.protect)."
)


def _pool_arguments(cloud: str) -> tuple[Argument, ...]:
    return (
        Argument("pool", "str", True, "The name of the pool to build, an item of nodePools."),
        Argument(
            "cluster_name",
            "str",
            True,
            f"The name of the existing {cloud} cluster the pool joins. Known when the program runs"
            + (": the cluster autoscaler's discovery tags carry it." if cloud == "EKS" else "."),
        ),
        KUBERNETES_VERSION,
        Argument("region", "str", True, REGION_DOC),
    )


HOSTED = (
    Hosted(
        "GpuPlatform",
        tuple(SECTIONS),
        (
            Argument(
                "region",
                "str",
                False,
                "Where an eks or aks cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location "
                "(`azure-native:location`). Unused on other platforms.",
            ),
            Argument(
                "kubeconfig",
                "pulumi.Input[str]",
                False,
                f"The kubeconfig of an `existing` cluster (the stack file's secret `{PROJECT}:kubeconfig`); a secret.",
                known=False,
                secret=True,
            ),
        ),
    ),
    Hosted(
        "EksGpuNodePool",
        PART_SECTIONS,
        (
            *_pool_arguments("EKS"),
            Argument(
                "node_role_arn", "pulumi.Input[str]", True, "The ARN of the cluster's node IAM role.", known=False
            ),
            Argument(
                "subnet_ids",
                "pulumi.Input[list[str]]",
                True,
                "The private subnets the pool's nodes run in (one zone's with availabilityZone).",
                known=False,
            ),
            Argument(
                "cluster_security_group_id",
                "pulumi.Input[str]",
                True,
                "The cluster security group, which the pool's EFA interfaces join.",
                known=False,
            ),
            Argument(
                "protect", "bool", False, "Protect the node group from deletion (the stack file's cluster.protect)."
            ),
            Argument("tags", "dict[str, str]", False, "AWS tags of the pool's resources, besides the cluster's own."),
        ),
    ),
    Hosted(
        "AksGpuNodePool",
        PART_SECTIONS,
        (
            *_pool_arguments("AKS"),
            Argument(
                "resource_group_name", "pulumi.Input[str]", True, "The resource group of the AKS cluster.", known=False
            ),
            Argument(
                "protect", "bool", False, "Protect the agent pool from deletion (the stack file's cluster.protect)."
            ),
        ),
    ),
    Hosted("DeviceClasses", PART_SECTIONS, (PLATFORM, KUBERNETES_VERSION, REGION_FOR_EKS_OR_AKS), kubernetes=True),
    Hosted(
        "TenantNamespace",
        PART_SECTIONS,
        (
            Argument("namespace", "str", True, "The name of the namespace to build, an item of namespaces."),
            PLATFORM,
            KUBERNETES_VERSION,
            REGION_FOR_EKS_OR_AKS,
            PROTECT_OBJECTS,
        ),
        kubernetes=True,
    ),
    Hosted("GpuOperator", PART_SECTIONS, (PLATFORM, KUBERNETES_VERSION, REGION_FOR_EKS_OR_AKS), kubernetes=True),
    Hosted("DraDriver", PART_SECTIONS, (PLATFORM, KUBERNETES_VERSION, REGION_FOR_EKS_OR_AKS), kubernetes=True),
)
BY_COMPONENT = {hosted.component: hosted for hosted in HOSTED}
