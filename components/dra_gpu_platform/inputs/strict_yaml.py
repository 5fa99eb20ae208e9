"""The one reader of user files: stack files, claim files, inventories and NVML snapshots. Pure: no Pulumi imports.

PyYAML alone accepts what the tools that read these files after us refuse, and lets a hostile file take the
machine. Here, before anything is parsed:
- only a regular file is read (a FIFO would block, /dev/zero never ends, a directory is no file), and at most
  `Limits.max_bytes` of it;
- the bytes must be UTF-8: the first bad byte is reported with its offset, line and column;
and while parsing, in one streaming pass over the parser's events (no tree built yet, so a small file cannot
grow into gigabytes before it is refused):
- nesting depth and node count are bounded; stack files may not use aliases at all, other files may use them as
  far as go-yaml (which kubectl's sigs.k8s.io/yaml uses) allows: its "excessive aliasing" ratio
  (docs/references.md#yaml-alias-limits); an alias into its own anchor (a recursive structure) is refused;
then, while the values are built:
- a key given twice in one mapping is an error naming both lines (go-yaml v3 refuses them too: Pulumi reads stack
  files with it, so `pulumi up` would fail on what PyYAML silently took as "last one wins");
- stack files resolve plain scalars the way go-yaml v3 does (YAML 1.2 core schema: `yes`, `on`, `no` stay
  strings, `010` is octal 8, `1_000` is 1000, timestamps stay strings); Kubernetes manifests keep PyYAML's YAML 1.1
  resolution, which is what sigs.k8s.io/yaml's go-yaml v2 does.
Every problem is a Problem (file, where, value, rule, fix); nothing here raises anything but InputError.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, ScalarEvent
from yaml.nodes import MappingNode, ScalarNode
from yaml.resolver import BaseResolver, Resolver

from dra_gpu_platform.inputs import yaml_hints
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem, short_text

try:  # libyaml's parser (it ships in PyYAML's wheels): C speed, and no recursion while it reads events
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    # The same interface in pure Python (mypy sees the first definition, libyaml's).
    class _Parser(  # type: ignore[no-redef]
        yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer
    ):
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)


_MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one file may hold. `aliases`: "refuse" (any alias is an error) or "go-yaml" (go-yaml's ratio)."""

    what: str  # "stack file", "claim file", ... for messages
    max_bytes: int
    max_depth: int
    max_nodes: int
    aliases: Literal["refuse", "go-yaml"]
    schema: Literal["pulumi", "kubernetes"]


# A stack file is edited by people: a 2,000-object stack is ~100 KiB. Nesting is at most ~8 deep.
STACK_FILE = Limits(
    "stack file", max_bytes=4 * _MIB, max_depth=64, max_nodes=1_000_000, aliases="refuse", schema="pulumi"
)
# Claim files, inventories (`kubectl get ... -o json` of a large cluster) and NVML snapshots.
DOCUMENTS = Limits(
    "file", max_bytes=256 * _MIB, max_depth=128, max_nodes=20_000_000, aliases="go-yaml", schema="kubernetes"
)

# go-yaml v3 decode.go (alias_ratio_range_low/high, allowedAliasRatio, and the check in unmarshal()).
_ALIAS_RATIO_LOW = 400_000
_ALIAS_RATIO_HIGH = 4_000_000


def allowed_alias_ratio(decoded: int) -> float:
    """The share of decoded nodes go-yaml lets come from alias expansion (99% small, 10% large documents)."""
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


def _excessive_aliasing(alias_nodes: int, decoded: int) -> bool:
    return alias_nodes > 100 and decoded > 1000 and alias_nodes / decoded > allowed_alias_ratio(decoded)


# ------------------------------------------------------------------------------------------------ reading bytes

_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _fail(file: str, value: Any, rule: str, fix: str, where: str = "") -> InputError:
    return InputError([Problem(file, where, value, rule, fix)], file)


