"""`gpuplan preflight` against moto's EC2 (offerings, instance types, subnets, zones) with fake credentials.

moto 5.2.5 models Service Quotas only for ServiceCode `vpc` and does not implement
DescribeCapacityReservations (docs/references.md#moto-gaps; moto raises "not implemented" for it), so quota values come
from botocore's Stubber and reservations from a handler on that one EC2 operation. No test reaches AWS.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.stub import Stubber
from botocore.validate import ParamValidator
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from gpuplan.preflight import checks as preflight
from tests.conftest import REFERENCE_STACKS, STACKS_DIR, load_committed, write_stack

REGION = "us-east-1"
P_OD, G_OD, P_SPOT, G_SPOT = "L-417A185B", "L-DB2E81BA", "L-7212CCBC", "L-3819A6DF"
CR = "cr-0123456789abcdef0"
FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_EC2_METADATA_DISABLED": "true",
}


@pytest.fixture(scope="module")
def subnets() -> dict[str, str]:
    """One moto account for the module: a VPC with a subnet in us-east-1a, 1b, 1c and 1e (zone → id)."""
    from moto import mock_aws

    with pytest.MonkeyPatch.context() as env:
        for key, value in FAKE_ENV.items():
            env.setenv(key, value)
        with mock_aws():
            ec2 = boto3.client("ec2", REGION)
            vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
            ids = {}
            for i, zone in enumerate(("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1e")):
                ids[zone] = ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=zone)["Subnet"][
                    "SubnetId"
                ]
            yield ids


@pytest.fixture
def ec2(subnets):
    return boto3.client("ec2", REGION)


@pytest.fixture
def sq(subnets):
    return boto3.client("service-quotas", REGION)


# ---------------------------------------------------------------------------------------------------
# fakes for what moto does not model


def stub_quotas(client, values: dict[str, float | None]) -> Stubber:
    """Service Quotas answers, in the order preflight asks (sorted by code); None: the quota does not exist."""
    stub = Stubber(client)
    for code in sorted(values):
        params = {"ServiceCode": "ec2", "QuotaCode": code}
        if values[code] is None:
            stub.add_client_error(
                "get_service_quota",
                "NoSuchResourceException",
                "The request failed because the specified service quota does not exist.",
                400,
                expected_params=params,
            )
        else:
            stub.add_response(
                "get_service_quota", {"Quota": {"ServiceCode": "ec2", "QuotaCode": code, "Value": values[code]}}, params
            )
    stub.activate()
    return stub


def reservation(**changes) -> dict[str, Any]:
    start = datetime(2026, 9, 1, 11, 30, tzinfo=UTC)
    base = {
        "CapacityReservationId": CR,
        "InstanceType": "p5.48xlarge",
        "InstancePlatform": "Linux/UNIX",
        "AvailabilityZone": "us-east-1a",
        "Tenancy": "default",
        "TotalInstanceCount": 2,
        "AvailableInstanceCount": 2,
        "State": "active",
        "ReservationType": "capacity-block",
        "StartDate": start,
        "EndDate": start + timedelta(days=14),
    }
    return {**base, **changes}


def serve_reservations(client, *reservations: dict[str, Any], error: str | None = None) -> list[list[str]]:
    """Answer DescribeCapacityReservations on this client only (every other EC2 call still goes to moto).
    Responses are validated against botocore's output shape; unknown ids get EC2's NotFound error."""
    operation = client.meta.service_model.operation_model("DescribeCapacityReservations")
    asked: list[list[str]] = []

    def remember(params, context, **_):
        context["fake_ids"] = list(params.get("CapacityReservationIds", []))

    def answer(context, **_):
        ids = context["fake_ids"]
        asked.append(ids)
        if error:
            return AWSResponse(None, 403, {}, None), {
                "Error": {"Code": error, "Message": "You are not authorized to perform this operation."}
            }
        found = [r for r in reservations if r["CapacityReservationId"] in ids]
        if len(found) < len(ids):
            missing = sorted(set(ids) - {r["CapacityReservationId"] for r in found})
            return AWSResponse(None, 400, {}, None), {
                "Error": {
                    "Code": "InvalidCapacityReservationId.NotFound",
                    "Message": f"The reservation ID '{missing[0]}' does not exist",
                }
            }
        body = {"CapacityReservations": found}
        report = ParamValidator().validate(body, operation.output_shape)
        assert not report.has_errors(), report.generate_report()
        return AWSResponse(None, 200, {}, None), body

    client.meta.events.register("before-parameter-build.ec2.DescribeCapacityReservations", remember)
    client.meta.events.register("before-call.ec2.DescribeCapacityReservations", answer)
    return asked


# ---------------------------------------------------------------------------------------------------
# stacks


BLOCK_POOL = {
    "name": "h100-block",
    "gpu": "H100",
    "maxNodes": 2,
    "capacity": "capacity-block",
    "capacityReservationId": CR,
    "availabilityZone": "us-east-1a",
}
# Bottlerocket brings its own device plugin, so one GPU Operator can serve the DRA pools beside it
T4_POOL = {
    "name": "t4-legacy",
    "gpu": "T4",
    "maxNodes": 4,
    "gpuStack": "device-plugin",
    "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
}


def eks_config(subnet_ids: list[str] | None, pools: list[dict], **eks: Any) -> dict[str, Any]:
    # a created VPC needs a public endpoint for the deploy (a private-only one is a config error)
    reach = (
        {"subnetIds": subnet_ids}
        if subnet_ids is not None
        else {"endpointPublicAccess": True, "publicAccessCidrs": ["203.0.113.0/24"]}
    )
    settings = {**reach, **eks}
    return {
        "aws:region": REGION,
        "cluster": {"platform": "eks", "name": "gpu-test", "kubernetesVersion": "1.35", "eks": settings},
        "nodePools": copy.deepcopy(pools),
    }


def load(tmp_path, config: dict[str, Any]):
    return load_stack_file(write_stack(tmp_path, config))


def run_preflight(config, ec2, sq):
    """The checks of a stack file as the command runs them: on its plan, the pools in the file's order."""
    return preflight.run_preflight(plan_stack(config), ec2, sq, order=[p.name for p in config.node_pools])


