"""Unknown keys, however they are spelled: the closest key of the contract (`instance_type`, `instance-type`,
`InstanceType` and `instanceTyp` all mean instanceType), and, where the meant key is not written too, the value
read as that key for every other check. So a `nodepools:` typo is one problem ("did you mean nodePools?") and not,
besides it, every rule that misses the pools. Pure: no Pulumi imports.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from dra_gpu_platform.inputs.problems import Problem, join_path

# How alike two spellings (lower-case, without `_` and `-`) must be for an unknown key to be read as the known one;
# below it the key is only suggested. `nodepool`/`nodePools` and `maxNode`/`maxNodes` are read; `zone` is not
# `availabilityZone`.
READ_AS_CUTOFF = 0.8
SUGGEST_CUTOFF = 0.6


def _plain(text: str) -> str:
    return text.replace("_", "").replace("-", "").replace(" ", "").lower()


def closest_key(key: Any, allowed: list[str]) -> str | None:
    """The allowed key `key` most likely meant: its camelCase spelling (`instance_type` → instanceType), the same
    letters in another case or with `-`/`_` (`maxnodes`, `max-nodes` → maxNodes), or a near spelling."""
    match = _closest(key, allowed)
    return match[0] if match else None


def _closest(key: Any, allowed: list[str]) -> tuple[str, float] | None:
    text = str(key)
    if not allowed:
        return None
    by_letters = {_plain(a): a for a in allowed}
    for candidate in (to_camel(text), _plain(text)):
        if candidate in allowed:
            return candidate, 1.0
        if _plain(candidate) in by_letters:
            return by_letters[_plain(candidate)], 1.0
    scored = [
        (difflib.SequenceMatcher(None, _plain(text), plain).ratio(), known) for plain, known in by_letters.items()
    ]
    ratio, best = max(scored)
    if ratio >= SUGGEST_CUTOFF:
        return best, ratio
    # a part of a longer key (`zone` of availabilityZone): suggested, never read as it
    within = [known for plain, known in by_letters.items() if len(_plain(text)) >= 3 and _plain(text) in plain]
    return (within[0], SUGGEST_CUTOFF) if len(within) == 1 else None


def unknown_key_fix(key: Any, allowed: list[str], listing: str = "allowed here", *, written: bool = False) -> str:
    """The fix of an unknown key: the closest allowed key, whether it was read as that key, and the list."""
    guess = closest_key(key, allowed)
    if guess is None:
        hint = ""
    elif written:
        hint = f" (did you mean {guess}? it is given too: keep one of them)"
    else:
        hint = f" (did you mean {guess}?)"
    return f"remove it or fix the spelling{hint}; {listing}: {', '.join(allowed)}"


@dataclass
class Spelling:
    """What `correct` found: the data with misspelled keys read as the keys they mean, one problem per misspelled
    key, and where each corrected key was written (corrected path → written path) for the problems found later."""

    data: Any
    problems: list[Problem] = field(default_factory=list)
    written: dict[str, str] = field(default_factory=dict)

    def as_written(self, problem: Problem) -> Problem:
        """`problem` at the path the user wrote (the misspelled key, not the key it was read as)."""
        path = problem.path
        for corrected, spelled in sorted(self.written.items(), key=lambda item: -len(item[0])):
            if path == corrected or path.startswith((corrected + ".", corrected + "[")):
                path = spelled + path[len(corrected) :]
                break
        return (
            problem if path == problem.path else Problem(problem.file, path, problem.value, problem.rule, problem.fix)
        )


def read_as(key: Any, raw: Mapping[Any, Any], allowed: list[str], claimed: set[str]) -> tuple[str | None, str | None]:
    """(key to read it as, or None; the key suggested, or None) for an unknown key of `raw`."""
    match = _closest(key, allowed)
    if match is None:
        return None, None
    guess, ratio = match
    if ratio >= READ_AS_CUTOFF and guess not in raw and guess not in claimed:
        return guess, guess
    return None, guess


def correct(
    annotation: Any,
    raw: Any,
    loc: tuple[str | int, ...],
    source: str | None,
    spelling: Spelling,
    extra_keys: tuple[str, ...] = (),
) -> Any:
    """`raw` with the misspelled keys of every model along `annotation` read as the keys they mean (a copy where
    anything changed); each such key is one problem in `spelling`. Keys that mean nothing are left to pydantic's
    `extra_forbidden` (dra_gpu_platform/config/validation.py explains them with the closest key)."""
    target = _model_of(annotation)
    if isinstance(raw, list):
        item = _item_of(annotation)
        return [correct(item, value, (*loc, i), source, spelling) for i, value in enumerate(raw)] if item else raw
    if not isinstance(raw, Mapping):
        return raw
    if target is None:
        value_type = _value_of(annotation)
        if value_type is None:
            return raw
        return {key: correct(value_type, value, (*loc, key), source, spelling) for key, value in raw.items()}
    fields = {f.alias or name: f for name, f in target.model_fields.items()}
    out: dict[Any, Any] = {}
    claimed: set[str] = set()
    for key, value in raw.items():
        if key in fields or key in extra_keys:
            out[key] = value
            continue
        meant, _ = read_as(key, raw, list(fields), claimed)
        if meant is None:
            out[key] = value  # pydantic reports it
            continue
        claimed.add(meant)
        out[meant] = value
        spelling.written[join_path(*loc, meant)] = join_path(*loc, key)
        spelling.problems.append(
            Problem(
                source,
                join_path(*loc, key),
                value,
                "unknown key",
                f"did you mean {meant}? rename it (it was read as {meant} for the other checks); keys are camelCase "
                "as docs/configuration.md spells them",
            )
        )
    for key, value in list(out.items()):
        if key in fields:
            out[key] = correct(fields[key].annotation, value, (*loc, key), source, spelling)
    return out


def _strip(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _members(annotation: Any) -> list[Any]:
    annotation = _strip(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Union or type(annotation).__name__ == "UnionType":
        return [_strip(a) for a in typing.get_args(annotation) if a is not type(None)]
    return [annotation]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    models = [m for m in _members(annotation) if isinstance(m, type) and issubclass(m, BaseModel)]
    return models[0] if len(models) == 1 else None


def _item_of(annotation: Any) -> Any:
    for member in _members(annotation):
        if typing.get_origin(member) is list:
            return typing.get_args(member)[0]
    return None


def _value_of(annotation: Any) -> Any:
    for member in _members(annotation):
        if typing.get_origin(member) is dict:
            args = typing.get_args(member)
            value = args[1] if len(args) == 2 else None
            return value if _model_of(value) is not None or _item_of(value) is not None else None
    return None
