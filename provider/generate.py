"""Generates the component package's input types (provider/input_types.py, provider/inputs.py) and its schema
(provider/schema.json) from the config models. Run `python -m provider.generate` after a model changes; `--check` exits
1 when one is stale (tests/provider/test_generated.py runs the same comparison).

The input types are TypedDicts with a docstring per key, because that is what Pulumi's analyzer reads
(docs/references.md#pulumi-component-analyzer): it infers the schema from annotations and finds each key's description
in the docstring that follows it. The schema is then the analyzer's own output, as the plugin serves it.
"""

import argparse
import json
import keyword
import re
import sys
from pathlib import Path

from pulumi.provider.experimental.util import camel_case

from dra_gpu_platform.config.models import PROJECT
from provider import shapes
from provider.arguments import HOSTED, Argument, Hosted
from provider.shapes import FieldShape, Shape

HERE = Path(__file__).resolve().parent
# Two modules, so that neither passes the 800-line limit of tests/test_architecture.py: the sections' enums and
# objects, and one TypedDict of inputs per hosted component.
INPUT_TYPES = HERE / "input_types.py"
INPUTS = HERE / "inputs.py"
SCHEMA = HERE / "schema.json"
HEADER = f'''"""The enums and objects of the `{PROJECT}` component package's inputs (the stack file's sections), generated
from the config models by `python -m provider.generate`: do not edit. Pulumi's analyzer reads these annotations and the
docstring after each key to infer provider/schema.json."""

import enum
from typing import Any, NotRequired, TypedDict
'''
INPUTS_HEADER = f'''"""Input types of the `{PROJECT}` component package, one per hosted component, generated from the config
models by `python -m provider.generate`: do not edit. Pulumi's analyzer reads these annotations and the docstring
after each key to infer provider/schema.json."""

from typing import NotRequired, TypedDict

import pulumi
'''


