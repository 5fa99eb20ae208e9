"""The `dra-gpu-platform` component package: the provider that hosts GpuPlatform and the finer components
(EksGpuNodePool, AksGpuNodePool, DeviceClasses, TenantNamespace, GpuOperator, DraDriver) for every Pulumi language.

`component_provider_host` (pulumi/provider/experimental/host.py:28-61) is `main(ComponentProvider(...), args)`;
this module calls the same `main` with a ComponentProvider subclass, because these behaviours of the SDK's
ComponentProvider (pulumi 3.272.0, docs/references.md#pulumi-component-provider-inputs) would turn a bad input into
something other than one property error that names every problem:
- `construct` wraps whatever the component's `__init__` raises in ComponentInitError (component.py:95-100), which the
  server reports as a plain exception with a traceback (server.py:128-148), not as the property error it was;
- its input mapping stops at the first missing required input, the first bad enum value and the first non-number
  integer (component.py:160-167, 193-205, 276-284);
- it maps a list or a map of enum values item by item as objects, so each value becomes `{}` (component.py:228-262),
  and an object that arrives as an Output becomes `{}` (component.py:214);
- it drops the keys the schema does not have, where a stack file's unknown key is an error.
Here the mapping only renames keys; the values it cannot map soundly and the unknown keys pass through as they came,
and the config model reports every problem at once (provider/wire.py).

The schema it serves is the analyzer's (`generate_schema`), with `secret: true` on the secret inputs, which the
analyzer has no annotation for, and without the `"description": null` that `remove_none` leaves in enum value lists
(schema.py:328 does not descend into lists; the metaschema wants a string there).

Each hosted component is the library's class itself, so it registers the library's type token and children. Two
more SDK limits are worked around for that (docs/references.md#pulumi-component-provider-modules):
- the analyzer reads a component's outputs from the annotations of every class in its MRO (analyzer.py:406-414), and
  the library's classes annotate their child resources as strings (`from __future__ import annotations`), which it
  cannot read; it analyses a facade with the hosted class's own `__init__`, annotations and source instead, and
  Construct builds the hosted class;
- the SDK names every component `<package>:index:<Class>` and constructs only those (component.py:350-367), while the
  library's finer components are `dra-gpu-platform:cluster:EksGpuNodePool` and so on (their URNs in every stack): the
  schema names each by its own token, and Construct maps that token back to the class.
"""

import dataclasses
import inspect
import json
from importlib import metadata
from typing import Any

from pulumi import ComponentResource, InputPropertiesError, InputPropertyError, Output, ResourceOptions
from pulumi.provider import main
from pulumi.provider.experimental.analyzer import PropertyDefinition, PropertyType
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.experimental.util import camel_case
from pulumi.provider.provider import ConstructResult
from pulumi.provider.server import ComponentInitError

from dra_gpu_platform.config.models import PROJECT
from dra_gpu_platform.facts.type_tokens import Component
from provider.aks_gpu_node_pool import AksGpuNodePool
from provider.arguments import BY_COMPONENT
from provider.device_classes import DeviceClasses
from provider.dra_driver import DraDriver
from provider.eks_gpu_node_pool import EksGpuNodePool
from provider.gpu_operator import GpuOperator
from provider.gpu_platform import GpuPlatform
from provider.tenant_namespace import TenantNamespace

PACKAGE = PROJECT  # the package name, the first part of every type token
VERSION = metadata.version(PROJECT)  # the distribution's version (pyproject.toml [project].version)
# Each hosted component and its type token: the library's, so the package registers what the library registers.
TOKENS: dict[type[ComponentResource], str] = {
    GpuPlatform: Component.GPU_PLATFORM,
    EksGpuNodePool: Component.EKS_GPU_NODE_POOL,
    AksGpuNodePool: Component.AKS_GPU_NODE_POOL,
    DeviceClasses: Component.DEVICE_CLASSES,
    TenantNamespace: Component.TENANT_NAMESPACE,
    GpuOperator: Component.GPU_OPERATOR,
    DraDriver: Component.DRA_DRIVER,
}
COMPONENTS = list(TOKENS)


def _index_token(component: type[ComponentResource]) -> str:
    """The token the SDK gives a component: `<package>:index:<Class>`."""
    return f"{PACKAGE}:index:{component.__name__}"


