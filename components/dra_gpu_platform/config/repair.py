"""What the cross-field rules see of a section that failed validation, so that one mistake is one problem and
an independent mistake is never hidden by another. Pure: no Pulumi imports.

A refused item is not dropped (that would move every later item to another index, and turn a refused `gpu` of a
device-plugin pool into "this legacy namespace needs a device-plugin pool"). It is kept as a stand-in: every field
that is valid on its own keeps its value, unknown keys are left out, and every refused or missing required field is
a `Slot`: a field whose value is unknown, with candidate values of its type. The rules then run once per candidate
(one slot varied at a time) and a rule's problem is kept only when every run finds it: a problem that holds
whatever the user meant by the refused value is their mistake; one that depends on it is a knock-on of the problem
already reported. Problems at or under a refused field are knock-ons too (the field's own problem says it all).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticUndefined

from dra_gpu_platform.facts import versions
from dra_gpu_platform.inputs.problems import MISSING, Problem, is_under, join_path

Loc = tuple[str | int, ...]
# At most this many candidates per slot (a GPU key has a dozen), and this many rule runs in all.
MAX_CANDIDATES = 16
MAX_RUNS = 96


@dataclass(frozen=True)
class Slot:
    """A field whose value is unknown (refused or missing): the rules see each candidate in turn."""

    path: str
    candidates: tuple[Any, ...]  # values, or templates of values (a cluster of each platform)


@dataclass(frozen=True)
class _Model:
    model: type[BaseModel]
    fields: dict[str, Any]  # field name -> template


@dataclass(frozen=True)
class _List:
    items: list[Any]


@dataclass(frozen=True)
class _Dict:
    items: dict[Any, Any]


_ADAPTERS: dict[Hashable, TypeAdapter[Any]] = {}


def field_type(model: type[BaseModel], name: str) -> Any:
    """A model field's type with its constraints (`ge`, validators), to validate one value as the field would."""
    info = model.model_fields[name]
    return Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation


def _adapter(annotation: Any) -> TypeAdapter[Any]:
    try:
        key: Hashable = annotation
        hash(key)
    except TypeError:
        key = repr(annotation)
    if key not in _ADAPTERS:
        _ADAPTERS[key] = TypeAdapter(annotation)
    return _ADAPTERS[key]


def _valid(annotation: Any, value: Any) -> tuple[bool, Any]:
    try:
        return True, _adapter(annotation).validate_python(value)
    except ValidationError:
        return False, None