def messages(report, check: str) -> dict[str, str]:
    return {p.name: p.check(check).message for p in report.pools if p.check(check)}


@pytest.fixture
def base_config(subnets) -> dict[str, Any]:
    return eks_config([subnets["us-east-1a"], subnets["us-east-1b"], subnets["us-east-1c"]], [BLOCK_POOL, T4_POOL])


# ---------------------------------------------------------------------------------------------------
# the account scenarios


def test_passing_account_passes_every_check_with_its_numbers(tmp_path, ec2, sq, base_config):
    serve_reservations(ec2, reservation())
    stub = stub_quotas(sq, {P_OD: 384.0, G_OD: 16.0})

    report = run_preflight(load(tmp_path, base_config), ec2, sq)

    stub.assert_no_pending_responses()
    assert report.ok, [c.message for p in report.pools for c in p.checks if not c.ok]
    block, t4 = report.pool("h100-block"), report.pool("t4-legacy")
    assert [c.name for c in block.checks] == ["zones", "gpus", "quota", "reservation"]
    assert [c.name for c in t4.checks] == ["zones", "gpus", "quota"]
    assert block.check("zones").message == "p5.48xlarge offered in all 1 zone(s): us-east-1a"
    assert t4.check("zones").message == "g4dn.xlarge offered in all 3 zone(s): us-east-1a, us-east-1b, us-east-1c"
    assert block.check("gpus").message.startswith("8 × H100 81920 MiB per instance")
    assert t4.check("gpus").message.startswith("1 × T4 16384 MiB per instance")
    assert block.check("quota").message == "needs 384 P vCPUs, quota 384 (L-417A185B, on-demand: h100-block 2×192)"
    assert t4.check("quota").message == "needs 16 G/VT vCPUs, quota 16 (L-DB2E81BA, on-demand: t4-legacy 4×4)"
    assert block.check("reservation").message == f"{CR} active capacity-block: 2 × p5.48xlarge in us-east-1a"


