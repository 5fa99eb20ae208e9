"""`gpuplan fit`: the stacks' own templates and every upstream example manifest (../shared/upstream-specs, when present),
evaluated against the simulated inventory the stack would get, with each result asserted."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from gpuplan.fit.report import CLAIM_KEYS as RESULT_KEYS
from gpuplan.fit.report import fit_report as _fit_report
from gpuplan.fit.text import binds
from tests.conftest import REFERENCE_STACKS, ROOT, UPSTREAM_SPECS, shared_path, write_stack

DUMP = ROOT / "tests" / "fixtures" / "resourceslices-kind-dev.json"

# A kind cluster on NVIDIA hosts: full H100s, an A100 split into 1g.5gb, the extended-resource bridge on.
NVIDIA_STACK = {
    "cluster": {"platform": "kind", "name": "gpu-nv", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "nvidia"}},
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2, "gpusPerNode": 8},
        {"name": "a100-mig", "gpu": "A100-40GB", "maxNodes": 1, "gpusPerNode": 2, "mig": {"profile": "1g.5gb"}},
    ],
    "draDriver": {"enabled": True, "extendedResourceBridge": True},
    "deviceClasses": [{"name": "h100", "gpu": "H100", "minMemory": "79Gi"}],
    "namespaces": [
        {
            "name": "research",
            "quota": {"claims": 3, "devices": {"h100": 8}},
            "claimTemplates": [{"name": "four", "deviceClass": "h100", "count": 4}],
        }
    ],
}


class StackRun:
    """The stack file's config and name (fit no longer runs the Pulumi program)."""

    def __init__(self, path):
        self.config = load_stack_file(path)
        self.stack = path.name.removeprefix("Pulumi.").removesuffix(".yaml")


def run_file(path):
    return StackRun(path)


def fit_report(run, claim_files=None, inventory_file=None, feature_gates=None):
    return _fit_report(plan_stack(run.config), run.stack, claim_files, inventory_file, feature_gates)


def by_name(report) -> dict[str, dict]:
    return {f"{c['namespace']}/{c['name']}": c for c in report["claims"]}


def subrequests(claim) -> set[tuple[str, str | None]]:
    return {(a["request"], a["subrequest"]) for a in claim["allocations"]}


@pytest.fixture(scope="module")
def dev_run():
    return run_file(ROOT / "stacks" / "Pulumi.dev.yaml")


@pytest.fixture(scope="module")
def nvidia_run(tmp_path_factory):
    return run_file(write_stack(tmp_path_factory.mktemp("nv"), NVIDIA_STACK, "nv"))


GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def tolerant(paths, directory):
    """The upstream examples as a user applies them to a cluster whose GPU nodes are tainted (below 1.36, where no
    policy adds it): every pod and pod template with the GPU toleration. Unchanged otherwise."""
    copies = []
    for path in paths:
        documents = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
        for document in documents:
            spec = document.get("spec") or {}
            pod = spec if document.get("kind") == "Pod" else (spec.get("template") or {}).get("spec")
            if isinstance(pod, dict):
                pod.setdefault("tolerations", []).append(dict(GPU_TOLERATION))
        copy = directory / path.name
        copy.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
        copies.append(copy)
    return copies


@pytest.fixture(scope="module")
def dev_examples(dev_run, tmp_path_factory):
    paths = sorted(shared_path(UPSTREAM_SPECS).glob("example-driver-*.yaml"))
    return by_name(fit_report(dev_run, tolerant(paths, tmp_path_factory.mktemp("dev-examples"))))


@pytest.fixture(scope="module")
def nvidia_examples(nvidia_run, tmp_path_factory):
    paths = sorted(shared_path(UPSTREAM_SPECS).glob("nvidia-*.yaml"))
    return by_name(fit_report(nvidia_run, tolerant(paths, tmp_path_factory.mktemp("nv-examples"))))