def read_text(path: Path | str, limits: Limits, *, missing_fix: str = "check the path") -> str:
    """The file's text: a regular file of at most limits.max_bytes, valid UTF-8 (a leading BOM is dropped)."""
    file = str(path)
    try:
        # O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise _fail(file, MISSING, f"the {limits.what} does not exist", missing_fix) from None
    except PermissionError:
        raise _fail(
            file,
            MISSING,
            f"the {limits.what} cannot be read: permission denied",
            f"make it readable (`chmod u+r {file}`) or run as a user who may read it",
        ) from None
    except OSError as error:
        raise _fail(file, MISSING, f"the {limits.what} cannot be opened: {error.strerror}", missing_fix) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = next((name for test, name in _FILE_KINDS if test(info.st_mode)), "not a regular file")
        raise _fail(
            file,
            MISSING,
            f"the {limits.what} is {kind}, not a regular file; it was not read",
            "pass the path of a regular file",
        )
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > limits.max_bytes:
            raise _fail(file, f"{info.st_size} bytes", _too_big(limits), _too_big_fix(limits))
        try:
            data = handle.read(limits.max_bytes + 1)
        except OSError as error:
            raise _fail(file, MISSING, f"the {limits.what} cannot be read: {error.strerror}", missing_fix) from None
    if len(data) > limits.max_bytes:  # a file that grew, or one whose size stat does not know (/proc)
        raise _fail(file, f"more than {limits.max_bytes} bytes", _too_big(limits), _too_big_fix(limits))
    return decode_utf8(data, file, limits.what)


def _too_big(limits: Limits) -> str:
    return f"a {limits.what} may hold at most {limits.max_bytes // _MIB} MiB"


def _too_big_fix(limits: Limits) -> str:
    if limits.schema == "pulumi":
        return "a stack file this large is not one people edit: check that the right file was given"
    return "pass fewer objects per file (several --claims files, or only the ResourceSlices in --inventory)"


def decode_utf8(data: bytes, file: str, what: str = "file") -> str:
    bom = b"\xef\xbb\xbf"
    skip = len(bom) if data.startswith(bom) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = error.start + skip
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        hint = " (it starts with a UTF-16 byte order mark)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise _fail(
            file,
            f"byte 0x{data[offset]:02x}",
            f"the {what} is not UTF-8{hint}: the first bad byte is at offset {offset} (line {line}, column {column})",
            "save the file as UTF-8 (e.g. `iconv -f LATIN1 -t UTF-8`)",
            where=f"byte {offset}",
        ) from None


# ------------------------------------------------------------------------------------------------ resolution


class PulumiResolver(BaseResolver):
    """Plain-scalar resolution of go-yaml v3 (resolve.go), which reads Pulumi stack files: the YAML 1.2 core
    schema's true/false/null, ints with 0x/0o/0b and (go-yaml's 1.1 compatibility) a leading-0 octal, `_` in
    numbers, .inf/.nan; everything else is a string (timestamps too: Pulumi hands them to the program as text)."""


_BOOL_12 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL_12 = re.compile(r"^(?:~|null|Null|NULL|)$")
# go-yaml strips `_` and then tries strconv.ParseInt(plain, 0, 64): an optional sign, then 0x / 0o / 0b / 0 / decimal.
_INT_GO = re.compile(r"^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|[0-9][0-9_]*)$")
_FLOAT_GO = re.compile(
    r"^(?:[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)

PulumiResolver.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL_12, list("tTfF"))
PulumiResolver.add_implicit_resolver("tag:yaml.org,2002:null", _NULL_12, ["~", "n", "N", ""])
PulumiResolver.add_implicit_resolver("tag:yaml.org,2002:int", _INT_GO, list("-+0123456789"))
PulumiResolver.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_GO, list("-+0123456789."))
PulumiResolver.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^<<$"), ["<"])