class _Renderer:
    """Renders enums and TypedDicts, each once and before its first use (annotations are evaluated at import)."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.objects: dict[str, Shape] = {}
        self.enums: dict[tuple[str, ...], str] = {}  # values -> class name
        self.taken: set[str] = {hosted.inputs_class for hosted in HOSTED}

    def annotation(self, shape: Shape, path: str, owner: str, key: str) -> str:
        if shape.kind == "enum":
            return self.enum(shape, path, owner, key)
        if shape.kind == "object":
            return self.typed_dict(shape, path)
        if shape.kind == "list":
            return f"list[{self.annotation(shape.item, f'{path}[]', owner, key)}]"
        if shape.kind == "map":
            return f"dict[str, {self.annotation(shape.item, f'{path}.*', owner, key)}]"
        return {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "any": "Any"}[shape.kind]

    def enum(self, shape: Shape, path: str, owner: str, key: str) -> str:
        if shape.values in self.enums:
            return self.enums[shape.values]
        name = _pascal(key)
        if name in self.taken:
            name = owner + name
        self.taken.add(name)
        self.enums[shape.values] = name
        members = [_member(value) for value in shape.values]
        if len(set(members)) != len(members):
            raise ValueError(f"{path}: the enum values {shape.values} give the same member name twice")
        lines = [f"class {name}(enum.Enum):", _docstring(_doc(path, shape.description), 4), ""]
        lines += [f"    {member} = {json.dumps(value)}" for member, value in zip(members, shape.values, strict=True)]
        self.blocks.append("\n".join(lines))
        return name

    def typed_dict(self, shape: Shape, path: str) -> str:
        seen = self.objects.get(shape.name)
        if seen is not None:
            if seen != shape:
                raise ValueError(f"two different models are both named {shape.name} in the schema: rename one")
            return shape.name
        if shape.name in self.taken:
            raise ValueError(f"{shape.name} names both an enum and an object in the schema: rename one")
        self.objects[shape.name] = shape
        self.taken.add(shape.name)
        body = [self.key(field, f"{path}.{field.alias}", shape.name) for field in shape.fields]
        self.blocks.append(_class(shape.name, _doc(path, shape.description), body))
        return shape.name

    def key(self, field: FieldShape, path: str, owner: str) -> str:
        if camel_case(field.name) != field.alias:
            raise ValueError(f"{path}: the analyzer names the key {camel_case(field.name)!r}, not {field.alias!r}")
        annotation = self.annotation(field.shape, path, owner, field.name)
        return _key(field.name, annotation, field.required, _field_doc(field))


def render_inputs() -> dict[Path, str]:
    """The sources of provider/input_types.py (the enums and objects the inputs use) and provider/inputs.py (one
    TypedDict of inputs per hosted component, provider/arguments.py), by path."""
    renderer = _Renderer()
    classes = [_inputs_class(renderer, hosted) for hosted in HOSTED]
    defined = {*renderer.objects, *renderer.enums.values()}
    annotations = " ".join(line.split(":", 1)[1] for block in classes for line in _key_lines(block))
    used = sorted(defined & set(re.findall(r"[A-Za-z_]\w*", annotations)))
    imports = "from provider.input_types import (\n" + "".join(f"    {name},\n" for name in used) + ")\n"
    return {
        INPUT_TYPES: _module([HEADER, *renderer.blocks]),
        INPUTS: _module([f"{INPUTS_HEADER}\n{imports}", *classes]),
    }


def _module(blocks: list[str]) -> str:
    return "\n\n\n".join(block.rstrip("\n") for block in blocks) + "\n"


def _key_lines(block: str) -> list[str]:
    """The `    name: annotation` lines of a rendered TypedDict (its docstrings are indented lines in quotes)."""
    return [line for line in block.splitlines() if re.match(r"^    \w+: ", line)]


def _inputs_class(renderer: _Renderer, hosted: Hosted) -> str:
    body = [renderer.key(field, field.alias, "") for field in shapes.sections() if field.alias in hosted.sections]
    body += [_argument(renderer, argument) for argument in hosted.arguments]
    if hosted.component == "GpuPlatform":
        doc = "The inputs of GpuPlatform: the stack file's sections, the region and the kubeconfig."
    else:
        names = ", ".join(camel_case(argument.name) for argument in hosted.arguments)
        doc = (
            f"The inputs of {hosted.component}: the stack file's sections but `cluster` (the component is composed "
            f"on a cluster that exists), and {names}."
        )
    return _class(hosted.inputs_class, doc, body)


def _argument(renderer: _Renderer, argument: Argument) -> str:
    annotation = argument.annotation
    if isinstance(annotation, Shape):  # an enum: the cluster's platform ("Platform" names cluster.platform's)
        annotation = renderer.annotation(annotation, argument.name, "Cluster", argument.name)
    return _key(argument.name, annotation, argument.required, argument.doc)


def render_schema() -> str:
    """provider/schema.json: the schema the plugin serves (GetSchema), built from provider/inputs.py (and the types it
    imports) as they are now."""
    from provider import package

    return json.dumps(json.loads(package.GpuPlatformProvider().schema), indent=2, ensure_ascii=False) + "\n"


def _class(name: str, doc: str, keys: list[str]) -> str:
    return "\n".join([f"class {name}(TypedDict):", _docstring(doc, 4), "", *keys])


def _key(name: str, annotation: str, required: bool, doc: str) -> str:
    annotation = annotation if required else f"NotRequired[{annotation}]"
    return f"    {name}: {annotation}\n{_docstring(doc, 4)}"


def _doc(path: str, description: str) -> str:
    return f"`{path}`: {description}" if description else f"`{path}` in a stack file (docs/configuration.md)."


def _field_doc(field: FieldShape) -> str:
    doc = field.description or f"`{field.alias}`"
    if field.shape.kind == "any":
        doc += " (any value the stack file accepts here)"
    if field.default is not None and field.default != "":
        doc += f" Default: `{json.dumps(field.default)}`."
    return doc


def _docstring(text: str, indent: int) -> str:
    text = " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text = text[:-1] + '\\"'
    return " " * indent + f'"""{text}"""'


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _member(value: str) -> str:
    """on-demand -> OnDemand, A100-40GB -> A100_40GB, None -> None_ (a Python keyword)."""
    name = ""
    for part in re.split(r"[^A-Za-z0-9_]+", value):
        if part:
            name += ("_" if name and name[-1].isdigit() and part[0].isdigit() else "") + part[0].upper() + part[1:]
    if keyword.iskeyword(name):
        name += "_"
    if not name.isidentifier():
        raise ValueError(f"the enum value {value!r} gives no Python name")
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m provider.generate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a generated file is not current")
    args = parser.parse_args(argv)
    inputs = render_inputs()
    if args.check:
        stale = [str(p) for p, text in inputs.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        if not stale:
            stale = [str(SCHEMA)] if SCHEMA.read_text(encoding="utf-8") != render_schema() else []
        for path in stale:
            print(f"{path} is not current: run `python -m provider.generate`", file=sys.stderr)
        return 1 if stale else 0
    for path, text in inputs.items():
        _write(path, text)
    _write(SCHEMA, render_schema())
    return 0


def _write(path: Path, text: str) -> None:
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)  # atomic: a reader sees the old file or the new one


if __name__ == "__main__":
    sys.exit(main())