def test_zero_p_quota_fails_the_p_pool_only(tmp_path, ec2, sq, base_config):
    serve_reservations(ec2, reservation())
    stub_quotas(sq, {P_OD: 0.0, G_OD: 64.0})

    report = run_preflight(load(tmp_path, base_config), ec2, sq)

    assert not report.ok
    quota = report.pool("h100-block").check("quota")
    assert not quota.ok
    assert quota.message.startswith("needs 384 P vCPUs, quota 0 (L-417A185B")
    assert quota.data == {
        "quotaCode": P_OD,
        "purchaseOption": "on-demand",
        "vcpusNeeded": 384,
        "quota": 0.0,
        "pools": ["h100-block"],
    }
    assert report.pool("t4-legacy").ok


def test_quota_that_covers_one_pool_but_not_two(tmp_path, ec2, sq, subnets):
    train = {"name": "h100-train", "gpu": "H100", "maxNodes": 1, "availabilityZone": "us-east-1a"}
    serve = {"name": "h100-serve", "gpu": "H100", "maxNodes": 1, "availabilityZone": "us-east-1b"}
    ids = [subnets["us-east-1a"], subnets["us-east-1b"]]

    stub_quotas(sq, {P_OD: 192.0})
    alone = run_preflight(load(tmp_path, eks_config(ids, [train])), ec2, sq)
    assert alone.ok
    assert (
        alone.pool("h100-train").check("quota").message
        == "needs 192 P vCPUs, quota 192 (L-417A185B, on-demand: h100-train 1×192)"
    )

    sq2 = boto3.client("service-quotas", REGION)
    stub_quotas(sq2, {P_OD: 192.0})
    both = run_preflight(load(tmp_path, eks_config(ids, [train, serve])), ec2, sq2)
    expected = "needs 384 P vCPUs, quota 192 (L-417A185B, on-demand: h100-train 1×192 + h100-serve 1×192)"
    assert messages(both, "quota") == {"h100-train": expected, "h100-serve": expected}
    assert not both.pool("h100-train").ok and not both.pool("h100-serve").ok


def test_instance_type_missing_in_one_zone(tmp_path, ec2, sq, subnets):
    config = eks_config([subnets["us-east-1a"], subnets["us-east-1e"]], [T4_POOL])
    stub_quotas(sq, {G_OD: 16.0})

    report = run_preflight(load(tmp_path, config), ec2, sq)

    zones = report.pool("t4-legacy").check("zones")
    assert not zones.ok
    assert zones.message == (
        "g4dn.xlarge is not offered in us-east-1e "
        "(offered in us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1f)"
    )
    assert zones.data["notOfferedIn"] == ["us-east-1e"]
    assert report.pool("t4-legacy").check("quota").ok


def test_capacity_block_in_the_wrong_zone(tmp_path, ec2, sq, base_config):
    serve_reservations(ec2, reservation(AvailabilityZone="us-east-1b"))
    stub_quotas(sq, {P_OD: 384.0, G_OD: 16.0})

    report = run_preflight(load(tmp_path, base_config), ec2, sq)

    check = report.pool("h100-block").check("reservation")
    assert not check.ok
    assert check.message == f"{CR} is in us-east-1b, the pool is limited to us-east-1a"
    assert report.pool("h100-block").check("zones").ok  # the pool's own zone offers p5


def test_expired_reservation(tmp_path, ec2, sq, base_config):
    serve_reservations(ec2, reservation(State="expired"))
    stub_quotas(sq, {P_OD: 384.0, G_OD: 16.0})

    report = run_preflight(load(tmp_path, base_config), ec2, sq)

    check = report.pool("h100-block").check("reservation")
    assert not check.ok
    assert check.message == f"{CR} is expired; it must be active or scheduled"
    assert check.data["state"] == "expired"