def expected_quota_limit(quota, template) -> int | None:
    """The evaluator's arithmetic on the stack file, written out independently: claims count once; a class is
    charged Σ count (All = 32), a firstAvailable claim the largest alternative of each class."""
    if quota is None:
        return None
    alternatives = template.first_available or [template]
    charge: dict[str, int] = {}
    for alt in alternatives:
        amount = 32 if alt.allocation_mode == "All" else (alt.count or 1)
        charge[alt.device_class] = max(charge.get(alt.device_class, 0), amount)
    limits = [quota.claims] if quota.claims is not None else []
    limits += [quota.devices[cls] // n for cls, n in charge.items() if cls in quota.devices]
    return min(limits) if limits else None


# --- the dra-example-driver examples on the kind stack (dev: 2 workers x 8 fake GPUs, gpu-7 of worker2 tainted)


def test_example_cel_selector_fits(dev_examples):
    claim = dev_examples["cel-selector/single-gpu-cel"]
    assert claim["satisfiable"] and claim["errors"] == [] and claim["reasons"] == []
    assert claim["allocations"] == [
        {
            "pool": "dra-workers",
            "node": "gpu-dev-worker",
            "request": "gpu",
            "subrequest": None,
            "devices": ["gpu.example.com/gpu-dev-worker/gpu-0"],
        }
    ]
    assert claim["maxConcurrent"] == 15  # 16 fake GPUs, one tainted by the stack's DeviceTaintRule
    assert claim["quotaLimit"] is None and claim["source"].endswith("example-driver-cel-selector.yaml")


def test_example_prioritized_alternatives_report_the_winning_subrequest(dev_examples):
    fallback = dev_examples["prioritized-alternatives/prioritized-gpu"]
    preferred = dev_examples["prioritized-alternatives/preferred-gpu"]
    assert fallback["satisfiable"] and subrequests(fallback) == {("gpu", "older-gpu")}  # model and 1Ti do not match
    assert preferred["satisfiable"] and subrequests(preferred) == {("gpu", "latest-gpu")}


def test_example_multiple_requests_take_distinct_devices(dev_examples):
    for name in ("basic-multiple-requests/multiple-gpus", "basic-resourceclaim-opaque-config/multiple-gpus"):
        claim = dev_examples[name]
        assert claim["satisfiable"] and claim["maxConcurrent"] == 7  # 15 usable devices, 2 per claim
        devices = [d for a in claim["allocations"] for d in a["devices"]]
        assert len(devices) == 2 and len(set(devices)) == 2


def test_example_shared_resource_claim_is_allocated_once(dev_examples):
    claim = dev_examples["basic-shared-claim-across-pods/single-gpu"]
    assert claim["satisfiable"] and claim["maxConcurrent"] == 1


def test_example_admin_access_takes_all_devices_of_a_node(dev_examples):
    claim = dev_examples["admin-access/multiple-gpus-admin"]
    assert claim["satisfiable"], claim
    assert [len(a["devices"]) for a in claim["allocations"]] == [8]  # allocationMode All on gpu-dev-worker
    assert claim["maxConcurrent"] == 1  # worker2's tainted gpu-7 blocks "All" there


def test_example_extended_resources_need_the_feature_gate(dev_examples):
    implicit = dev_examples["extended-resource-request/pod0-extended-resources"]
    assert not implicit["satisfiable"] and implicit["errors"] == []
    assert (
        "DRAExtendedResource" in implicit["reasons"][0] and "would fit on pool(s) dra-workers" in implicit["reasons"][0]
    )
    explicit = dev_examples["extended-resource-request/pod1-extended-resources"]
    assert not explicit["satisfiable"]
    assert any("no DeviceClass has extendedResourceName example.com/gpu" in r for r in explicit["reasons"])


def test_dev_stack_templates_and_their_quota(dev_examples, dev_run):
    two = dev_examples["ml-research/two-gpus"]
    assert two["source"] == "stack:dev" and two["satisfiable"]
    assert two["maxConcurrent"] == 7 and two["quotaLimit"] == 4 and binds(two) == "quota"
    inference = dev_examples["ml-research/inference"]
    assert subrequests(inference) == {("gpu", "big-gpu")}
    config = dev_run.config
    for namespace in config.namespaces:
        for template in namespace.claim_templates:
            claim = dev_examples[f"{namespace.name}/{template.name}"]
            assert claim["quotaLimit"] == expected_quota_limit(namespace.quota, template)


# --- the NVIDIA examples on a stack with matching NVIDIA pools -------------------------------------------------


@pytest.mark.parametrize(
    "name, requests",
    [
        ("gpu-test1/single-gpu", 1),
        ("gpu-test2/single-gpu", 1),
        ("gpu-test3/single-gpu", 1),
        ("gpu-test5/multiple-gpus", 2),
        ("gpu-test-mps/shared-gpu", 1),
    ],
)
def test_nvidia_quickstart_claims_fit_on_h100(nvidia_examples, name, requests):
    claim = nvidia_examples[name]
    assert claim["satisfiable"] and claim["errors"] == [], claim
    assert {a["pool"] for a in claim["allocations"]} == {"h100"} and len(claim["allocations"]) == requests
    # gpu.nvidia.com takes full GPUs only: the MIG pool cannot serve these
    assert all(
        d.startswith("gpu.nvidia.com/gpu-nv-worker") and "-mig-" not in d
        for a in claim["allocations"]
        for d in a["devices"]
    )
    expected = 1 if name == "gpu-test3/single-gpu" else 16 // requests  # gpu-test3 is one ResourceClaim object
    assert claim["maxConcurrent"] == expected


def test_nvidia_gpu_test4_needs_an_all_balanced_a100(nvidia_examples, nvidia_run, tmp_path):
    on_stack = nvidia_examples["gpu-test4/mig-devices"]
    assert not on_stack["satisfiable"]
    mig_pool = next(r for r in on_stack["reasons"] if r.startswith("pool a100-mig"))
    assert "profile == '2g.10gb'" in mig_pool and "gpu.nvidia.com/profile=1g.5gb" in mig_pool
    # the upstream demo runs on A100s partitioned all-balanced; dump such a node and evaluate against it
    dump = tmp_path / "balanced.json"
    result = CliRunner().invoke(
        app,
        [
            "inventory",
            "--gpu",
            "A100-40GB",
            "--count",
            "8",
            "--mig",
            "all-balanced",
            "--node",
            "a100-balanced",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    dump.write_text(result.output)
    claim = by_name(
        fit_report(nvidia_run, [shared_path(UPSTREAM_SPECS) / "nvidia-quickstart-v1-gpu-test4.yaml"], dump)
    )["gpu-test4/mig-devices"]
    assert claim["satisfiable"] and claim["maxConcurrent"] == 8  # one claim per GPU (parentUUID)
    devices = {a["request"]: a["devices"] for a in claim["allocations"]}
    assert sorted(devices) == ["mig-1g-5gb-0", "mig-1g-5gb-1", "mig-2g-10gb", "mig-3g-20gb"]
    assert all(d.startswith("gpu.nvidia.com/a100-balanced/gpu-0-mig-") for ds in devices.values() for d in ds)


def test_nvidia_extended_resources(nvidia_examples):
    full = nvidia_examples["extended-resource-gpu-full/gpu-full-pod-extended-resources"]
    assert full["satisfiable"] and subrequests(full) == {("container-0-request-0", None)}
    assert full["allocations"][0]["pool"] == "h100"  # the chart's gpu.nvidia.com carries nvidia.com/gpu
    mig = nvidia_examples["extended-resource-mig-1g12gb/mig-1g12gb-pod-extended-resources"]
    assert not mig["satisfiable"] and mig["errors"] == []
    assert all("profile == '1g.12gb'" in r for r in mig["reasons"]) and len(mig["reasons"]) == 2  # both pools say why


def test_every_upstream_manifest_is_evaluated(dev_examples, nvidia_examples):
    covered = {claim["source"].rsplit("/", 1)[-1] for claim in [*dev_examples.values(), *nvidia_examples.values()]}
    assert covered >= {path.name for path in shared_path(UPSTREAM_SPECS).glob("*.yaml")}


def test_capacity_or_quota_binds(nvidia_examples):
    four = nvidia_examples["research/four"]
    assert four["satisfiable"] and four["maxConcurrent"] == 4 and four["quotaLimit"] == 2 and binds(four) == "quota"


def test_memory_read_as_an_attribute_is_an_evaluation_error(nvidia_run, tmp_path):
    claim_file = tmp_path / "memory.yaml"
    claim_file.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": "big", "namespace": "research"},
                "spec": {
                    "spec": {
                        "devices": {
                            "requests": [
                                {
                                    "name": "gpu",
                                    "exactly": {
                                        "deviceClassName": "gpu.nvidia.com",
                                        "selectors": [
                                            {
                                                "cel": {
                                                    "expression": "device.attributes['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0"
                                                }
                                            }
                                        ],
                                    },
                                }
                            ]
                        }
                    }
                },
            }
        )
    )
    claim = by_name(fit_report(nvidia_run, [claim_file]))["research/big"]
    assert not claim["satisfiable"] and claim["reasons"] == []
    assert claim["outcome"] == "error" and len(claim["errors"]) == 1
    assert "CEL runtime error" in claim["errors"][0] and '"memory"' in claim["errors"][0]


