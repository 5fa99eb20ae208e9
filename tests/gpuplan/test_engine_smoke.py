from tests.conftest import run_config


def test_kind_stack_registers_namespace_with_gpu_mode_label(tmp_path, kind_base):
    run = run_config(tmp_path, kind_base)
    namespaces = {r.inputs["metadata"]["name"]: r for r in run.of_type("kubernetes:core/v1:Namespace")}
    assert namespaces["team-a"].inputs["metadata"]["labels"]["gpu-mode"] == "dra-only"
    assert namespaces["team-b"].inputs["metadata"]["labels"]["gpu-mode"] == "legacy"