@pytest.mark.parametrize(
    "served, expected",
    [
        ((), f"capacity reservation {CR} does not exist in us-east-1"),
        (
            (reservation(State="scheduled", InstanceType="p4d.24xlarge"),),
            f"{CR} reserves p4d.24xlarge, the pool uses p5.48xlarge",
        ),
        ((reservation(ReservationType="default"),), f"{CR} is not a Capacity Block (reservation type default)"),
    ],
)
def test_reservation_problems(tmp_path, ec2, sq, base_config, served, expected):
    asked = serve_reservations(ec2, *served)
    stub_quotas(sq, {P_OD: 384.0, G_OD: 16.0})

    check = run_preflight(load(tmp_path, base_config), ec2, sq).pool("h100-block").check("reservation")

    assert asked == [[CR]]
    assert not check.ok and check.message == expected


def test_spot_pools_use_the_spot_quota_and_sum_separately(tmp_path, ec2, sq, subnets):
    pools = [
        {"name": "t4-spot", "gpu": "T4", "maxNodes": 3, "capacity": "spot"},
        {"name": "l4-spot", "gpu": "L4", "maxNodes": 2, "capacity": "spot"},
        {"name": "t4-od", "gpu": "T4", "maxNodes": 1},
    ]
    stub = stub_quotas(sq, {G_SPOT: 19.0, G_OD: 4.0})

    report = run_preflight(load(tmp_path, eks_config([subnets["us-east-1a"]], pools)), ec2, sq)

    stub.assert_no_pending_responses()  # exactly the spot and the On-Demand G/VT codes were asked
    assert messages(report, "quota") == {
        "t4-spot": "needs 20 G/VT vCPUs, quota 19 (L-3819A6DF, spot: t4-spot 3×4 + l4-spot 2×4)",
        "l4-spot": "needs 20 G/VT vCPUs, quota 19 (L-3819A6DF, spot: t4-spot 3×4 + l4-spot 2×4)",
        "t4-od": "needs 4 G/VT vCPUs, quota 4 (L-DB2E81BA, on-demand: t4-od 1×4)",
    }
    assert [p.name for p in report.pools if not p.ok] == ["t4-spot", "l4-spot"]


def test_missing_quota_code_is_a_failure_not_a_crash(tmp_path, ec2, sq, subnets):
    stub_quotas(sq, {G_OD: None})
    report = run_preflight(load(tmp_path, eks_config([subnets["us-east-1a"]], [T4_POOL])), ec2, sq)
    quota = report.pool("t4-legacy").check("quota")
    assert not quota.ok
    assert quota.message.startswith("needs 16 G/VT vCPUs, but quota L-DB2E81BA does not exist here")


@pytest.mark.parametrize(
    "count, pinned, unpinned_zones",
    [
        (3, "us-east-1c", ["us-east-1a", "us-east-1b", "us-east-1c"]),
        (2, "us-east-1c", ["us-east-1a", "us-east-1c"]),
        (2, "us-east-1e", ["us-east-1a", "us-east-1e"]),
    ],
)
def test_created_vpc_spans_pinned_zones_then_the_first_of_the_region(tmp_path, ec2, sq, count, pinned, unpinned_zones):
    pools = [T4_POOL, {"name": "t4-pinned", "gpu": "T4", "maxNodes": 1, "availabilityZone": pinned}]
    stub_quotas(sq, {G_OD: 64.0})

    report = run_preflight(load(tmp_path, eks_config(None, pools, availabilityZones=count)), ec2, sq)

    assert report.pool("t4-legacy").zones == tuple(unpinned_zones)
    assert report.pool("t4-pinned").zones == (pinned,)
    if pinned == "us-east-1e":  # the VPC reaches into 1e for the pinned pool, so the unpinned pool lands there too
        assert messages(report, "zones") == dict.fromkeys(
            ("t4-legacy", "t4-pinned"),
            "g4dn.xlarge is not offered in us-east-1e (offered in us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1f)",
        )
    else:
        assert report.ok


