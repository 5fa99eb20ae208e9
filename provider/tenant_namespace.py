"""TenantNamespace as the component package hosts it: the library's TenantNamespace itself (the same type token and
children), built from the inputs the engine sends through TenantNamespaceArgs.from_sections, on the Kubernetes
provider of its resource options. The analyzer reads this class's own annotations (provider/package.py)."""

import pulumi

from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace as LibraryTenantNamespace
from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespaceArgs
from provider.arguments import BY_COMPONENT
from provider.inputs import TenantNamespaceInputs
from provider.wire import hosted_args


class TenantNamespace(LibraryTenantNamespace):
    """One tenant namespace of dra-gpu-platform's namespaces section on an existing cluster: the namespace with its migration label (legacy, dual or dra-only), its ResourceQuota and its ResourceClaimTemplates. Takes the cluster's Kubernetes provider from the resource options (`providers`)."""

    namespace_name: str
    """The namespace's name."""
    template_names: list[str]
    """Its ResourceClaimTemplates."""

    def __init__(self, name: str, args: TenantNamespaceInputs, opts: pulumi.ResourceOptions | None = None):
        component = f"TenantNamespace {name}"
        namespace_args = hosted_args(component, BY_COMPONENT["TenantNamespace"], args, _build, opts)
        super().__init__(name, namespace_args, opts)
        self.namespace_name = namespace_args.plan.name
        self.template_names = sorted(self.templates)


def _build(sections: dict, arguments: dict) -> TenantNamespaceArgs:
    return TenantNamespaceArgs.from_sections(sections, **arguments)
