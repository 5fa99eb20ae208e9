"""Which metric names a PromQL expression reads. Pure: no Pulumi imports.

A small lexer, not a full parser: it drops what cannot hold a metric name (string literals, label
matchers `{...}`, ranges `[...]`, grouping lists after by/without/on/ignoring/group_left/group_right),
then every identifier left is a function (followed by `(`), a keyword, or a metric name. Unknown
functions are reported too, so a typo in a function name cannot hide a metric.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# PromQL functions and aggregation operators (Prometheus docs: querying/functions, querying/operators).
FUNCTIONS = frozenset(
    {
        # aggregation operators
        "sum",
        "min",
        "max",
        "avg",
        "group",
        "stddev",
        "stdvar",
        "count",
        "count_values",
        "bottomk",
        "topk",
        "quantile",
        "limitk",
        "limit_ratio",
        # functions
        "abs",
        "absent",
        "absent_over_time",
        "ceil",
        "changes",
        "clamp",
        "clamp_max",
        "clamp_min",
        "day_of_month",
        "day_of_week",
        "day_of_year",
        "days_in_month",
        "delta",
        "deriv",
        "exp",
        "floor",
        "histogram_avg",
        "histogram_count",
        "histogram_fraction",
        "histogram_quantile",
        "histogram_sum",
        "histogram_stddev",
        "histogram_stdvar",
        "holt_winters",
        "double_exponential_smoothing",
        "hour",
        "idelta",
        "increase",
        "irate",
        "label_join",
        "label_replace",
        "ln",
        "log2",
        "log10",
        "minute",
        "month",
        "predict_linear",
        "rate",
        "resets",
        "round",
        "scalar",
        "sgn",
        "sort",
        "sort_desc",
        "sort_by_label",
        "sort_by_label_desc",
        "sqrt",
        "time",
        "timestamp",
        "vector",
        "year",
        "avg_over_time",
        "min_over_time",
        "max_over_time",
        "sum_over_time",
        "count_over_time",
        "quantile_over_time",
        "stddev_over_time",
        "stdvar_over_time",
        "last_over_time",
        "present_over_time",
        "mad_over_time",
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atan",
        "atanh",
        "cos",
        "cosh",
        "sin",
        "sinh",
        "tan",
        "tanh",
        "deg",
        "pi",
        "rad",
    }
)
KEYWORDS = frozenset(
    {
        "and",
        "or",
        "unless",
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
        "bool",
        "offset",
        "atan2",
        "inf",
        "nan",
        "start",
        "end",
    }
)

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", re.IGNORECASE)
_TOKEN = re.compile(
    r"(?P<variable>\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)"  # Grafana template variables ($__rate_interval, ${x})
    r"|(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?:ms|[smhdwy])?(?:\d+(?:ms|[smhdwy]))*)"
    r"|(?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)"
    r"|(?P<other>\S)"
)


class PromQLNameError(ValueError):
    """The expression calls something that is not a PromQL function."""


@dataclass(frozen=True)
class Names:
    metrics: frozenset[str]
    functions: frozenset[str]


def _strip_brackets(text: str, open_char: str, close_char: str) -> str:
    out, depth = [], 0
    for char in text:
        if char == open_char:
            depth += 1
            out.append(" ")
        elif char == close_char and depth:
            depth -= 1
            out.append(" ")
        elif depth:
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def names(expr: str) -> Names:
    text = _STRING.sub(" ", expr)
    text = _strip_brackets(text, "{", "}")
    text = _strip_brackets(text, "[", "]")
    text = _GROUPING.sub(" ", text)
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(text)]
    metrics: set[str] = set()
    functions: set[str] = set()
    for index, (kind, value) in enumerate(tokens):
        if kind != "ident":
            continue
        following = tokens[index + 1][1] if index + 1 < len(tokens) else ""
        if following == "(":
            if value.lower() in KEYWORDS:
                continue
            if value not in FUNCTIONS:
                raise PromQLNameError(f"{value!r} is not a PromQL function (in {expr!r})")
            functions.add(value)
        elif value.lower() not in KEYWORDS:
            metrics.add(value)
    return Names(frozenset(metrics), frozenset(functions))


def metric_names(expr: str) -> frozenset[str]:
    return names(expr).metrics


_MATCHER_LABEL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")
_BEFORE_BRACE = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)\s*$")


def _blank_strings(expr: str) -> str:
    """The expression with every string literal's content replaced by spaces (same length, quotes kept)."""
    return _STRING.sub(lambda match: match.group()[0] + " " * (len(match.group()) - 2) + match.group()[-1], expr)


def selectors(expr: str) -> list[tuple[str | None, frozenset[str]]]:
    """(metric name or None, label names matched) for every `{...}` selector of the expression."""
    text = _blank_strings(expr)
    found: list[tuple[str | None, frozenset[str]]] = []
    start = text.find("{")
    while start != -1:
        end = text.find("}", start)
        if end == -1:
            raise PromQLNameError(f"unclosed label matcher in {expr!r}")
        before = _BEFORE_BRACE.search(text[:start])
        name = before.group(1) if before and before.group(1) not in FUNCTIONS | KEYWORDS else None
        labels = frozenset(_MATCHER_LABEL.findall(text[start + 1 : end])) - {"__name__"}
        found.append((name, labels))
        start = text.find("{", end)
    return found