def go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64) after go-yaml removed the underscores; None when Go would not parse it."""
    plain = text.replace("_", "")
    sign = -1 if plain.startswith("-") else 1
    digits = plain.lstrip("+-")
    try:
        if digits[:2].lower() == "0x":
            value = int(digits[2:], 16)
        elif digits[:2].lower() == "0o":
            value = int(digits[2:], 8)
        elif digits[:2].lower() == "0b":
            value = int(digits[2:], 2)
        elif len(digits) > 1 and digits.startswith("0"):
            value = int(digits[1:], 8)  # Go's base-0 rule: a leading 0 is octal
        else:
            value = int(digits, 10)
    except ValueError:
        return None
    value *= sign
    if -(2**63) <= value < 2**63:
        return value
    # then strconv.ParseUint(plain, 0, 64): up to 2**64 - 1, and no sign
    return value if value < 2**64 and plain[:1] not in "+-" else None


# go-yaml's yamlStyleFloat (resolve.go): an integer Go could not parse as int64 or uint64 that has this form is a float.
_GO_YAML_FLOAT_STYLE = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


# ------------------------------------------------------------------------------------------------ construction

# A lone UTF-16 surrogate escape ("\\ud800") is no text: libyaml refuses it, Python's json does not; such JSON goes
# through YAML so that it is refused with its position.
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")


class _Duplicate(Exception):
    """A JSON object with a repeated key: read it again as YAML, which names the lines."""


class _StrictConstructor(SafeConstructor):
    """SafeConstructor that records every key given twice in one mapping (merge keys may be overridden)."""

    def __init__(self) -> None:
        super().__init__()
        self.duplicates: list[tuple[Any, str, str]] = []  # (key, first place, second place)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        if isinstance(node, MappingNode):
            seen: dict[tuple[type, Any], str] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                identity = (type(key), key)  # by type too: 1 and true are different keys
                try:
                    first = seen.get(identity)
                except TypeError:
                    continue  # an unhashable key: SafeConstructor reports it
                place = _where(key_node.start_mark)
                if first is None:
                    seen[identity] = place
                else:
                    self.duplicates.append((key, first, place))
        return super().construct_mapping(node, deep=deep)


class _PulumiConstructor(_StrictConstructor):
    def construct_go_int(self, node: ScalarNode) -> int | float | str:
        text = self.construct_scalar(node)
        value = go_int(text)
        if value is not None:
            return value
        # Beyond 64 bits (or `08`): go-yaml tries a float next, and ParseFloat refuses only what overflows float64;
        # anything else stays the text (docs/references.md#pulumi-yaml-decoding).
        plain = text.replace("_", "")
        if _GO_YAML_FLOAT_STYLE.match(plain) and math.isfinite(float(plain)):
            return float(plain)
        return text

    def construct_go_float(self, node: ScalarNode) -> float:
        text = self.construct_scalar(node).replace("_", "")
        special = {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}
        return special[text.lower()] if text.lower() in special else float(text)


# typeshed types a constructor's first argument as one of PyYAML's own Loader classes; these constructors belong to a
# constructor mixin, as PyYAML's own do (SafeConstructor.construct_yaml_str below), hence the type-var ignores.
_PulumiConstructor.add_constructor("tag:yaml.org,2002:int", _PulumiConstructor.construct_go_int)  # type: ignore[type-var]
_PulumiConstructor.add_constructor("tag:yaml.org,2002:float", _PulumiConstructor.construct_go_float)  # type: ignore[type-var]


# PyYAML's YAML 1.1 resolver tags a bare `=` as !!value, for which SafeConstructor has no constructor; go-yaml
# (kubectl) reads it as the string "=".
_StrictConstructor.add_constructor("tag:yaml.org,2002:value", SafeConstructor.construct_yaml_str)  # type: ignore[type-var]


class _StackLoader(_Parser, _PulumiConstructor, PulumiResolver):
    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        _PulumiConstructor.__init__(self)
        PulumiResolver.__init__(self)


class _DocumentLoader(_Parser, _StrictConstructor, Resolver):
    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        _StrictConstructor.__init__(self)
        Resolver.__init__(self)


# ------------------------------------------------------------------------------------------------ parsing


class _Mark(Protocol):
    """A place in the text: PyYAML's Mark and libyaml's alike."""

    line: int
    column: int


def _where(mark: _Mark | None) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "unknown position"


def _syntax_problem(file: str, error: yaml.YAMLError, text: str) -> Problem:
    """The problem of a YAML syntax error: where it is, the line with a caret under the column, the usual cause in
    words and its fix (dra_gpu_platform/inputs/yaml_hints.py), and the parser's own message."""
    mark = getattr(error, "problem_mark", None)
    opened = getattr(error, "context_mark", None)
    where = _where(mark)
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    if isinstance(error, yaml.reader.ReaderError):
        character = error.character if isinstance(error.character, int) else ord(str(error.character)[:1] or "\0")
        position = int(error.position)
        line = text.count("\n", 0, position)
        column = position - (text.rfind(chr(10), 0, position) + 1)
        where = f"line {line + 1}, column {column + 1}"
        return Problem(
            file,
            where,
            MISSING,
            f"not valid YAML ({where}): character U+{character:04X} is not allowed in YAML",
            # only BMP code points are refused (YAML 1.2 allows every printable one beyond it)
            f"remove the character or write it as the escape \\u{character:04X} in a double-quoted string",
            excerpt=yaml_hints.excerpt(text, line, column),
        )
    if mark is None:
        return Problem(file, "", MISSING, f"not valid YAML: {short_text(problem, 200)}", "fix the YAML syntax")
    said = f"{context}, {problem}" if context else problem
    if "quoted scalar" in said and opened is not None:  # shown where the quote opens: the end of the file says nothing
        mark, opened, where = opened, None, _where(opened)
    found = yaml_hints.hint(
        text, mark.line, mark.column, said, (opened.line, opened.column) if opened is not None else None
    )
    rule = f"not valid YAML ({where}): " + (
        f"{found.cause} (the parser: {short_text(said, 160)})" if found.cause else short_text(said, 200)
    )
    return Problem(file, where, MISSING, rule, found.fix, excerpt=yaml_hints.excerpt(text, mark.line, mark.column))