def test_pool_zone_without_a_subnet_and_unknown_subnets(tmp_path, ec2, sq, subnets):
    config = eks_config([subnets["us-east-1b"], "subnet-0000000000000dead"], [{**BLOCK_POOL, "name": "h100-a"}])
    serve_reservations(ec2, reservation())
    stub_quotas(sq, {P_OD: 384.0})

    zones = run_preflight(load(tmp_path, config), ec2, sq).pool("h100-a").check("zones")

    assert not zones.ok
    assert zones.message == (
        "subnet subnet-0000000000000dead (cluster.eks.subnetIds) does not exist in us-east-1; "
        "no subnet of cluster.eks.subnetIds is in us-east-1a (they are in us-east-1b)"
    )


def test_stack_without_gpu_pools_asks_nothing(tmp_path, sq):
    stub = stub_quotas(sq, {})
    report = run_preflight(load(tmp_path, eks_config(None, [])), object(), sq)
    assert report.ok and report.pools == () and report.quotas == ()
    stub.assert_no_pending_responses()


def test_gpu_shape_mismatch_names_both_sides():
    spec = {
        "InstanceType": "p5.48xlarge",
        "VCpuInfo": {"DefaultVCpus": 192},
        "GpuInfo": {"Gpus": [{"Name": "A100", "Count": 4, "MemoryInfo": {"SizeInMiB": 40960}}]},
    }
    check = preflight.gpus_check("p5.48xlarge", spec)
    assert not check.ok
    assert check.message == (
        "p5.48xlarge has 4 GPU(s), the catalog says 8; p5.48xlarge carries A100, the catalog says H100; "
        "p5.48xlarge has 40960 MiB per GPU, the catalog says 80 GB"
    )


def test_catalog_gpus_match_ec2_for_every_eks_type(ec2):
    # moto 5.2.5's instance data predates p6e-gb200 (docs/references.md#ec2-p6e-gb200)
    names = sorted(t.name for t in catalog.INSTANCE_TYPES.values() if t.platform == "eks" and t.family != "p6e-gb200")
    specs = {t["InstanceType"]: t for t in ec2.describe_instance_types(InstanceTypes=names)["InstanceTypes"]}
    failing = {
        n: preflight.gpus_check(n, specs.get(n)).message for n in names if not preflight.gpus_check(n, specs.get(n)).ok
    }
    assert failing == {}


def test_denied_call_names_the_iam_action(tmp_path, ec2, sq, base_config):
    serve_reservations(ec2, error="UnauthorizedOperation")
    stub_quotas(sq, {P_OD: 384.0, G_OD: 16.0})

    with pytest.raises(preflight.AwsAccessError) as caught:
        run_preflight(load(tmp_path, base_config), ec2, sq)

    assert caught.value.action == "ec2:DescribeCapacityReservations"
    assert caught.value.reason.startswith("AWS denied ec2:DescribeCapacityReservations (UnauthorizedOperation)")
    assert caught.value.fix.startswith("grant ec2:DescribeCapacityReservations to this identity")


def test_service_fault_is_reported_not_a_crash(tmp_path, ec2, sq, subnets):
    stub = Stubber(sq)
    stub.add_client_error("get_service_quota", "ServiceException", "Something went wrong.", 500)
    stub.activate()

    with pytest.raises(preflight.AwsAccessError) as caught:
        run_preflight(load(tmp_path, eks_config([subnets["us-east-1a"]], [T4_POOL])), ec2, sq)

    assert (caught.value.action, caught.value.code) == ("servicequotas:GetServiceQuota", "ServiceException")
    assert (
        caught.value.reason == "AWS answered ServiceException to servicequotas:GetServiceQuota: Something went wrong."
    )


# ---------------------------------------------------------------------------------------------------
# the command


@pytest.fixture
def cli(monkeypatch, ec2, sq):
    """Run `gpuplan preflight` with the test's clients in place of the credential chain."""
    monkeypatch.setattr(preflight, "aws_clients", lambda region: (ec2, sq))

    def invoke(*args: str):
        return CliRunner().invoke(app, ["preflight", *args])

    return invoke


