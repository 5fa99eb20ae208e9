"""The generator reads the pydantic models generically: a discriminated union becomes one object, a value the
schema cannot type becomes Any, and enum values get Python names the analyzer turns into schema names."""

from __future__ import annotations

import importlib.util
import sys
from typing import Annotated, Literal

import pytest
from pulumi.provider.experimental.analyzer import Analyzer
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from provider import generate, shapes


class Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel)  # stack-file keys, as the config models have


class EksBlock(Model):
    subnet_ids: list[str] = Field(default_factory=list, description="Subnets.")


class KindBlock(Model):
    node_image: str | None = Field(None, description="Image.")


class EksCluster(Model):
    platform: Literal["eks"] = Field(description="Where it runs.")
    name: str = Field(description="Its name.")
    eks: EksBlock = Field(default_factory=EksBlock, description="EKS settings.")


class KindCluster(Model):
    platform: Literal["kind"] = Field(description="Where it runs.")
    name: str = Field(description="The cluster's name.")  # another description: still the same field
    kind: KindBlock | None = Field(None, description="kind settings.")
    workers: int = Field(2, description="Workers.")


class Stack(Model):
    cluster: Annotated[EksCluster | KindCluster, Field(discriminator="platform")]
    version: str | float = Field(description="A text or a number.")
    sizes: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict, description="Sizes.")


def _stack_shape() -> shapes.Shape:
    return shapes.shape_of(Stack)


def test_a_discriminated_union_is_one_object_with_every_members_fields():
    cluster = _stack_shape().field("cluster").shape
    assert cluster.kind == "object" and cluster.name == "Cluster"
    fields = {f.name: f for f in cluster.fields}
    assert list(fields) == ["platform", "name", "eks", "kind", "workers"]
    assert fields["platform"].shape.values == ("eks", "kind") and fields["platform"].required
    assert fields["name"].shape.kind == "string" and fields["name"].required
    assert not any(fields[key].required for key in ("eks", "kind", "workers"))
    assert fields["eks"].shape.name == "EksBlock" and fields["workers"].default == 2


def test_what_the_schema_cannot_type_is_any_and_maps_keep_their_value_type():
    stack = _stack_shape()
    assert stack.field("version").shape.kind == "any"
    sizes = stack.field("sizes").shape
    assert sizes.kind == "map" and sizes.item.kind == "integer"


def test_the_rendered_union_is_what_the_analyzer_reads_as_one_type_with_an_enum(tmp_path):
    renderer = generate._Renderer()
    renderer.key(_stack_shape().field("cluster"), "cluster", "")
    source = "\n\n\n".join([generate.HEADER, *renderer.blocks])
    path = tmp_path / "union_inputs.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("union_inputs", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["union_inputs"] = module
    try:
        spec.loader.exec_module(module)
        properties, mapping = Analyzer("test").analyze_type(module.Cluster, is_component_output=False)
    finally:
        del sys.modules["union_inputs"]
    assert mapping == {"platform": "platform", "name": "name", "eks": "eks", "kind": "kind", "workers": "workers"}
    assert properties["platform"].ref == "#/types/test:index:Platform" and not properties["platform"].optional
    assert properties["eks"].optional and properties["workers"].optional
    assert properties["workers"].description == "Workers. Default: `2`."


@pytest.mark.parametrize(
    ("value", "member"),
    [("on-demand", "OnDemand"), ("A100-40GB", "A100_40GB"), ("None", "None_"), ("TimeSlicing", "TimeSlicing")],
)
def test_enum_values_get_python_names(value, member):
    assert generate._member(value) == member


def test_two_values_that_give_one_name_are_refused():
    renderer = generate._Renderer()
    with pytest.raises(ValueError, match="same member name"):
        renderer.enum(shapes.Shape("enum", values=("on-demand", "on.demand")), "x", "", "mode")


def test_a_key_the_analyzer_would_name_otherwise_is_refused():
    class Odd(BaseModel):
        max_nodes: int = Field(alias="maximumNodes")

    with pytest.raises(ValueError, match="the analyzer names the key 'maxNodes', not 'maximumNodes'"):
        generate._Renderer().typed_dict(shapes.shape_of(Odd), "odd")