def scan(text: str, file: str, limits: Limits) -> None:
    """One pass over the parser's events: depth, node count and aliases within `limits`, else InputError.
    Nothing is built, so a bomb is refused in the time it takes to read its few hundred bytes."""
    depth = 0
    decoded = 0  # nodes as go-yaml counts them when decoding: every node, aliases expanded
    from_aliases = 0
    sizes: dict[str, int] = {}  # anchor -> expanded size of its node
    open_anchors: list[tuple[str | None, int]] = []  # per open collection: (anchor, decoded before it)

    def refuse(rule: str, fix: str, mark: _Mark | None, value: Any = MISSING) -> InputError:
        return InputError([Problem(file, _where(mark), value, rule, fix)], file)

    try:
        # typeshed lists PyYAML's own Loader classes only; this one is built from the same parts as they are.
        for event in yaml.parse(text, Loader=_DocumentLoader):  # type: ignore[arg-type]
            if isinstance(event, AliasEvent):
                anchor = event.anchor or ""  # an alias always names its anchor (the parser requires `*name`)
                if limits.aliases == "refuse":
                    raise refuse(
                        f"a {limits.what} may not use YAML aliases (*{short_text(anchor, 40)})",
                        "write the value out in full where the alias stands (and drop its &anchor)",
                        event.start_mark,
                        f"*{short_text(anchor, 40)}",
                    )
                if any(name == anchor for name, _ in open_anchors):
                    raise refuse(
                        f"alias *{short_text(anchor, 40)} points into its own anchor: a structure without end",
                        "remove the alias or point it at a value outside the anchored one",
                        event.start_mark,
                    )
                size = sizes.get(anchor, 1)
                decoded += size
                from_aliases += size
                if _excessive_aliasing(from_aliases, decoded):
                    raise refuse(
                        "the document contains excessive aliasing (go-yaml's limit, which kubectl applies too)",
                        "write the objects out instead of expanding aliases into them",
                        event.start_mark,
                        f"{from_aliases} of {decoded} nodes from aliases",
                    )
            elif isinstance(event, (ScalarEvent, CollectionStartEvent)):
                decoded += 1
                if isinstance(event, ScalarEvent):
                    if event.anchor is not None:
                        sizes[event.anchor] = 1
                else:
                    depth += 1
                    if depth > limits.max_depth:
                        raise refuse(
                            f"nested deeper than {limits.max_depth} levels",
                            f"flatten the structure; no valid {limits.what} nests this deep",
                            event.start_mark,
                        )
                    open_anchors.append((event.anchor, decoded - 1))
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
                closed, before = open_anchors.pop()
                if closed is not None:
                    sizes[closed] = decoded - before
            if decoded > limits.max_nodes:
                raise refuse(
                    f"more than {limits.max_nodes} YAML nodes (aliases expanded)",
                    _too_big_fix(limits),
                    getattr(event, "start_mark", None),
                )
    except yaml.YAMLError as error:
        raise InputError([_syntax_problem(file, error, text)], file) from None