def test_dump_replaces_the_simulation(dev_run):
    report = fit_report(dev_run, [shared_path(UPSTREAM_SPECS) / "example-driver-cel-selector.yaml"], DUMP)
    claim = by_name(report)["cel-selector/single-gpu-cel"]
    # the dump's worker2 is generation 2 with gpu-3 tainted; the stack's rule taints gpu-7 as well
    assert claim["satisfiable"] and claim["maxConcurrent"] == 14
    # no Node objects in this dump: each node is its own pool in the report (never merged with the simulation)
    assert report["inventory"]["source"] == str(DUMP)
    assert {a["pool"] for a in claim["allocations"]} == {"gpu-dev-worker", "gpu-dev-worker2"}  # two kinds of node


# --- every committed stack -------------------------------------------------------------------------------------


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_committed_stack_templates_are_satisfiable(stack):
    run = run_file(ROOT / "stacks" / f"Pulumi.{stack}.yaml")
    report = fit_report(run)
    config = load_stack_file(ROOT / "stacks" / f"Pulumi.{stack}.yaml")
    templates = {(ns.name, t.name): (ns, t) for ns in config.namespaces for t in ns.claim_templates}
    assert {(c["namespace"], c["name"]) for c in report["claims"]} == set(templates)
    for claim in report["claims"]:
        assert claim["satisfiable"] and claim["errors"] == [] and claim["maxConcurrent"] >= 1, claim
        namespace, template = templates[(claim["namespace"], claim["name"])]
        assert claim["quotaLimit"] == expected_quota_limit(namespace.quota, template)
        if template.first_available:
            assert all(a["subrequest"] for a in claim["allocations"])


