"""The stack file door: qualified config keys (`dra-gpu-platform:cluster`, `aws:region`, ...) to a StackConfig, with
every problem at once. Pure: no Pulumi imports.

The Pulumi program feeds it from the runtime config (dra_gpu_platform/program.py), `gpuplan` from the stack file itself
(`load_stack_file`), so both always agree. It only adapts keys: the sections, the region and the stack's name go to
`StackConfig.model_validate`, which validates them (dra_gpu_platform/config/validation.py), so a stack file and a dict of
the same sections give the very same problems.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from dra_gpu_platform.config.fields import PROJECT, STACK_CONFIG_DIR
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.config.spelling import read_as
from dra_gpu_platform.config.validation import (
    METADATA,
    SECRET_KEYS,
    SECTIONS,
    STACK_FILE_KEYS,
    unknown_key_fix,
    with_autoscaler_defaults,
)
from dra_gpu_platform.facts import platforms, regions
from dra_gpu_platform.inputs.problems import MISSING, ConfigError, InputError, Problem, join_path
from dra_gpu_platform.inputs.strict_yaml import read_stack_yaml

__all__ = [
    "SECRET_KEYS",
    "SECTIONS",
    "load_stack_file",
    "parse_config_map",
    "plaintext_secret_warnings",
    "read_stack_file",
    "stack_file_path",
    "stack_name_from_path",
    "with_autoscaler_defaults",
]

# Provider config keys naming where the cluster runs: the table each is checked against (each platform's Region).
_REGION_TABLES = {
    r.key: (r.names, r.what, r.example, r.reference) for p in platforms.PROFILES.values() if (r := p.region) is not None
}


def stack_file_path(stack: str, root: Path | str = ".") -> Path:
    return Path(root) / STACK_CONFIG_DIR / f"Pulumi.{stack.replace('/', '-')}.yaml"


def stack_name_from_path(path: Path | str) -> str:
    name = Path(path).name
    for suffix in (".yaml", ".yml"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name[len("Pulumi.") :] if name.startswith("Pulumi.") else name


def read_stack_file(path: Path | str) -> dict[str, Any]:
    """The `config:` map of a stack file (key → YAML value), read as Pulumi reads it (dra_gpu_platform/inputs/strict_yaml.py:
    regular UTF-8 files within limits, no duplicate keys, no aliases, YAML 1.2 scalars). Raises InputError."""
    file = str(path)
    document = read_stack_yaml(path)
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise InputError([Problem(file, "", document, "a stack file is a YAML mapping", "start with `config:`")], file)
    unknown = sorted(
        set(document) - {"config", "secretsprovider", "encryptedkey", "encryptionsalt", "environment"}, key=str
    )
    if unknown:
        raise InputError(
            [
                Problem(file, str(k), document[k], "not a Pulumi stack file key", "put settings under `config:`")
                for k in unknown
            ],
            file,
        )
    config = document.get("config") or {}
    if not isinstance(config, dict):
        raise InputError(
            [Problem(file, "config", config, "config must be a mapping", "use `key: value` entries")], file
        )
    not_text = [key for key in config if not isinstance(key, str)]
    if not_text:
        raise InputError(
            [
                Problem(
                    file,
                    f"config[{key!r}]",
                    key,
                    "a config key is text like `dra-gpu-platform:cluster`",
                    "quote the key or fix its spelling",
                )
                for key in not_text
            ],
            file,
        )
    return config


def load_stack_file(path: Path | str) -> StackConfig:
    """Validate a stack file directly (gpuplan). Raises InputError with every problem."""
    return parse_config_map(read_stack_file(path), stack=stack_name_from_path(path), source=str(path))


def parse_config_map(values: Mapping[str, Any], *, stack: str, source: str) -> StackConfig:
    """The stack file's config keys (`dra-gpu-platform:cluster`, `aws:region`, ...) mapped to decoded values, as a
    StackConfig; raises ConfigError with every problem. JSON strings (as the Pulumi runtime stores objects) are
    decoded first."""
    problems: list[Problem] = []
    sections: dict[str, Any] = {}
    region = None
    for key, raw in values.items():
        namespace, _, name = key.rpartition(":")
        if namespace not in ("", PROJECT) and key not in _REGION_TABLES and read_as(namespace, {}, [PROJECT], set())[0]:
            # `dra-gpu-plaform:nodePools`: the project's key misspelled, read as meant (other namespaces are other
            # providers' config and stay theirs)
            problems.append(
                Problem(
                    source,
                    key,
                    _decode(raw),
                    "unknown config namespace",
                    f"did you mean {PROJECT}:{name}? rename it (it was read as {PROJECT}:{name} for the other checks)",
                )
            )
            namespace = PROJECT
        if namespace in ("", PROJECT):
            if name in METADATA:  # filled from the file's name and the provider keys, never written as a section
                problems.append(
                    Problem(
                        source,
                        join_path(name),
                        _decode(raw),
                        "unknown config key",
                        unknown_key_fix(name, list(STACK_FILE_KEYS), "known keys"),
                    )
                )
            else:
                sections[name] = _decode(raw)
        elif key in _REGION_TABLES:
            known, cloud, example, listed = _REGION_TABLES[key]
            if isinstance(raw, str) and raw in known:
                region = raw
            else:
                guesses = regions.closest(raw, known) if isinstance(raw, str) else []
                problems.append(
                    Problem(
                        source,
                        key,
                        raw,
                        f"not an {cloud} name ({listed} lists them)",
                        f"did you mean {' or '.join(guesses)}?" if guesses else f"write one, e.g. {example}",
                    )
                )
    try:
        config = StackConfig.model_validate({**sections, "stack": stack, "source": source, "region": region})
    except ConfigError as error:
        given = {key for key in _REGION_TABLES if key in values}  # written, perhaps wrongly: not "missing" again
        problems.extend(p for p in error.problems if not (p.path in given and p.value is MISSING))
    if problems:
        raise ConfigError(problems, source)
    return config


def plaintext_secret_warnings(
    values: Mapping[str, Any], is_secret: Callable[[str], bool], *, stack: str, source: str
) -> list[str]:
    """Secret config values (the kubeconfig) written in plaintext: whoever can read the stack file, which is
    committed, holds the cluster's credentials. A warning, not an error: the stack still works."""
    warnings = []
    for name in SECRET_KEYS:
        key = f"{PROJECT}:{name}"
        if values.get(key) not in (None, "") and not is_secret(key):
            warnings.append(
                f"{source}: {key} is stored in plaintext, so anyone who can read the stack file holds the cluster's "
                f'credentials. Make it a secret: `pulumi config set --secret {name} "$(cat ~/.kube/config)" --stack '
                f"{stack}` (offline, `{key}: {{secure: v1:offline-placeholder}}` is enough for gpuplan)"
            )
    return warnings


def _decode(raw: Any) -> Any:
    if isinstance(raw, str):
        stripped = raw.strip()
        if stripped[:1] in ("{", "[") or stripped in ("true", "false", "null"):
            try:
                return json.loads(stripped)
            except json.JSONDecodeError:
                return raw
    return raw
