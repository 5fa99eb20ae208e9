"""The stack file's sections as shapes a Pulumi schema can say, read from the config models themselves.

One walk over the pydantic models (`model_fields` and their annotations) serves both directions: the generator
renders the provider's input types from it (provider/generate.py), and the hosted component converts what the
engine sends back into stack-file sections with it (provider/wire.py). Nothing here lists a key by hand, so a
key added to, or removed from, a model changes the schema the next time the generator runs.

What a Pulumi schema cannot say is mapped to what it can:
- `Literal[...]` of strings is an enum; `X | None` is an optional X; `Annotated[X, ...]` is X.
- A union of models (a discriminated union such as a per-platform `cluster`) is one object with every member's
  fields: a field that is a `Literal` in each member (the discriminator) is the enum of all their values, and a
  field that not every member has is optional. The model refuses a field that does not apply to the chosen member.
- Anything else (a value that may be a string or a number, or an object) is `Any`, described by its field.
"""

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo

from dra_gpu_platform.config.loading import SECTIONS
from dra_gpu_platform.config.models import PROJECT, StackConfig

Kind = Literal["string", "integer", "number", "boolean", "any", "enum", "list", "map", "object"]
_SCALARS: dict[Any, Kind] = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True)
class FieldShape:
    name: str  # the model's field name: the Python name of the input
    alias: str  # the stack-file key: the schema's property name
    shape: "Shape"
    required: bool
    description: str = dataclasses.field(compare=False)
    default: Any = dataclasses.field(default=None, compare=False)  # a scalar default the model fills in, or None


@dataclass(frozen=True)
class Shape:
    kind: Kind
    item: "Shape | None" = None  # list items and map values
    values: tuple[str, ...] = ()  # enum values
    name: str = ""  # object: the type's name
    fields: tuple[FieldShape, ...] = ()  # object: its fields in model order
    description: str = dataclasses.field(default="", compare=False)

    def field(self, key: str) -> FieldShape | None:
        """The field named `key`, by its Python name or its stack-file key."""
        return next((f for f in self.fields if key in (f.name, f.alias)), None)


def sections() -> tuple[FieldShape, ...]:
    """The stack file's `dra-gpu-platform:*` sections, in the loader's order."""
    by_alias = {field.alias or name: name for name, field in StackConfig.model_fields.items()}
    fields = []
    for key, (_, annotation) in SECTIONS.items():
        info = StackConfig.model_fields[by_alias[key]]
        description = info.description or f"The stack file's `{PROJECT}:{key}` section (docs/configuration.md)."
        fields.append(_field(by_alias[key], info, annotation, description))
    return tuple(fields)


def _field(name: str, info: FieldInfo, annotation: Any, description: str = "") -> FieldShape:
    description = description or info.description or ""
    shape = shape_of(annotation, description, hint=_pascal(name))
    default = info.default if isinstance(info.default, (str, int, float, bool)) else None
    return FieldShape(name, info.alias or name, shape, info.is_required(), description, default)


def shape_of(annotation: Any, description: str = "", *, hint: str = "") -> Shape:
    """`hint` names a merged union (the field's name: `cluster` is `Cluster`)."""
    annotation = _strip(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in _SCALARS:
        return Shape(_SCALARS[annotation], description=description)
    if origin is Literal:
        if all(isinstance(value, str) for value in args):
            return Shape("enum", values=tuple(args), description=description)
        return Shape("any", description=description)
    if origin in (Union, types.UnionType):
        members = [_strip(a) for a in args if a is not type(None)]
        if len(members) == 1:
            return shape_of(members[0], description, hint=hint)
        if hint and all(isinstance(m, type) and issubclass(m, BaseModel) for m in members):
            return _merged([shape_of(m) for m in members], description, hint)
        return Shape("any", description=description)
    if origin in (list, tuple, set, frozenset) and args:
        return Shape("list", item=shape_of(args[0], hint=hint), description=description)
    if origin is dict and len(args) == 2 and _strip(args[0]) is str:
        return Shape("map", item=shape_of(args[1], hint=hint), description=description)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _object(annotation, description)
    return _leaf(annotation, description)


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _object(model: type[BaseModel], description: str) -> Shape:
    fields = tuple(_field(name, info, info.annotation) for name, info in model.model_fields.items())
    return Shape("object", name=type_name(model), fields=fields, description=description or (model.__doc__ or ""))


def type_name(model: type[BaseModel]) -> str:
    """ClusterConfig is the schema's `Cluster`; NodePool stays `NodePool`."""
    return model.__name__.removesuffix("Config")


def _leaf(annotation: Any, description: str) -> Shape:
    """A type pydantic reads from a JSON scalar (a date-time from text): that scalar; otherwise Any."""
    try:
        kind = TypeAdapter(annotation).json_schema().get("type")
    except Exception:  # a type pydantic cannot describe in JSON schema: the schema cannot either
        kind = None
    return Shape(kind if kind in ("string", "integer", "number", "boolean") else "any", description=description)


def _merged(members: list[Shape], description: str, name: str) -> Shape:
    """One object with every member's fields (see the module docstring)."""
    names: list[str] = []
    for member in members:
        names += [f.name for f in member.fields if f.name not in names]
    fields = []
    for key in names:
        present = [f for m in members if (f := m.field(key)) is not None]
        shapes = [f.shape for f in present]
        if all(s.kind == "enum" for s in shapes):
            values = tuple(dict.fromkeys(v for s in shapes for v in s.values))
            shape = dataclasses.replace(shapes[0], values=values)
        elif all(s == shapes[0] for s in shapes):
            shape = shapes[0]
        else:
            shape = Shape("any", description=present[0].description)
        required = len(present) == len(members) and all(f.required for f in present)
        fields.append(dataclasses.replace(present[0], shape=shape, required=required))
    return Shape("object", name=name, fields=tuple(fields), description=description)


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))
