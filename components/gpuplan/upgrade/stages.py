"""The stack file at each stage of an upgrade plan: the user's file with the stage's edits, written to a folder of
its own under the same file name (same stack name, so the URNs of every stage match), checked by the config layer,
and run under the mock runtime like `gpuplan diff` runs its two sides."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dra_gpu_platform.config.fields import PROJECT
from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.inputs.problems import InputError, Problem
from dra_gpu_platform.inputs.strict_yaml import STACK_FILE, read_text
from dra_gpu_platform.plans.upgrade import UpgradePlan
from dra_gpu_platform.plans.upgrade_steps import Edit, Stage


@dataclass
class StageFile:
    number: int  # 0: the stack as it is
    title: str
    path: Path
    config: StackConfig | None  # None: the config layer refuses this stage's stack file
    problems: list[Problem]


def edited_document(document: dict[str, Any], edits: dict[tuple[str, ...], str]) -> dict[str, Any]:
    """The stack file's YAML document with each edit set under `config: dra-gpu-platform:<section>`."""
    out = copy.deepcopy(document)
    config = out.setdefault("config", {})
    for path, value in edits.items():
        section, *rest = path
        key = f"{PROJECT}:{section}"
        if not rest:
            config[key] = value
            continue
        node = config.setdefault(key, {})
        for part in rest[:-1]:
            node = node.setdefault(part, {})
        node[rest[-1]] = value
    return out


def write_stages(stack_file: Path, config: StackConfig, plan: UpgradePlan, folder: Path) -> list[StageFile]:
    """Stage 0 (the file itself, `config` as it reads) and every stage of the plan, each in `folder/<n>/<file name>`; a stage whose file
    the config layer refuses carries its problems."""
    text = read_text(stack_file, STACK_FILE, missing_fix="check --stack/--config")
    document = yaml.safe_load(text) or {}
    files = [StageFile(0, "the stack as it is", stack_file, config, [])]
    for stage in plan.stages:
        target = folder / str(stage.number) / stack_file.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump(edited_document(document, plan.stage_edits(stage.number)), sort_keys=False))
        files.append(_checked(stage, target))
    return files


def _checked(stage: Stage, path: Path) -> StageFile:
    try:
        return StageFile(stage.number, stage.title, path, load_stack_file(path), [])
    except InputError as error:  # a ConfigError too
        return StageFile(stage.number, stage.title, path, None, list(error.problems))


def edits_text(edits: tuple[Edit, ...]) -> str:
    return ", ".join(f"{edit.text}: {edit.value}" for edit in edits)