# --- the command line ------------------------------------------------------------------------------------------


def test_fit_json_contract_and_exit_codes(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(app, ["fit", "--stack", "dev", "--format", "json", "--out", str(tmp_path)])
    assert ok.exit_code == 0, ok.output
    document = json.loads(ok.output)
    assert (
        set(document) == {"claims", "pods", "services", "featureGates", "apiServer", "inventory", "stats"}
        and document["claims"]
    )
    assert document["featureGates"]["kubernetes"] == "1.35" and document["featureGates"]["allocator"] == "incubating"
    assert all(tuple(sorted(c)) == tuple(sorted(RESULT_KEYS)) for c in document["claims"])
    assert json.loads((tmp_path / "fit.json").read_text()) == document
    failing = runner.invoke(
        app,
        [
            "fit",
            "--stack",
            "dev",
            "--format",
            "json",
            "--out",
            str(tmp_path),
            "--claims",
            str(shared_path(UPSTREAM_SPECS) / "example-driver-extended-resource-request.yaml"),
        ],
    )
    assert failing.exit_code == 1, failing.output
    text = runner.invoke(
        app,
        [
            "fit",
            "--stack",
            "dev",
            "--out",
            str(tmp_path),
            "--claims",
            *map(
                str,
                tolerant(
                    [
                        shared_path(UPSTREAM_SPECS) / "example-driver-prioritized-alternatives.yaml",
                        shared_path(UPSTREAM_SPECS) / "example-driver-cel-selector.yaml",
                    ],
                    tmp_path,
                ),
            ),
        ],
    )
    assert text.exit_code == 0, text.output
    assert "gpu/older-gpu" in text.output and "cel-selector/single-gpu-cel" in text.output and "quota" in text.output


def test_invalid_claim_files_exit_2_with_every_problem(tmp_path):
    invented = tmp_path / "invented.yaml"
    invented.write_text(
        yaml.safe_dump_all(
            [
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaimTemplate",
                    "metadata": {"name": "t", "namespace": "n"},
                    "spec": {
                        "spec": {
                            "devices": {
                                "requests": [
                                    {
                                        "name": "gpu",
                                        "exactly": {"deviceClassName": "gpu.example.com"},
                                        "alternatives": [{"selector": "x", "priority": 100}],
                                    }
                                ]
                            }
                        }
                    },
                },
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaim",
                    "metadata": {"name": "bad-cel"},
                    "spec": {
                        "devices": {
                            "requests": [
                                {
                                    "name": "gpu",
                                    "exactly": {
                                        "deviceClassName": "gpu.example.com",
                                        "selectors": [{"cel": {"expression": "device.nope =="}}],
                                    },
                                }
                            ]
                        }
                    },
                },
            ]
        )
    )
    bad_inventory = tmp_path / "inventory.json"
    bad_inventory.write_text('{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod"}]}')
    result = CliRunner().invoke(
        app,
        [
            "fit",
            "--stack",
            "dev",
            "--format",
            "json",
            "--out",
            str(tmp_path),
            "--claims",
            str(invented),
            str(tmp_path / "missing.yaml"),
        ],
    )
    assert result.exit_code == 2, result.output
    problems = json.loads(result.output)["errors"]
    assert all(set(p) == {"file", "path", "where", "value", "rule", "fix", "excerpt"} for p in problems)
    rules = " | ".join(p["rule"] for p in problems)
    assert "does not exist" in rules and "does not read this kind" in rules and "alternatives" in rules
    assert "the API server rejects it" in rules and "Traceback" not in result.output
    inventory = CliRunner().invoke(
        app, ["fit", "--stack", "dev", "--format", "json", "--out", str(tmp_path), "--inventory", str(bad_inventory)]
    )
    assert inventory.exit_code == 2 and "the inventory holds no ResourceSlice" in inventory.output


