"""The SDK behaviours the component package works around (provider/package.py, provider/wire.py and
docs/references.md#pulumi-component-provider-inputs), pinned on the SDK's own ComponentProvider: when an SDK
upgrade changes one, a test here fails and the workaround can go.

No `from __future__ import annotations` here: the analyzer reads the component's annotations as objects."""

import enum
from typing import TypedDict

import pulumi
import pytest
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Limits(TypedDict):
    count: int
    """How many."""


class ProbeArgs(TypedDict):
    name: str
    """A name."""
    size: int
    """A size."""
    mode: Mode
    """A mode."""
    modes: list[Mode]
    """Modes."""
    limits: Limits
    """Limits."""


RECEIVED: dict = {}  # the args the SDK last handed Probe


class Probe(pulumi.ComponentResource):
    """Records the args the SDK hands it, then stops before registering anything."""

    def __init__(self, name: str, args: ProbeArgs, opts: pulumi.ResourceOptions | None = None):
        RECEIVED.clear()
        RECEIVED.update(args)
        raise pulumi.InputPropertiesError("probe", [{"property_path": "name", "reason": "refused"}])


def _construct(inputs: dict) -> Exception:
    provider = ComponentProvider([Probe], "probe")
    with pytest.raises(Exception) as raised:
        provider.construct("p", "probe:index:Probe", inputs)
    return raised.value


def test_a_property_error_raised_in_a_component_reaches_the_server_wrapped():
    error = _construct({"name": "a", "size": 2.0, "mode": "fast", "modes": ["fast"], "limits": {"count": 3.0}})
    # server.py reports a ComponentInitError as a plain exception with a traceback, not as property errors
    assert isinstance(error, ComponentInitError) and isinstance(error.inner, pulumi.InputPropertiesError)


def test_integers_stay_floats_an_enum_becomes_its_member_and_a_list_of_enum_values_becomes_empty_objects():
    _construct({"name": "a", "size": 2.0, "mode": "fast", "modes": ["fast", "slow"], "limits": {"count": 3.0}})
    assert RECEIVED == {"name": "a", "size": 2.0, "mode": Mode.FAST, "modes": [{}, {}], "limits": {"count": 3.0}}
    assert isinstance(RECEIVED["size"], float)


def test_the_mapping_stops_at_the_first_missing_required_input():
    error = _construct({"size": 2.0, "mode": "fast", "modes": [], "limits": {}})
    assert isinstance(error, pulumi.InputPropertyError)
    assert error.property_path == "name"  # limits.count is missing too, and not reported


def test_the_mapping_stops_at_the_first_bad_enum_value():
    error = _construct({"name": "a", "size": 1.0, "mode": "quick", "modes": [], "limits": {}})
    assert isinstance(error, pulumi.InputPropertyError)
    assert error.property_path == "mode"  # limits.count is missing too, and not reported


def test_an_object_that_arrives_as_an_output_becomes_an_empty_object():
    limits = pulumi.Output.from_input({"count": 1.0})
    error = _construct({"name": "a", "size": 1.0, "mode": "fast", "modes": [], "limits": limits})
    assert isinstance(error, pulumi.InputPropertyError)
    assert error.property_path == "limits.count"  # it was given, inside the Output


# provider/package.py hosts the library's own classes under their own tokens
# (docs/references.md#pulumi-component-provider-modules).


def test_the_sdk_hosts_index_tokens_only():
    ComponentProvider.validate_resource_type("probe", "probe:index:Probe")
    with pytest.raises(ValueError, match="index"):
        ComponentProvider.validate_resource_type("probe", "probe:cluster:Probe")


class Described(pulumi.ComponentResource):
    size: int
    """Inherited by Derived."""


class Derived(Described):
    """Its outputs are its own annotations and its base's."""

    name: str
    """Its own."""

    def __init__(self, name: str, args: ProbeArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("probe:index:Derived", name, None, opts)


def test_the_analyzer_reads_outputs_from_every_class_of_the_mro():
    provider = ComponentProvider([Derived], "probe")
    assert set(provider._component_defs["Derived"].outputs) == {"size", "name"}


def test_construct_builds_the_class_registered_under_the_tokens_last_part():
    provider = ComponentProvider([Derived], "probe")
    assert provider._components == {"Derived": Derived}
    provider._components["Derived"] = Probe  # what provider/package.py does with its facades
    _construct_with(provider, "probe:index:Derived")
    assert RECEIVED["name"] == "a"  # Probe ran


def _construct_with(provider: ComponentProvider, token: str) -> None:
    with pytest.raises(Exception):
        provider.construct(
            "p", token, {"name": "a", "size": 2.0, "mode": "fast", "modes": [], "limits": {"count": 1.0}}
        )
