"""The case of issue 33: a user's project whose stack is called `dev`, like the package's reference stack, run from a
folder that has its own `build/dev/` and `policies/config/dev.json` (the repository, say). `preview --project` writes
under the project and leaves that `build/dev/` alone; `policy --project` applies the project's own policy config or
none, never the package's `dev` config."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuplan.app import app
from tests.conftest import ROOT
from tests.gpuplan.test_project import PROGRAM, TEAM, write_project


def test_a_project_stack_named_dev_neither_overwrites_build_dev_nor_takes_the_packages_dev_policy_config(
    tmp_path, monkeypatch
):
    project = write_project(tmp_path / "mine", PROGRAM)
    (project / "config" / "Pulumi.dev.yaml").write_text(f"config:\n  {TEAM}:clusterName: dev\n", encoding="utf-8")
    here = tmp_path / "repository"
    (here / "build" / "dev").mkdir(parents=True)
    (here / "build" / "dev" / "plan.json").write_text('{"reference": true}\n', encoding="utf-8")
    (here / "policies" / "config").mkdir(parents=True)
    (here / "policies" / "config" / "dev.json").write_text(json.dumps({"all": "disabled"}), encoding="utf-8")
    monkeypatch.chdir(here)
    assert (ROOT / "policies" / "config" / "dev.json").is_file()  # the package's own dev config exists

    preview = CliRunner().invoke(app, ["preview", "--project", str(project), "--stack", "dev"])
    assert preview.exit_code == 0, preview.output
    assert (here / "build" / "dev" / "plan.json").read_text() == '{"reference": true}\n'
    assert json.loads((project / "build" / "dev" / "plan.json").read_text())["stack"] == "dev"

    policy = CliRunner().invoke(app, ["policy", "--project", str(project), "--stack", "dev", "--format", "json"])
    assert policy.exit_code in (0, 1), policy.output
    assert json.loads(policy.stdout)["policyConfig"] is None
    assert (project / "build" / "dev" / "policy.json").is_file()
