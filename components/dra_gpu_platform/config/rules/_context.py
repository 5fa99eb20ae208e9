"""What every rule module gets: the stack, the names written in its list sections, and the problem list."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from dra_gpu_platform.config.derived import StackSections
from dra_gpu_platform.inputs.problems import Problem


class RuleContext:
    def __init__(self, config: StackSections, declared: dict[str, set[str]], unknown: set[str] | None = None):
        self.c = config
        self.declared = declared  # names written in each list section, valid or not
        self.unknown = unknown or set()  # sections where some name could not be read (not text)
        self.problems: list[Problem] = []

    def dangling(self, section: str, name: str, known: set[str]) -> bool:
        """`name` names nothing in `section`: neither a known item nor one written there (however refused), and no
        item of the section has a name that could not be read (it may be the one meant)."""
        return section not in self.unknown and name not in known and name not in self.declared.get(section, set())

    def add(self, path: str, value: Any, rule: str, fix: str) -> None:
        self.problems.append(Problem(self.c.source, path, value, rule, fix))

    def unique(self, section: str, names: Iterable[str]) -> None:
        seen: Counter[str] = Counter()
        for index, name in enumerate(names):
            seen[name] += 1
            if seen[name] == 2:
                self.add(
                    f"{section}[{index}].name",
                    name,
                    "names must be unique in the list",
                    "rename one of them; names are the identity of the resources they create",
                )
