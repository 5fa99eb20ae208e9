"""`gpuplan diff` on the command line: --against REV (git), --against-config FILE, --allow-replace, text and
JSON output, diff.json, exit codes 0/1/2 and invalid input without a traceback."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml
from typer.testing import CliRunner

from gpuplan.app import app
from gpuplan.diff.revisions import read_revision
from tests.conftest import ROOT, STACKS_DIR, load_committed, write_stack


def _invoke(*args):
    return CliRunner().invoke(app, ["diff", *args])


def _head_text(stack: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "show", f"HEAD:stacks/Pulumi.{stack}.yaml"], capture_output=True, text=True, check=True
    ).stdout


def test_read_revision_reads_the_committed_stack_file():
    text, label = read_revision(STACKS_DIR / "Pulumi.dev.yaml", "dev", "HEAD")
    assert label == "HEAD:stacks/Pulumi.dev.yaml" and text == _head_text("dev")


def test_against_head_on_the_committed_stack_reports_no_changes(tmp_path):
    # A copy of HEAD's file outside the checkout is compared with HEAD's stacks/Pulumi.dev.yaml, so the result
    # does not depend on uncommitted edits in the working tree.
    copy = tmp_path / "Pulumi.dev.yaml"
    copy.write_text(_head_text("dev"), encoding="utf-8")
    result = _invoke("--config", str(copy), "--against", "HEAD", "--out", str(tmp_path / "out"), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["stack"] == "dev" and document["against"] == "HEAD:stacks/Pulumi.dev.yaml"
    assert document["refused"] == [] and {c["op"] for c in document["changes"]} == {"same"}
    assert document["summary"]["same"] == len(document["changes"]) > 10
    assert json.loads((tmp_path / "out" / "diff.json").read_text()) == document


@pytest.fixture(scope="module")
def grown_dev(tmp_path_factory):
    """The dev stack with its first pool one node larger, and the committed file under another name."""
    directory = tmp_path_factory.mktemp("grown")
    config = load_committed("dev")
    config["nodePools"][0]["maxNodes"] += 1
    deployed = tmp_path_factory.mktemp("deployed") / "deployed.yaml"
    deployed.write_text((STACKS_DIR / "Pulumi.dev.yaml").read_text(), encoding="utf-8")
    return write_stack(directory, config, "dev"), deployed


def test_a_refused_change_exits_1_and_allow_replace_lets_it_through(grown_dev, tmp_path):
    edited, deployed = grown_dev
    result = _invoke(
        "--config", str(edited), "--against-config", str(deployed), "--out", str(tmp_path), "--format", "json"
    )
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    refused = document["refused"]
    assert refused and any("command:local:Command" in urn for urn in refused)
    # URNs carry the stack name of the edited file although the compared file is called deployed.yaml
    assert all(urn.startswith("urn:pulumi:dev::") for urn in refused)
    for change in document["changes"]:
        assert change["refused"] == (change["urn"] in refused)
        if change["refused"]:
            assert change["why"] and change["howToDoItSafely"]
    assert document["summary"]["replace"] > 0 and document["summary"]["update"] == 1

    allowed = []
    for urn in refused:
        allowed += ["--allow-replace", urn]
    result = _invoke(
        "--config", str(edited), "--against-config", str(deployed), "--out", str(tmp_path), "--format", "json", *allowed
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["refused"] == [] and sorted(document["allowed"]) == sorted(refused)


def test_text_output_reads_like_a_preview(grown_dev, tmp_path):
    edited, deployed = grown_dev
    result = _invoke("--config", str(edited), "--against-config", str(deployed), "--out", str(tmp_path))
    assert result.exit_code == 1
    output = result.output
    assert "Diff of stack dev against" in output and "Resources:" in output and "to replace" in output
    assert "environment.KIND_CONFIG" in output and "kubeconfig (known after apply) (forces replacement)" in output
    assert "REFUSED" in output and "what would be lost:" in output and "how to do it safely:" in output
    assert "--allow-replace NAME" in output and "to accept it on purpose: --allow-replace " in output


@pytest.mark.parametrize(
    "args, path, rule",
    [
        (["--stack", "dev", "--against", "no-such-revision-xyz"], "--against", "not a git revision"),
        (["--stack", "dev", "--against-config", "/nonexistent/Pulumi.dev.yaml"], "--against-config", "does not exist"),
        (
            ["--stack", "dev", "--against", "HEAD", "--against-config", "x.yaml"],
            "--against/--against-config",
            "not both",
        ),
        (["--stack", "no-such-stack", "--against", "HEAD"], "", "does not exist"),
    ],
)
def test_invalid_input_exits_2_with_the_problem_and_no_traceback(args, path, rule, tmp_path):
    result = _invoke(*args, "--out", str(tmp_path), "--format", "json")
    assert result.exit_code == 2, result.output
    errors = json.loads(result.output)["errors"]
    assert any(e["path"] == path and rule in e["rule"] for e in errors), errors
    assert "Traceback" not in result.output


def test_an_invalid_deployed_file_is_reported_under_its_own_name(tmp_path):
    bad = tmp_path / "deployed.yaml"
    document = yaml.safe_load((STACKS_DIR / "Pulumi.dev.yaml").read_text())
    document["config"]["dra-gpu-platform:nodePools"][0]["maxNodes"] = -1
    bad.write_text(yaml.safe_dump(document), encoding="utf-8")
    result = _invoke("--stack", "dev", "--against-config", str(bad), "--out", str(tmp_path), "--format", "json")
    assert result.exit_code == 2, result.output
    errors = json.loads(result.output)["errors"]
    assert errors and all(e["file"] == str(bad) for e in errors)
    assert any(e["path"] == "nodePools[0].maxNodes" for e in errors)


def test_allow_replace_that_names_nothing_is_invalid_input(grown_dev, tmp_path):
    edited, deployed = grown_dev
    result = _invoke(
        "--config",
        str(edited),
        "--against-config",
        str(deployed),
        "--out",
        str(tmp_path),
        "--format",
        "json",
        "--allow-replace",
        "urn:pulumi:dev::nothing",
    )
    assert result.exit_code == 2
    errors = json.loads(result.output)["errors"]
    assert errors[0]["path"] == "--allow-replace" and errors[0]["value"] == "urn:pulumi:dev::nothing"
    assert errors[0]["fix"].startswith("pass one of: ") and "$" not in errors[0]["fix"]


def test_allow_replace_offers_and_takes_short_names(grown_dev, tmp_path):
    """The 200-character URNs carry `$`, which a shell expands unquoted: gpuplan offers the resource's name, or its
    type::name where the name is not unique, and takes it."""
    edited, deployed = grown_dev
    base = ["--config", str(edited), "--against-config", str(deployed), "--out", str(tmp_path), "--format", "json"]
    document = json.loads(_invoke(*base).output)
    offered = {c["urn"]: c["allowReplace"] for c in document["changes"] if c["refused"]}
    assert offered and all(name and "$" not in name and len(name) < len(urn) for urn, name in offered.items())
    assert all(c["allowReplace"] is None for c in document["changes"] if not c["refused"])
    accepted = [arg for name in offered.values() for arg in ("--allow-replace", name)]
    result = _invoke(*base, *accepted)
    assert result.exit_code == 0, result.output
    assert sorted(json.loads(result.output)["allowed"]) == sorted(offered)
    text = _invoke(*base[:-2]).output
    assert all(f"--allow-replace {name}" in text for name in offered.values())


def test_without_against_a_tracked_stack_file_is_compared_with_head(tmp_path):
    result = CliRunner().invoke(app, ["diff", "--stack", "dev", "--out", str(tmp_path), "--format", "json"])
    assert result.exit_code in (0, 1), result.output  # 1 only if the working tree's dev stack refuses a change
    assert json.loads(result.stdout)["against"] == "HEAD:stacks/Pulumi.dev.yaml"
    assert "no --against given; comparing with HEAD:stacks/Pulumi.dev.yaml" in result.stderr


def test_without_against_an_untracked_or_outside_stack_file_is_invalid_input(tmp_path):
    (tmp_path / "outside").mkdir()
    outside = write_stack(tmp_path / "outside", load_committed("dev"), "dev")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    untracked = write_stack(checkout, load_committed("dev"), "dev")
    for stack_file, rule in ((outside, "is not in a git checkout"), (untracked, "is not tracked by git")):
        result = _invoke("--config", str(stack_file), "--out", str(tmp_path / "out"), "--format", "json")
        assert result.exit_code == 2, result.output
        [error] = json.loads(result.output)["errors"]
        assert error["path"] == "--against" and rule in error["rule"] and "no HEAD version" in error["rule"]
        assert "--against-config" in error["fix"] and "Traceback" not in result.output
