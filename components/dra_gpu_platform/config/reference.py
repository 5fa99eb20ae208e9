"""The config reference in README.md, generated from the pydantic models so docs and code never drift.
Run `python -m dra_gpu_platform.config.reference` to print it; tests/docs/test_readme.py keeps README in sync."""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from dra_gpu_platform.config.cluster import CLUSTER_MODELS, ClusterBase
from dra_gpu_platform.config.validation import SECTIONS


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, types.UnionType):  # Optional[X] and X | None
        parts = [_type_name(a) for a in args if a is not type(None)]
        return " \\| ".join(parts)
    if origin in (list, tuple):
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"map of {_type_name(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    if annotation is Any:
        return "string"
    return getattr(annotation, "__name__", str(annotation))


def _model(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds, through Annotated, unions (a discriminated union's branches) and lists."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _model(typing.get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for inner in typing.get_args(annotation):
        found = _model(inner)
        if found is not None:
            return found
    return None


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "**required**"
    if field.default_factory is not None:
        value = field.get_default(call_default_factory=True)
        return "" if isinstance(value, BaseModel) else f"`{value}`"
    if field.default is None or field.default is PydanticUndefined:
        return ""
    return f"`{str(field.default).lower() if isinstance(field.default, bool) else field.default}`"


def _rows(model: type[BaseModel], prefix: str, only: tuple[str, ...] | None = None) -> list[str]:
    rows = []
    for name, field in model.model_fields.items():
        if only is not None and (field.alias or name) not in only:
            continue
        key = f"{prefix}.{field.alias or name}"
        rows.append(f"| `{key}` | {_type_name(field.annotation)} | {_default(field)} | {field.description or ''} |")
        nested = _model(field.annotation)
        if nested is not None:
            rows.extend(_rows(nested, key + ("[]" if "list" in _type_name(field.annotation) else "")))
    return rows


def _cluster_rows() -> list[str]:
    """The keys every platform's cluster has, then each platform's own block (`cluster.eks` on EKS only)."""
    rows = _rows(ClusterBase, "cluster")
    for platform, model in CLUSTER_MODELS.items():
        rows.extend(_rows(model, "cluster", only=(platform,)))
    return rows


def config_reference() -> str:
    lines = []
    for key, (_, model) in SECTIONS.items():
        lines.append(f"#### `dra-gpu-platform:{key}`\n")
        lines.append("| key | type | default | meaning |")
        lines.append("|---|---|---|---|")
        if key == "cluster":
            lines.extend(_cluster_rows())
        else:
            inner = _model(model)
            if inner is None:
                raise TypeError(f"section {key} is not a model nor a list of models: {model!r}")
            lines.extend(_rows(inner, key + ("[]" if typing.get_origin(model) is list else "")))
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(config_reference())
