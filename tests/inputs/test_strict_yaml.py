"""dra_gpu_platform/inputs/strict_yaml.py: what PyYAML alone would take silently or never finish, refused with a reason:
duplicate keys (both lines), aliases in stack files, alias bombs (in milliseconds, in bounded memory), recursive
aliases, depth and node limits, FIFOs, directories and devices, bytes that are not UTF-8, oversized files; and
stack files read with go-yaml v3's scalars, as Pulumi reads them."""

from __future__ import annotations

import os
import time
import tracemalloc
from dataclasses import replace

import pytest

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.inputs.problems import InputError, Problem
from dra_gpu_platform.inputs.strict_yaml import (
    DOCUMENTS,
    STACK_FILE,
    allowed_alias_ratio,
    go_int,
    load_documents_text,
    load_stack_text,
    read_text,
)

# 9 levels of 9 aliases each: 9**9 (387 million) strings once expanded, from 342 bytes.
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8)
)


def problems(call, *args) -> list[Problem]:
    with pytest.raises(InputError) as raised:
        call(*args)
    return raised.value.problems


def test_a_repeated_key_names_both_lines():
    [problem] = problems(load_stack_text, "config:\n  a: 1\n  b: 2\n  a: 3\n", "Pulumi.x.yaml")
    assert problem.path == "line 4, column 3" and problem.value == "a"
    assert "line 2, column 3 and line 4, column 3" in problem.rule and "Pulumi refuses" in problem.rule


def test_a_repeated_section_that_dropped_a_namespace_is_an_error(tmp_path):
    # The case: two `dra-gpu-platform:namespaces:` blocks; PyYAML kept the second one only.
    stack = tmp_path / "Pulumi.dup.yaml"
    stack.write_text(
        "config:\n"
        "  dra-gpu-platform:cluster: {platform: kind, name: dup, kubernetesVersion: '1.35'}\n"
        "  dra-gpu-platform:nodePools:\n"
        "    - {name: pool, gpu: H100, maxNodes: 2, maxNodes: 3}\n"
        "  dra-gpu-platform:namespaces:\n"
        "    - {name: team-a, migration: legacy}\n"
        "  dra-gpu-platform:namespaces:\n"
        "    - {name: team-b, migration: legacy}\n",
        encoding="utf-8",
    )
    found = {(p.path, p.value) for p in problems(load_stack_file, stack)}
    assert found == {("line 4, column 44", "maxNodes"), ("line 7, column 3", "dra-gpu-platform:namespaces")}


def test_duplicate_keys_in_json_are_found_with_their_lines_too():
    [problem] = problems(load_documents_text, '{"items": [\n  {"name": "a",\n   "name": "b"}]}', "slices.json")
    assert problem.value == "name" and "line 2" in problem.rule and "line 3" in problem.rule
    assert load_documents_text('{"items": [{"name": "a"}]}', "slices.json") == [{"items": [{"name": "a"}]}]


def test_stack_files_may_not_use_aliases():
    [problem] = problems(load_stack_text, "config:\n  a: &labels {team: x}\n  b: *labels\n", "Pulumi.x.yaml")
    assert problem.path == "line 3, column 6" and "aliases" in problem.rule and "in full" in problem.fix


def test_an_alias_bomb_is_refused_at_once_in_little_memory():
    tracemalloc.start()
    started = time.perf_counter()
    try:
        [problem] = problems(load_documents_text, ALIAS_BOMB, "claims.yaml")
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "excessive aliasing" in problem.rule
    # Refused while reading its events, before anything is expanded (PyYAML then pydantic took minutes and GBs).
    assert seconds < 2 and peak < 5 * 1024 * 1024, (seconds, peak)


def test_moderate_aliasing_is_allowed_as_go_yaml_allows_it():
    text = "base: &b {gpu: H100}\n" + "".join(f"n{i}: *b\n" for i in range(50))
    [document] = load_documents_text(text, "claims.yaml")
    assert document["n49"] == {"gpu": "H100"}
    assert allowed_alias_ratio(1000) == 0.99 and allowed_alias_ratio(4_000_000) == 0.10
    assert allowed_alias_ratio(2_200_000) == pytest.approx(0.545)


def test_an_alias_into_its_own_anchor_is_refused():
    [problem] = problems(load_documents_text, "a: &a [1, *a]\n", "claims.yaml")
    assert "its own anchor" in problem.rule


def test_depth_and_node_limits(tmp_path):
    deep = "[" * 200 + "]" * 200
    for text in (deep, "x: " + deep):  # JSON and YAML take different parsers: both are bounded
        [problem] = problems(load_documents_text, text, "deep.yaml")
        assert "nested deeper than 128 levels" in problem.rule
    small = replace(DOCUMENTS, max_nodes=1000)
    [problem] = problems(load_documents_text, "\n".join(f"k{i}: v" for i in range(600)), "many.yaml", small)
    assert "more than 1000 YAML nodes" in problem.rule