def _construct(text: str, file: str, loader_class: type[_StackLoader | _DocumentLoader], *, single: bool) -> list[Any]:
    refused_by = " and Pulumi refuses the file" if loader_class is _StackLoader else " and kubectl refuses the file"
    loader = loader_class(text)
    try:
        if single:
            documents = [loader.get_single_data()]
        else:
            documents = []
            while loader.check_data():  # type: ignore[no-untyped-call]  # unannotated in typeshed's PyYAML stubs
                documents.append(loader.get_data())
    except yaml.YAMLError as error:
        raise InputError([_syntax_problem(file, error, text)], file) from None
    except ValueError as error:  # an int of more digits than Python converts (sys.get_int_max_str_digits)
        raise InputError(
            [
                Problem(
                    file,
                    "",
                    MISSING,
                    f"a value cannot be read: {short_text(error, 120)}",
                    "write numbers of at most a few dozen digits, or quote them",
                )
            ],
            file,
        ) from None
    except RecursionError:  # cannot happen within max_depth; kept so a deeper libyaml never means a traceback
        raise InputError([Problem(file, "", MISSING, "nested too deeply", "flatten the structure")], file) from None
    finally:
        loader.dispose()
    if loader.duplicates:
        raise InputError(
            [
                Problem(
                    file,
                    second,
                    key,
                    f"key {short_text(repr(key), 80)} is given twice in one mapping ({first} and {second}); "
                    f"YAML requires unique keys{refused_by}",
                    "keep one of them: merge the two entries into one",
                )
                for key, first, second in loader.duplicates
            ],
            file,
        )
    return documents


def load_stack_text(text: str, file: str) -> Any:
    """One YAML document read the way Pulumi reads a stack file (STACK_FILE limits)."""
    scan(text, file, STACK_FILE)
    return _construct(text, file, _StackLoader, single=True)[0]


def read_stack_yaml(path: Path | str) -> Any:
    return load_stack_text(read_text(path, STACK_FILE, missing_fix="check --stack/--config"), str(path))


def load_documents_text(
    text: str, file: str, limits: Limits = DOCUMENTS, *, json_array_is_documents: bool = False
) -> list[Any]:
    """Every document of a YAML or JSON file. JSON (what kubectl -o json and NVML snapshots are) takes the
    fast json parser; a JSON file with a repeated key goes through YAML, which names its lines. With
    `json_array_is_documents`, a file that is one JSON array is its items."""
    documents = _load_documents(text, file, limits)
    if json_array_is_documents and len(documents) == 1 and isinstance(documents[0], list) and text.lstrip()[:1] == "[":
        return documents[0]
    return documents


def _load_documents(text: str, file: str, limits: Limits) -> list[Any]:
    if text.lstrip()[:1] in ("{", "["):
        try:
            document = json.loads(text, object_pairs_hook=_unique_pairs)
        except (ValueError, _Duplicate, RecursionError):
            pass  # YAML flow style, a duplicate key or deep nesting: the YAML path says which
        else:
            if _depth(document, limits.max_depth) <= limits.max_depth and not (
                _SURROGATE_ESCAPE.search(text) and _has_surrogate(document)
            ):
                return [document]
    scan(text, file, limits)
    return _construct(text, file, _DocumentLoader, single=False)


def read_documents_file(
    path: Path | str,
    limits: Limits = DOCUMENTS,
    *,
    missing_fix: str = "check the path",
    json_array_is_documents: bool = False,
) -> list[Any]:
    return load_documents_text(
        read_text(path, limits, missing_fix=missing_fix),
        str(path),
        limits,
        json_array_is_documents=json_array_is_documents,
    )


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of parsed JSON, level by level without recursion; stops counting past `limit`."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level and depth <= limit:
        depth += 1
        below: list[Any] = []
        for node in level:
            below.extend(
                [c for c in (node.values() if type(node) is dict else node) if type(c) is dict or type(c) is list]
            )
        level = below
    return depth


def _has_surrogate(value: Any) -> bool:
    todo = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return True
        elif isinstance(node, dict):
            todo.extend(node.keys())
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return False


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Duplicate()
    return result