def facade(component: type[ComponentResource]) -> type[ComponentResource]:
    """What the analyzer reads of a hosted component: its own annotations (the outputs), its `__init__` (the args)
    and docstring, and, through the same module and qualified name, its source (the outputs' docstrings)."""
    return type(
        component.__name__,
        (ComponentResource,),
        {
            "__module__": component.__module__,
            "__qualname__": component.__qualname__,
            "__doc__": component.__doc__,
            "__annotations__": dict(inspect.get_annotations(component)),
            "__init__": component.__init__,
        },
    )


class GpuPlatformProvider(ComponentProvider):
    def __init__(self) -> None:
        super().__init__([facade(component) for component in COMPONENTS], PACKAGE, version=VERSION)
        # Construct builds the hosted classes, not the facades the analyzer read (module docstring).
        self._components = {component.__name__: component for component in COMPONENTS}
        self.schema = json.dumps(_served(json.loads(self.schema or "{}")))

    def construct(
        self, name: str, resource_type: str, inputs: dict[str, Any], options: ResourceOptions | None = None
    ) -> ConstructResult:
        by_token = {token: _index_token(component) for component, token in TOKENS.items()}
        try:
            return super().construct(name, by_token.get(resource_type, resource_type), inputs, options)
        except ComponentInitError as error:
            if isinstance(error.inner, (InputPropertiesError, InputPropertyError)):
                raise error.inner from None  # the server sends these to the engine as property errors
            raise

    def map_input_properties(
        self,
        inputs: Any,
        properties: dict[str, PropertyDefinition],
        mapping: dict[str, str],
        component_name: str,
        property_path: str,
    ) -> dict[str, Any]:
        values = inputs if isinstance(inputs, dict) else {}
        lenient = {key: self._lenient(prop, values.get(key)) for key, prop in properties.items()}
        mapped = super().map_input_properties(inputs, lenient, mapping, component_name, property_path)
        # The SDK drops keys the schema does not have; kept, the model reports them as a stack file's unknown keys.
        return {**mapped, **{key: value for key, value in values.items() if key not in properties}}

    def _lenient(self, prop: PropertyDefinition, value: Any) -> PropertyDefinition:
        """`prop` made optional, or, where the SDK's mapping of `value` is unsound (see the module docstring), a
        property without a type, which the SDK passes through unchanged."""
        if (
            isinstance(value, Output)
            or prop.type is PropertyType.INTEGER
            or any(self._is_enum(p) for p in (prop, prop.items, prop.additional_properties))
            or (self._is_object(prop) and not isinstance(value, dict))
            or (self._is_object(prop.items) and not _all_dicts(value))
            or (self._is_object(prop.additional_properties) and not _all_dicts(_values(value)))
        ):
            return PropertyDefinition(optional=True, description=prop.description)
        return dataclasses.replace(prop, optional=True)

    def _is_enum(self, prop: PropertyDefinition | None) -> bool:
        type_def = self.get_type_definition(prop) if prop is not None and prop.ref else None
        return type_def is not None and type_def.enum is not None

    def _is_object(self, prop: PropertyDefinition | None) -> bool:
        type_def = self.get_type_definition(prop) if prop is not None and prop.ref else None
        return type_def is not None and type_def.enum is None


def _all_dicts(items: Any) -> bool:
    return isinstance(items, list) and all(isinstance(item, dict) for item in items)


def _values(value: Any) -> Any:
    return list(value.values()) if isinstance(value, dict) else value


def _served(schema: dict[str, Any]) -> dict[str, Any]:
    resources = schema.get("resources", {})
    for component, token in TOKENS.items():
        resource = resources.pop(_index_token(component), None)
        if resource is None:
            continue
        for argument in BY_COMPONENT[component.__name__].arguments:
            if argument.secret:
                resource["inputProperties"][camel_case(argument.name)]["secret"] = True
        resources[token] = resource
    for complex_type in schema.get("types", {}).values():
        for value in complex_type.get("enum", []):
            if value.get("description") is None:
                value.pop("description", None)
    return schema


def serve(args: list[str]) -> None:
    """Run the plugin: the gRPC server the Pulumi engine talks to (Construct, GetSchema)."""
    main(GpuPlatformProvider(), args)