def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "Pulumi.fifo.yaml"
    os.mkfifo(fifo)  # opened for reading it would block until someone writes
    for path, kind in ((fifo, "a FIFO (named pipe)"), (tmp_path, "a directory"), ("/dev/zero", "a character device")):
        [problem] = problems(read_text, path, STACK_FILE)
        assert f"is {kind}, not a regular file" in problem.rule and problem.file == str(path)
    [problem] = problems(read_text, tmp_path / "missing.yaml", STACK_FILE)
    assert "does not exist" in problem.rule


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "Pulumi.big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(STACK_FILE.max_bytes + 1)  # sparse: nothing to write, nothing read
    [problem] = problems(read_text, big, STACK_FILE)
    assert "at most 4 MiB" in problem.rule and problem.value == f"{STACK_FILE.max_bytes + 1} bytes"


def test_bytes_that_are_not_utf8_are_located(tmp_path):
    latin1 = tmp_path / "Pulumi.latin1.yaml"
    latin1.write_bytes("config:\n  name: caf\u00e9\n".encode("latin-1"))
    [problem] = problems(read_text, latin1, STACK_FILE)
    assert problem.path == "byte 19" and problem.value == "byte 0xe9"
    assert "offset 19 (line 2, column 12)" in problem.rule and "UTF-8" in problem.fix
    utf16 = tmp_path / "Pulumi.utf16.yaml"
    utf16.write_bytes("config: {}\n".encode("utf-16"))
    assert "UTF-16 byte order mark" in problems(read_text, utf16, STACK_FILE)[0].rule
    bom = tmp_path / "Pulumi.bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbfconfig: {}\n")
    assert read_text(bom, STACK_FILE) == "config: {}\n"


def test_control_characters_and_lone_surrogates_are_not_text():
    [null] = problems(load_stack_text, "a: b\x00", "s.yaml")
    assert "U+0000" in null.rule and "the escape \\u0000 in a double-quoted string" in null.fix
    for text in ('a: "\\ud800"', '{"a": "\\ud800"}'):
        assert "Unicode" in problems(load_documents_text, text, "s.json")[0].rule
    assert load_documents_text('{"a": "\\ud83d\\ude00"}', "s.json") == [{"a": "\U0001f600"}]  # a valid pair


@pytest.mark.parametrize(
    "text, value",
    [
        ("yes", "yes"),
        ("on", "on"),
        ("No", "No"),
        ("true", True),
        ("False", False),
        ("~", None),
        ("null", None),
        ("010", 8),
        ("0o17", 15),
        ("0x1F", 31),
        ("0b101", 5),
        ("1_000", 1000),
        ("-7", -7),
        ("1.35", 1.35),
        ("1e3", 1000.0),
        ("2001-12-14", "2001-12-14"),
        ("=", "="),
        ("12:30", "12:30"),
        # ParseInt and ParseUint refuse these, yamlStyleFloat takes them (go-yaml v3.0.1 resolve.go:191-210)
        ("99999999999999999999", 1e20),
        ("08", 8.0),
        ("+9223372036854775808", 9223372036854775808.0),
        ("18446744073709551615", 18446744073709551615),  # ParseUint's largest
        ("0x1_0000_0000_0000_0000", "0x1_0000_0000_0000_0000"),  # no float form: the text
        ("1" + "0" * 400, "1" + "0" * 400),  # ParseFloat overflows: the text
    ],
)
def test_stack_file_scalars_read_as_go_yaml_v3_reads_them(text, value):
    assert load_stack_text(f"v: {text}\n", "s.yaml") == {"v": value}


def test_kubernetes_manifests_keep_yaml_1_1_scalars_as_sigs_k8s_io_yaml_does():
    assert load_documents_text("a: yes\nb: 010\nc: =\n", "claims.yaml") == [{"a": True, "b": 8, "c": "="}]


def test_go_int_follows_strconv_base_zero():
    assert [go_int(t) for t in ("0", "+5", "-0x10", "0777", "08", "1__2")] == [0, 5, -16, 511, None, 12]
    # int64 with a sign, uint64 without one
    assert [go_int(t) for t in ("-9223372036854775808", "+9223372036854775808", "9223372036854775808")] == [
        -(2**63),
        None,
        2**63,
    ]


def test_a_50_mb_value_never_appears_in_full():
    huge = "x" * 50_000_000
    problem = Problem("Pulumi.x.yaml", "cluster.name", huge, f"label {huge!r} is bad", "rename " + huge)
    assert len(problem.render()) < 2_000
    document = problem.as_json()
    assert sum(len(str(v)) for v in document.values()) < 2_000 and "more characters" in document["value"]
    nested = Problem("f", "p", {"k": [list(range(10_000))] * 3}, "r", "f").as_json()["value"]
    assert len(str(nested)) < 2_000