def test_pod_claims_resolve_against_the_stack_and_admin_access_needs_the_label(dev_run, tmp_path):
    pods = tmp_path / "pods.yaml"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "trainer", "namespace": "ml-research"},
        "spec": {
            "containers": [{"name": "c", "image": "busybox"}],
            "resourceClaims": [
                {"name": "gpus", "resourceClaimTemplateName": "two-gpus"},
                {"name": "typo", "resourceClaimTemplateName": "two-gpu"},
            ],
        },
    }
    admin = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "watch", "namespace": "ml-research"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "all",
                        "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "All", "adminAccess": True},
                    }
                ]
            }
        },
    }
    pods.write_text(yaml.safe_dump_all([pod, admin]))
    claims = by_name(fit_report(dev_run, [pods]))
    assert claims["ml-research/two-gpus"]["source"] == "stack:dev"  # resolved to the stack's template, no new row
    typo = claims["ml-research/two-gpu"]
    assert not typo["satisfiable"] and "Pod ml-research/trainer spec.resourceClaims[1] (typo)" in typo["reasons"][0]
    watch = claims["ml-research/watch"]
    assert not watch["satisfiable"] and "resource.kubernetes.io/admin-access" in watch["reasons"][0]


def test_nvidia_gpu_limits_go_to_device_plugin_pools_when_dra_cannot_serve_them(dev_run):
    report = fit_report(dev_run, [shared_path(UPSTREAM_SPECS) / "nvidia-extended-resources-gpu-full.yaml"])
    assert "extended-resource-gpu-full/gpu-full-pod-extended-resources" not in by_name(report)
    assert any("nvidia.com/gpu is served by the device plugin on pool(s) legacy-workers" in n for n in report["notes"])