@dataclass
class Repair:
    """Builds templates of refused sections and the stand-ins they become for one choice of candidates."""

    slots: dict[str, Slot] = field(default_factory=dict)

    def template(self, annotation: Any, raw: Any, loc: Loc, name: str | None = None, default: Any = MISSING) -> Any:
        """The value of `raw` as `annotation` where it is valid, else a template: a model's valid fields kept and
        its refused ones slots, list and mapping items each on their own."""
        ok, value = _valid(annotation, raw)
        if ok:
            return value
        model = _model_of(annotation)
        if model is not None and isinstance(raw, Mapping):
            built = self.model(model, raw, loc)
            keys = {info.alias or field for field, info in model.model_fields.items()}
            if len(_members(annotation)) > 1 and not keys & set(raw):
                # a mapping with none of the model's keys, where a union also takes other values (a GPU key or a
                # described GPU): what the user meant is unknown, so the other values stand in as well
                others = candidates(annotation, raw, name, default, loc)
                return self.slot(loc, [built, *others]) if others else built
            return built
        item = _container_of(annotation, list)
        if item is not None and isinstance(raw, list) and _model_of(item) is not None:
            return _List([self.template(item, value, (*loc, i)) for i, value in enumerate(raw)])
        value_type = _container_of(annotation, dict)
        if value_type is not None and isinstance(raw, Mapping) and _model_of(value_type) is not None:
            return _Dict({key: self.template(value_type, value, (*loc, key)) for key, value in raw.items()})
        if (item is not None and isinstance(raw, list)) or (value_type is not None and isinstance(raw, Mapping)):
            replaced = self._scalar_items(annotation, item if isinstance(raw, list) else value_type, raw, loc)
            if replaced is not None:
                return replaced
        item_model = _model_of(item) if item is not None else None
        if item_model is not None:  # a list of items that is no list: no items, or one of unknown fields
            return self.slot(loc, [_List([]), _List([self.unknown_model(item_model, (*loc, 0))])])
        options = candidates(annotation, raw, name, default, loc)
        if not options and model is not None:  # not a mapping where a model belongs: an item of unknown fields
            options = [self.unknown_model(model, loc)]
        if not options:
            raise TypeError(f"no stand-in value of {annotation!r} for {join_path(*loc)} (repair.candidates)")
        return self.slot(loc, options)

    def model(self, model: type[BaseModel], raw: Mapping[Any, Any], loc: Loc) -> _Model:
        fields: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            key = info.alias or name
            annotation = field_type(model, name)
            if key in raw:
                default = info.default if info.default is not PydanticUndefined else MISSING
                fields[name] = self.template(annotation, raw[key], (*loc, key), name, default)
            elif info.is_required():
                fields[name] = self.slot((*loc, key), candidates(annotation, MISSING, name, MISSING, loc))
        return _Model(model, fields)

    def unknown_model(self, model: type[BaseModel], loc: Loc) -> _Model:
        """An item that is not a mapping at all: every field unknown (a model field: its defaults)."""
        fields: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            annotation = field_type(model, name)
            default = info.default if info.default is not PydanticUndefined else MISSING
            options = candidates(annotation, MISSING, name, default, loc)
            inner = _model_of(annotation)
            if options:
                fields[name] = self.slot((*loc, info.alias or name), options)
            elif info.is_required() and inner is not None:
                fields[name] = self.unknown_model(inner, (*loc, info.alias or name))
            elif info.is_required():
                raise TypeError(f"no stand-in value of {annotation!r} (repair.candidates)")
        return _Model(model, fields)

    def slot(self, loc: Loc, options: list[Any]) -> Slot:
        path = join_path(*loc)
        slot = Slot(path, tuple(options[:MAX_CANDIDATES]))
        self.slots[path] = slot
        return slot

    def _scalar_items(self, annotation: Any, item: Any, raw: list[Any] | Mapping[Any, Any], loc: Loc) -> Slot | None:
        """A list (or mapping) of scalars with refused items: those items replaced by a valid value of their type (or
        left out where their type has none), so the rules see as many selectors as were written, the other subnets
        and the other keys of a quota; None when what is left is still refused."""
        pairs = list(enumerate(raw)) if isinstance(raw, list) else list(raw.items())
        kept: dict[Any, Any] = {}
        for key, value in pairs:
            ok, valid = _valid(item, value)
            if not ok:
                options = candidates(item, value, None, MISSING)
                if not options:
                    continue  # no value of its type stands in (a subnet id): the others still count
                valid = options[0]
            kept[key] = valid
        ok, whole = _valid(annotation, list(kept.values()) if isinstance(raw, list) else kept)
        return self.slot(loc, [whole]) if ok else None

    def build(self, template: Any, choice: Mapping[str, int]) -> Any:
        """The stand-in of `template` with each slot's chosen candidate (the first when not chosen)."""
        if isinstance(template, Slot):
            return self.build(template.candidates[choice.get(template.path, 0)], choice)
        if isinstance(template, _Model):
            values = {name: self.build(t, choice) for name, t in template.fields.items()}
            return template.model.model_construct(**values)
        if isinstance(template, _List):
            return [self.build(t, choice) for t in template.items]
        if isinstance(template, _Dict):
            return {key: self.build(t, choice) for key, t in template.items.items()}
        return template

    def choices(self) -> Iterator[dict[str, int]]:
        """The base choice (every slot's first candidate), then each other candidate of one slot at a time (with the
        candidates of the slots around it that hold it); past MAX_RUNS runs in all, every n-th."""
        yield {}
        holders: dict[str, tuple[str, int]] = {}  # slot inside a candidate -> (slot, candidate index)
        for path, slot in self.slots.items():
            for index, option in enumerate(slot.candidates):
                for inner in _slots_in(option):
                    holders.setdefault(inner, (path, index))
        variations = [(path, i) for path, slot in sorted(self.slots.items()) for i in range(1, len(slot.candidates))]
        step = -(-len(variations) // (MAX_RUNS - 1)) if variations else 1
        for path, index in variations[::step]:
            choice = {path: index}
            outer = holders.get(path)
            while outer is not None and outer[0] not in choice:
                choice[outer[0]] = outer[1]
                outer = holders.get(outer[0])
            yield choice

    def refused(self, problem: Problem) -> bool:
        """A problem at or under a field whose value is unknown: the field's own problem was reported."""
        return any(is_under(problem.path, path) for path in self.slots)


def _slots_in(template: Any) -> Iterator[str]:
    if isinstance(template, Slot):
        yield template.path
        for option in template.candidates:
            yield from _slots_in(option)
    elif isinstance(template, _Model):
        for inner in template.fields.values():
            yield from _slots_in(inner)
    elif isinstance(template, (_List, _Dict)):
        for inner in template.items.values() if isinstance(template, _Dict) else template.items:
            yield from _slots_in(inner)


def agreed_problems(repair: Repair, run: Callable[[Mapping[str, int]], list[Problem]]) -> list[Problem]:
    """The problems `run` finds for every choice of the slots' candidates (by path and rule), as the base choice
    states them, without those at or under a refused field."""
    base: list[Problem] | None = None
    kept: set[tuple[str, str]] = set()
    for choice in repair.choices():
        found = run(choice)
        keys = {(p.path, p.rule) for p in found}
        if base is None:
            base, kept = found, keys
        else:
            kept &= keys
        if not kept:
            break
    return [p for p in base or [] if (p.path, p.rule) in kept and not repair.refused(p)]


# ---------------------------------------------------------------------------------------------------
# candidate values of a type

# Values tried for a field whose value is unknown; those its type accepts become its candidates.
_INTS = (0, 1, 2, 8, 64, 100, 1000, 1440, 10080, 16384)
_FLOATS = (0.0, 0.01, 1.0, 100.0, 10000.0)
# A date (YYYY-MM-DD, e.g. a declared price's asOf) is among the texts a stand-in may take.
_TEXTS = ("true", "1", "1Gi", "8.0", "example.com/name", "2026-01-01", *versions.SUPPORTED_KUBERNETES)


def candidates(annotation: Any, raw: Any, name: str | None, default: Any, loc: Loc = ()) -> list[Any]:
    """Valid values of `annotation` that stand for an unknown value: its default first, None where allowed, every
    value of a Literal, both booleans, the smallest and largest of some whole numbers and decimals, a few texts. A `name` is
    identity, never varied: the text as written (rules compare names, so a reference to it still resolves)."""
    if name == "name":
        # the text as written first, then a valid name of its own (what depends on the text is then a knock-on)
        own = "-".join(["stand-in", *(str(part) for part in loc if isinstance(part, int))])
        written = [str(raw)] if isinstance(raw, (str, int, float)) and not isinstance(raw, bool) else []
        return [*written, *([own] if _valid(annotation, own)[0] else [])] or [f"<unnamed {join_path(*loc)}>"]
    pool: list[Any] = [] if default is MISSING else [default]
    ints: list[int] = []
    for member in _members(annotation):
        if member is type(None):
            pool.append(None)
        elif typing.get_origin(member) is typing.Literal:
            pool.extend(typing.get_args(member))
        elif member is bool:
            pool.extend((False, True))
        elif member is int:
            ints = [value for value in _INTS if _valid(annotation, value)[0]]
            pool.extend(ints[:1] + ints[-1:])
        elif member is float:
            floats = [value for value in _FLOATS if _valid(annotation, value)[0]]
            pool.extend(floats[:1] + floats[-1:])
        elif member is str or member is Any:
            pool.extend([raw] if isinstance(raw, str) else [])
            pool.extend(_TEXTS)
        elif typing.get_origin(member) is list:
            pool.append([])
        elif typing.get_origin(member) is dict or (isinstance(member, type) and issubclass(member, BaseModel)):
            pool.append({})
    out: list[Any] = []
    for value in pool:
        ok, valid = _valid(annotation, value)
        if ok and not any(valid == seen and type(valid) is type(seen) for seen in out):
            out.append(valid)
    return out


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _members(annotation: Any) -> list[Any]:
    annotation = _strip(annotation)
    if typing.get_origin(annotation) is typing.Union or type(annotation).__name__ == "UnionType":
        return [_strip(a) for a in typing.get_args(annotation)]
    return [annotation]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    models = [m for m in _members(annotation) if isinstance(m, type) and issubclass(m, BaseModel)]
    return models[0] if len(models) == 1 else None


def _container_of(annotation: Any, kind: type) -> Any:
    for member in _members(annotation):
        if typing.get_origin(member) is kind:
            args = typing.get_args(member)
            return args[-1] if args else None
    return None
