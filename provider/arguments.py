"""What each hosted component takes besides the stack file's sections: the keyword arguments of its library
constructor (`GpuPlatformArgs.from_sections`, `EksGpuNodePoolArgs.from_sections`, ...), as schema inputs.

The sections are read from the config models (provider/shapes.py), a finer component's arguments from its
descriptor (dra_gpu_platform/config/descriptors.py: the hosted ones), GpuPlatform's are listed here; both the generator
(provider/generate.py, the input types and the schema) and the hosted components (provider/wire.py, turning what the
engine sends back into the library's arguments) read this table. A finer component takes every section but
`cluster`: it is composed on a cluster that exists, whose platform, name and Kubernetes version are arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from pulumi.provider.experimental.util import camel_case

from dra_gpu_platform.config.descriptors import FINER_COMPONENTS, Argument, FinerComponent
from dra_gpu_platform.config.loading import SECTIONS
from dra_gpu_platform.config.models import PROJECT

__all__ = ["BY_COMPONENT", "HOSTED", "Argument", "Hosted"]


@dataclass(frozen=True)
class Hosted:
    component: str  # the hosted class's name
    sections: tuple[str, ...]  # the stack-file sections it takes
    arguments: tuple[Argument, ...]  # its inputs besides the sections
    kubernetes: bool = False  # it takes the Kubernetes provider from its resource options (`providers`)

    @classmethod
    def of(cls, component: FinerComponent) -> Hosted:
        """A finer component as the package hosts it: its descriptor's hosted arguments
        (dra_gpu_platform/config/descriptors.py)."""
        return cls(component.name, component.sections, component.hosted_arguments, component.kubernetes)

    @property
    def inputs_class(self) -> str:
        return f"{self.component}Inputs"

    def argument(self, key: str) -> Argument | None:
        """The argument named `key` by its Python name or its camelCase input name."""
        return next((a for a in self.arguments if key in (a.name, camel_case(a.name))), None)


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
    *(Hosted.of(component) for component in FINER_COMPONENTS),
)
BY_COMPONENT = {hosted.component: hosted for hosted in HOSTED}