def test_cli_json_passing(tmp_path, cli, ec2, sq, base_config):
    serve_reservations(ec2, reservation())
    stub_quotas(sq, {P_OD: 384.0, G_OD: 16.0})

    result = cli(
        "--config",
        str(write_stack(tmp_path, base_config, "prodlike")),
        "--out",
        str(tmp_path / "out"),
        "--format",
        "json",
    )

    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert (document["stack"], document["platform"], document["covered"], document["region"], document["ok"]) == (
        "prodlike",
        "eks",
        True,
        REGION,
        True,
    )
    pools = {p["name"]: p for p in document["pools"]}
    assert pools["h100-block"]["instanceType"] == "p5.48xlarge" and pools["h100-block"]["zones"] == ["us-east-1a"]
    assert [c["check"] for c in pools["h100-block"]["checks"]] == ["zones", "gpus", "quota", "reservation"]
    assert {q["quotaCode"]: (q["vcpusNeeded"], q["quota"]) for q in document["quotas"]} == {
        P_OD: (384, 384.0),
        G_OD: (16, 16.0),
    }
    assert json.loads((tmp_path / "out" / "preflight.json").read_text()) == document


def test_cli_text_failure_exits_1_with_the_numbers(tmp_path, cli, ec2, sq, base_config):
    serve_reservations(ec2, reservation())
    stub_quotas(sq, {P_OD: 192.0, G_OD: 16.0})

    result = cli("--config", str(write_stack(tmp_path, base_config)), "--out", str(tmp_path / "out"))

    assert result.exit_code == 1, result.output
    assert "h100-block: up to 2 × p5.48xlarge (capacity-block) FAIL" in result.stdout
    assert "needs 384 P vCPUs, quota 192 (L-417A185B" in result.stdout
    assert "preflight failed for 1 of 2 pool(s): h100-block" in result.stdout


def test_cli_denied_quota_call_exits_2_naming_the_action(tmp_path, cli, ec2, sq, base_config):
    serve_reservations(ec2, reservation())
    stub = Stubber(sq)
    stub.add_client_error("get_service_quota", "AccessDeniedException", "You do not have sufficient access.", 400)
    stub.activate()

    result = cli("--config", str(write_stack(tmp_path, base_config)), "--out", str(tmp_path / "out"))

    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "AWS denied servicequotas:GetServiceQuota (AccessDeniedException)" in result.stderr
    assert "grant servicequotas:GetServiceQuota to this identity" in result.stderr


def test_cli_without_credentials_exits_2(tmp_path, monkeypatch, base_config):
    for key in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
    ):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # never probe the instance metadata endpoint

    result = CliRunner().invoke(
        app,
        [
            "preflight",
            "--config",
            str(write_stack(tmp_path, base_config)),
            "--out",
            str(tmp_path / "out"),
            "--format",
            "json",
        ],
    )

    assert result.exit_code == 2
    errors = json.loads(result.stdout)["errors"]
    assert len(errors) == 1
    assert errors[0]["rule"].startswith("no AWS credentials found")
    assert (
        "ec2:DescribeInstanceTypeOfferings" in errors[0]["fix"] and "servicequotas:GetServiceQuota" in errors[0]["fix"]
    )
    assert not (tmp_path / "out").exists()


def test_cli_non_eks_stack_is_not_covered(tmp_path, kind_base):
    result = CliRunner().invoke(app, ["preflight", "--config", str(write_stack(tmp_path, kind_base, "dev"))])
    assert result.exit_code == 0
    assert (
        "preflight covers EKS and AKS stacks; stack dev runs on kind, where no cloud account is asked" in result.stdout
    )


# ---------------------------------------------------------------------------------------------------
# committed EKS stacks (prod once it lands)


EKS_STACKS = [s for s in REFERENCE_STACKS if load_committed(s).get("cluster", {}).get("platform") == "eks"]


@pytest.mark.parametrize("stack", EKS_STACKS)
def test_committed_eks_stack(stack, subnets):
    config = load_stack_file(STACKS_DIR / f"Pulumi.{stack}.yaml")
    pools = preflight.in_order(plan_stack(config).pools, [p.name for p in config.node_pools])
    ec2, sq = boto3.client("ec2", config.region), boto3.client("service-quotas", config.region)
    serve_reservations(
        ec2,
        *(
            reservation(
                CapacityReservationId=p.capacity_reservation_id,
                InstanceType=preflight.pool_instance_type(p),
                AvailabilityZone=p.zone or f"{config.region}a",
                ReservationType="capacity-block" if p.capacity == "capacity-block" else "default",
            )
            for p in pools
            if p.capacity_reservation_id
        ),
    )
    needed: dict[str, int] = {}
    for pool in pools:
        shape = catalog.instance_type("eks", preflight.pool_instance_type(pool))
        code = preflight.QUOTA_CODES[(shape.quota_family, "spot" if pool.capacity == "spot" else "on-demand")]
        needed[code] = needed.get(code, 0) + pool.max_nodes * shape.vcpus
    stub = stub_quotas(sq, {code: float(v) for code, v in needed.items()})

    report = run_preflight(config, ec2, sq)

    stub.assert_no_pending_responses()
    assert {q.code: q.needed for q in report.quotas} == needed  # EC2's vCPU counts agree with the catalog's
    assert [p.name for p in report.pools] == [p.name for p in config.node_pools]
    for pool, checked in zip(pools, report.pools, strict=True):
        assert checked.check("gpus").ok, checked.check("gpus").message
        assert checked.check("quota").ok, checked.check("quota").message
        if pool.zone and pool.capacity_reservation_id:
            assert checked.check("reservation").ok, checked.check("reservation").message
        if config.cluster.settings().subnet_ids:
            # moto cannot hold the stack's real subnet ids: the zones check must say exactly that
            assert "(cluster.eks.subnetIds) does not exist in" in checked.check("zones").message
        else:
            assert checked.check("zones").ok, checked.check("zones").message


# ---------------------------------------------------------------------------------------------------
# --prices


def test_cli_prices_json_and_text(tmp_path, cli, monkeypatch, ec2, sq, base_config):
    from gpuplan.preflight import live_prices
    from tests.gpuplan.aws_price_list import answer, ec2_offer

    pricing = boto3.client("pricing", region_name="us-east-1")
    stub = Stubber(pricing)
    # the capacity-block pool is never priced on demand: one read, for the T4 pool's g4dn.xlarge (test figure)
    answer(stub, "g4dn.xlarge", [ec2_offer("g4dn.xlarge", 0.526)])
    stub.activate()
    monkeypatch.setattr(live_prices, "aws_pricing_client", lambda: pricing)
    stack = str(write_stack(tmp_path, base_config, "priced"))

    serve_reservations(ec2, reservation())
    stub_quotas(sq, {P_OD: 384.0, G_OD: 16.0})
    result = cli("--config", stack, "--out", str(tmp_path / "out"), "--format", "json", "--prices")

    assert result.exit_code == 0, result.output
    stub.assert_no_pending_responses()
    prices = json.loads(result.stdout)["prices"]
    pools = {p["pool"]: p for p in prices["pools"]}
    assert pools["t4-legacy"]["price"]["perNodeHour"] == 0.526
    assert pools["t4-legacy"]["price"]["asOf"] == "2026-09-01"
    assert pools["t4-legacy"]["maxPerHour"] == 2.104  # 4 nodes
    assert pools["h100-block"]["price"] is None
    assert prices["totals"]["unpriced"] == ["h100-block"]
    assert json.loads((tmp_path / "out" / "preflight.json").read_text())["prices"] == prices

    sq2 = boto3.client("service-quotas", REGION)
    stub_quotas(sq2, {P_OD: 384.0, G_OD: 16.0})
    monkeypatch.setattr(preflight, "aws_clients", lambda region: (ec2, sq2))
    answer(stub, "g4dn.xlarge", [ec2_offer("g4dn.xlarge", 0.526)])
    text = cli("--config", stack, "--out", str(tmp_path / "out2"), "--prices")

    assert text.exit_code == 0, text.output
    assert "On-demand prices in us-east-1" in text.stdout
    assert "$0.5260" in text.stdout and "$2.1040" in text.stdout
    assert "capacity-block pool: the block is paid up front" in text.stdout
    assert "unpriced: h100-block" in text.stdout
