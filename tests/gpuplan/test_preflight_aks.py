"""`gpuplan preflight` on AKS stacks: the Azure SDK's ComputeManagementClient answered by recorded ResourceSkus_List
and Usage_List bodies through azure-core's transport (tests/gpuplan/azure_recorded.py). No test reaches Azure."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from gpuplan.preflight import aks
from tests.conftest import STACKS_DIR, write_stack
from tests.gpuplan import azure_recorded as recorded

LOCATION = "eastus"
T4, A100, SYSTEM = "Standard_NC4as_T4_v3", "Standard_NC24ads_A100_v4", "Standard_D4s_v5"
T4_FAMILY, A100_FAMILY, SYSTEM_FAMILY = "standardNCASv3_T4Family", "StandardNCADSA100v4Family", "standardDSv5Family"

POOLS = [
    {"name": "a100", "gpu": "A100-80GB", "instanceType": A100, "minNodes": 1, "maxNodes": 2},
    {"name": "t4", "gpu": "T4", "minNodes": 1, "maxNodes": 3},  # the catalog's default T4 size: Standard_NC4as_T4_v3
]
# what these pools and the default system pool (2 × Standard_D4s_v5) need: 2×24, 3×4, 2×4 and 68 in all
ENOUGH = {A100_FAMILY: 48, T4_FAMILY: 12, SYSTEM_FAMILY: 8, "cores": 68, "lowPriorityCores": 0}


def aks_config(pools: list[dict[str, Any]] = POOLS, **aks_settings: Any) -> dict[str, Any]:
    return {
        "azure-native:location": LOCATION,
        "cluster": {
            "platform": "aks",
            "name": "gpu-test",
            "kubernetesVersion": "1.35",
            "aks": {"authorizedIpRanges": ["203.0.113.0/24"], **aks_settings},
        },
        "nodePools": copy.deepcopy(pools),
    }


def all_skus(**changes: dict[str, Any]) -> list[dict[str, Any]]:
    """The location's VM SKUs for the stack's sizes (and an unrelated one), each changed as given by size."""
    sizes = (A100, T4, SYSTEM, "Standard_NC8as_T4_v3")
    return [recorded.vm_sku(size, LOCATION, **changes.get(size, {})) for size in sizes]


def routes(skus: list[dict[str, Any]] | None = None, limits: dict[str, int] | None = None, current=None):
    return {
        recorded.skus_path(): (200, recorded.skus_body(*(all_skus() if skus is None else skus))),
        recorded.usages_path(LOCATION): (200, recorded.usages_body(ENOUGH if limits is None else limits, current)),
    }


def run(tmp_path, config: dict[str, Any], answers: dict[str, Any]):
    compute, adapter = recorded.compute_client(answers)
    plan = plan_stack(load_stack_file(write_stack(tmp_path, config)))
    return aks.run_aks_preflight(plan, compute, recorded.SUBSCRIPTION), adapter


def messages(report, check: str) -> dict[str, str]:
    return {p.name: p.check(check).message for p in report.pools if p.check(check)}


# ---------------------------------------------------------------------------------------------------
# the subscription scenarios


def test_passing_subscription_passes_every_check_with_its_numbers(tmp_path):
    report, adapter = run(tmp_path, aks_config(), routes(current={"cores": 20, T4_FAMILY: 4}))

    assert report.ok, [c.message for p in report.pools for c in p.checks if not c.ok]
    assert [p.name for p in report.pools] == ["system", "a100", "t4"]
    assert [c.name for c in report.pool("system").checks] == ["size", "quota", "regional"]
    assert [c.name for c in report.pool("t4").checks] == ["size", "shape", "quota", "regional"]
    assert report.pool("t4").instance_type == T4 and report.pool("t4").max_nodes == 3
    assert report.pool("t4").check("size").message == f"{T4} offered in eastus (zones 1, 2, 3)"
    assert report.pool("t4").check("shape").message == f"4 vCPUs, family {T4_FAMILY}, as the catalog says"
    assert report.pool("t4").check("quota").message == (
        f"needs 12 vCPUs, {T4_FAMILY} vCPUs limit 12 (in use now 4; t4 3×4)"
    )
    assert report.pool("system").check("quota").message == (
        f"needs 8 vCPUs, {SYSTEM_FAMILY} vCPUs limit 8 (in use now 0; system 2×4)"
    )
    regional = "needs 68 vCPUs, Total Regional vCPUs limit 68 (in use now 20; system 2×4 + a100 2×24 + t4 3×4)"
    assert set(messages(report, "regional").values()) == {regional}
    assert {q.name: (q.kind, q.needed, q.limit) for q in report.quotas} == {
        A100_FAMILY: ("family", 48, 48),
        T4_FAMILY: ("family", 12, 12),
        SYSTEM_FAMILY: ("family", 8, 8),
        "cores": ("regional", 68, 68),
    }
    # one location-filtered SKU list and one usage list, both for the stack's location
    assert [a.method for a in adapter.asked] == ["GET", "GET"]
    assert adapter.query(0)["$filter"] == ["location eq 'eastus'"]
    assert adapter.query(0)["api-version"] == ["2021-07-01"]


def test_size_not_offered_in_the_location(tmp_path):
    skus = [s for s in all_skus() if s["name"] != A100]
    report, _ = run(tmp_path, aks_config(), routes(skus))

    pool = report.pool("a100")
    assert not pool.ok and report.pool("t4").ok and report.pool("system").ok
    assert (
        pool.check("size").message
        == f"{A100} is not offered in eastus (not among the location's Compute resource SKUs)"
    )
    assert pool.check("shape").message.startswith(f"{A100} is not listed here")
    # the quota is still counted, with the catalog's vCPUs
    assert report.quota(A100_FAMILY).needed == 48 and pool.check("quota").ok


@pytest.mark.parametrize("reason", ["NotAvailableForSubscription", "QuotaId"])
def test_size_restricted_for_the_subscription(tmp_path, reason):
    skus = all_skus(**{T4: {"restrictions": [recorded.restriction("Location", LOCATION, reason=reason)]}})
    report, _ = run(tmp_path, aks_config(), routes(skus))

    size = report.pool("t4").check("size")
    assert not size.ok
    assert size.message.startswith(f"{T4} is restricted in eastus for this subscription ({reason})")
    assert size.data["offered"] is False
    assert [p.name for p in report.pools if not p.ok] == ["t4"]


def test_zone_restrictions_are_shown_but_do_not_stop_a_regional_pool(tmp_path):
    restricted = recorded.restriction("Zone", LOCATION, zones=["3", "2"])
    skus = all_skus(**{A100: {"zones": ["1", "2", "3"], "restrictions": [restricted]}, T4: {"zones": []}})
    report, _ = run(tmp_path, aks_config(), routes(skus))

    size = report.pool("a100").check("size")
    assert size.ok
    assert size.message == (
        f"{A100} offered in eastus (zones 1 usable, 2, 3 restricted for this subscription; the pool is regional, "
        "so Azure places its VMs where it may)"
    )
    assert (size.data["zones"], size.data["restrictedZones"]) == (["1", "2", "3"], ["2", "3"])
    assert report.pool("t4").check("size").message == f"{T4} offered in eastus (no availability zones)"
    assert report.ok


def test_family_quota_that_covers_one_pool_but_not_two(tmp_path):
    pools = [*POOLS, {"name": "t4-more", "gpu": "T4", "minNodes": 1, "maxNodes": 2}]
    report, _ = run(tmp_path, aks_config(pools), routes(limits={**ENOUGH, T4_FAMILY: 12, "cores": 100}))

    expected = f"needs 20 vCPUs, {T4_FAMILY} vCPUs limit 12 (in use now 0; t4 3×4 + t4-more 2×4)"
    assert {n: m for n, m in messages(report, "quota").items() if n.startswith("t4")} == {
        "t4": expected,
        "t4-more": expected,
    }
    assert [p.name for p in report.pools if not p.ok] == ["t4", "t4-more"]
    assert report.quota(T4_FAMILY).as_json() == {
        "quota": T4_FAMILY,
        "kind": "family",
        "localizedName": f"{T4_FAMILY} vCPUs",
        "pools": ["t4", "t4-more"],
        "vcpusNeeded": 20,
        "limit": 12,
        "currentValue": 0,
        "ok": False,
    }


def test_regional_quota_short_fails_every_on_demand_pool(tmp_path):
    report, _ = run(tmp_path, aks_config(), routes(limits={**ENOUGH, "cores": 60}))

    assert all(not p.check("regional").ok for p in report.pools)
    assert all(p.check("quota").ok for p in report.pools)
    assert report.quota("cores").as_json()["vcpusNeeded"] == 68


def test_spot_pools_count_against_the_spot_quota_only(tmp_path):
    pools = [*POOLS, {"name": "t4-spot", "gpu": "T4", "minNodes": 1, "maxNodes": 5, "capacity": "spot"}]
    report, _ = run(tmp_path, aks_config(pools), routes(limits={**ENOUGH, "lowPriorityCores": 16}))

    spot = report.pool("t4-spot")
    assert [c.name for c in spot.checks] == ["size", "shape", "quota"]
    assert spot.check("quota").message == (
        "needs 20 vCPUs, Total Regional Low-priority vCPUs limit 16 (in use now 0; t4-spot 5×4)"
    )
    assert not spot.ok
    assert report.quota(T4_FAMILY).needed == 12 and report.quota("cores").needed == 68  # spot VMs not in them
    assert [p.name for p in report.pools if not p.ok] == ["t4-spot"]


def test_quota_the_location_does_not_list_is_a_failure_not_a_crash(tmp_path):
    limits = {k: v for k, v in ENOUGH.items() if k != A100_FAMILY}
    report, _ = run(tmp_path, aks_config(), routes(limits=limits))

    quota = report.pool("a100").check("quota")
    assert not quota.ok
    assert quota.message == f"needs 48 vCPUs of {A100_FAMILY}, but the location lists no such quota (a100 2×24)"
    assert quota.data["limit"] is None


def test_family_names_match_whatever_their_case_and_spaces(tmp_path):
    # the catalog writes StandardNCADSA100v4Family; the SKU list and the usage API may spell it otherwise
    skus = all_skus(**{A100: {"family": "Standard NCADSA100v4 Family"}})
    lower = "s" + A100_FAMILY[1:]
    limits = {lower if k == A100_FAMILY else k: v for k, v in ENOUGH.items()}
    report, _ = run(tmp_path, aks_config(), routes(skus, limits))

    assert report.ok, [c.message for p in report.pools for c in p.checks if not c.ok]
    assert report.quota(A100_FAMILY).name == lower


def test_shape_disagreeing_with_the_catalog_names_both_sides(tmp_path):
    skus = all_skus(**{T4: {"vcpus": 8, "family": "standardNCASv4Family"}})
    report, _ = run(tmp_path, aks_config(), routes(skus, {**ENOUGH, T4_FAMILY: 24, "cores": 100}))

    shape = report.pool("t4").check("shape")
    assert not shape.ok
    assert shape.message == (
        f"{T4} has 8 vCPUs, the catalog says 4; {T4} is in family standardNCASv4Family, the catalog says {T4_FAMILY}"
    )
    # quota: Azure's vCPU count, the catalog's family (the one the catalog records for the usage API)
    assert report.quota(T4_FAMILY).needed == 24


def test_catalog_sizes_carry_a_quota_family():
    missing = [t.name for t in catalog.INSTANCE_TYPES.values() if t.platform == "aks" and not t.quota_family]
    assert missing == []


# ---------------------------------------------------------------------------------------------------
# Azure refusing


@pytest.mark.parametrize(
    "status, code, rule, fix",
    [
        (
            403,
            "AuthorizationFailed",
            "Azure denied Microsoft.Compute/locations/usages/read (AuthorizationFailed)",
            "grant Microsoft.Compute/locations/usages/read on the subscription",
        ),
        (
            401,
            "InvalidAuthenticationToken",
            "Azure rejected the credentials calling Microsoft.Compute/locations/usages/read",
            "sign in the way the Azure SDK's DefaultAzureCredential reads: `az login`",
        ),
        (
            404,
            "SubscriptionNotFound",
            "Azure does not know the subscription (SubscriptionNotFound)",
            "set AZURE_SUBSCRIPTION_ID",
        ),
    ],
)
def test_refused_call_names_the_rbac_action(tmp_path, status, code, rule, fix):
    answers = routes()
    answers[recorded.usages_path(LOCATION)] = (status, recorded.arm_error(code, "The client may not read usages."))

    with pytest.raises(aks.AzureAccessError) as caught:
        run(tmp_path, aks_config(), answers)

    assert caught.value.reason.startswith(rule)
    assert caught.value.fix.startswith(fix)
    assert caught.value.action == "Microsoft.Compute/locations/usages/read"


def test_subscription_comes_from_the_environment():
    assert aks.subscription_id({"ARM_SUBSCRIPTION_ID": "arm", "AZURE_SUBSCRIPTION_ID": " azure "}) == "azure"
    assert aks.subscription_id({"ARM_SUBSCRIPTION_ID": "arm"}) == "arm"
    with pytest.raises(aks.AzureAccessError) as caught:
        aks.subscription_id({"AZURE_SUBSCRIPTION_ID": "  "})
    assert "neither AZURE_SUBSCRIPTION_ID nor ARM_SUBSCRIPTION_ID is set" in caught.value.reason


# ---------------------------------------------------------------------------------------------------
# the command


@pytest.fixture
def cli(monkeypatch):
    """`gpuplan preflight` with a recorded compute client in place of the credential chain."""
    state: dict[str, Any] = {"answers": routes()}

    def client():
        compute, state["adapter"] = recorded.compute_client(state["answers"])
        return compute, recorded.SUBSCRIPTION

    monkeypatch.setattr(aks, "azure_compute_client", client)

    def invoke(*args: str):
        return CliRunner().invoke(app, ["preflight", *args])

    invoke.state = state  # type: ignore[attr-defined]
    return invoke


def test_cli_json_passing(tmp_path, cli):
    result = cli("--config", str(write_stack(tmp_path, aks_config(), "azlike")), "--out", str(tmp_path / "out"),
                 "--format", "json")  # fmt: skip

    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert {k: document[k] for k in ("stack", "platform", "covered", "region", "subscriptionId", "ok")} == {
        "stack": "azlike",
        "platform": "aks",
        "covered": True,
        "region": LOCATION,
        "subscriptionId": recorded.SUBSCRIPTION,
        "ok": True,
    }
    pools = {p["name"]: p for p in document["pools"]}
    assert pools["a100"]["instanceType"] == A100 and pools["a100"]["zones"] == []
    assert [c["check"] for c in pools["a100"]["checks"]] == ["size", "shape", "quota", "regional"]
    assert {q["quota"]: (q["kind"], q["vcpusNeeded"], q["limit"]) for q in document["quotas"]} == {
        A100_FAMILY: ("family", 48, 48),
        T4_FAMILY: ("family", 12, 12),
        SYSTEM_FAMILY: ("family", 8, 8),
        "cores": ("regional", 68, 68),
    }
    assert "prices" not in document
    assert json.loads((tmp_path / "out" / "preflight.json").read_text()) == document


def test_cli_text_failure_exits_1_with_the_numbers(tmp_path, cli):
    cli.state["answers"] = routes(limits={**ENOUGH, T4_FAMILY: 8})

    result = cli("--config", str(write_stack(tmp_path, aks_config())), "--out", str(tmp_path / "out"))

    assert result.exit_code == 1, result.output
    assert f"t4: up to 3 × {T4} (on-demand) FAIL" in result.stdout
    assert f"needs 12 vCPUs, {T4_FAMILY} vCPUs limit 8" in result.stdout
    assert "preflight failed for 1 of 3 pool(s): t4" in result.stdout


def test_cli_denied_call_exits_2_naming_the_action(tmp_path, cli):
    cli.state["answers"] = {
        **routes(),
        recorded.skus_path(): (403, recorded.arm_error("AuthorizationFailed", "No access to skus.")),
    }

    result = cli("--config", str(write_stack(tmp_path, aks_config())), "--out", str(tmp_path / "out"))

    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "Azure denied Microsoft.Compute/skus/read (AuthorizationFailed)" in result.stderr
    assert not (tmp_path / "out").exists()


AZURE_SIGN_IN_VARIABLES = (
    "AZURE_CLIENT_ID",
    "AZURE_TENANT_ID",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "AZURE_USERNAME",
    "AZURE_FEDERATED_TOKEN_FILE",
)


@pytest.mark.parametrize("case", ["no credentials", "no subscription", "bad setting"])
def test_cli_without_credentials_or_subscription_exits_2(tmp_path, monkeypatch, case):
    for key in (*AZURE_SIGN_IN_VARIABLES, *aks.SUBSCRIPTION_VARIABLES):
        monkeypatch.delenv(key, raising=False)
    if case != "no subscription":
        monkeypatch.setenv("AZURE_SUBSCRIPTION_ID", recorded.SUBSCRIPTION)
    # DefaultAzureCredential limited to its environment credential: no CLI, no managed-identity probe, no network
    monkeypatch.setenv("AZURE_TOKEN_CREDENTIALS", "EnvironmentCredential" if case != "bad setting" else "EnvCred")

    result = CliRunner().invoke(
        app,
        ["preflight", "--config", str(write_stack(tmp_path, aks_config())), "--out", str(tmp_path / "out"),
         "--format", "json"],
    )  # fmt: skip

    assert result.exit_code == 2, result.output
    [error] = json.loads(result.stdout)["errors"]
    assert error["path"] == "credentials"
    if case == "no credentials":
        assert error["rule"] == "no Azure credential is signed in (DefaultAzureCredential tried EnvironmentCredential)"
        assert "`az login`" in error["fix"] and "AZURE_CLIENT_SECRET" in error["fix"]
        assert "managed identity" in error["fix"] and "Microsoft.Compute/skus/read" in error["fix"]
    elif case == "no subscription":
        assert error["rule"].startswith("no Azure subscription chosen")
        assert "AZURE_SUBSCRIPTION_ID" in error["fix"]
    else:
        assert error["rule"].startswith("the Azure credential settings are invalid: Invalid value for AZURE_TOKEN")
    assert not (tmp_path / "out").exists()


# DefaultAzureCredential's messages as azure-identity 1.27 words them (abridged to three credentials)
NOTHING_SIGNED_IN = """DefaultAzureCredential failed to retrieve a token from the included credentials.
Attempted credentials:
\tEnvironmentCredential: EnvironmentCredential authentication unavailable. Environment variables are not fully configured.
Visit https://aka.ms/azsdk/python/identity/environmentcredential/troubleshoot to troubleshoot this issue.
\tManagedIdentityCredential: ManagedIdentityCredential authentication unavailable.
\tAzureCliCredential: Azure CLI not found on path
To mitigate this issue, please refer to the troubleshooting guidelines here at https://aka.ms/azsdk/python/identity/defaultazurecredential/troubleshoot."""
REFUSED = """DefaultAzureCredential failed to retrieve a token from the included credentials.
Attempted credentials:
\tEnvironmentCredential: Authentication failed: AADSTS7000215: Invalid client secret provided.
To mitigate this issue, please refer to the troubleshooting guidelines here at https://aka.ms/azsdk/python/identity/defaultazurecredential/troubleshoot."""


@pytest.mark.parametrize(
    "message, rule",
    [
        (
            NOTHING_SIGNED_IN,
            "no Azure credential is signed in (DefaultAzureCredential tried EnvironmentCredential, "
            "ManagedIdentityCredential, AzureCliCredential)",
        ),
        (
            REFUSED,
            "the Azure sign-in failed: EnvironmentCredential: Authentication failed: AADSTS7000215: Invalid client "
            "secret provided.",
        ),
        ("Unexpected answer from the token endpoint", "no Azure credential could sign in: Unexpected answer from the"),
    ],
)
def test_sign_in_failure_says_what_was_tried_and_what_refused(message, rule):
    assert aks.sign_in_failure(message).startswith(rule)


# ---------------------------------------------------------------------------------------------------
# the committed AKS stack


def test_committed_staging_stack_passes_with_the_quota_it_needs(tmp_path):
    config = load_stack_file(STACKS_DIR / "Pulumi.staging.yaml")
    plan = plan_stack(config)
    cluster = plan.cluster
    sizes = {cluster.system_vm_size, *(p.pool.instance_type for p in cluster.agent_pools)}
    location = cluster.location
    needed: dict[str, int] = {}
    for pool in cluster.agent_pools:
        shape = pool.pool.shape
        needed[shape.quota_family] = needed.get(shape.quota_family, 0) + pool.pool.max_nodes * shape.vcpus
    needed[SYSTEM_FAMILY] = cluster.system_count * 4
    needed["cores"] = sum(needed.values())
    compute, _ = recorded.compute_client(
        {
            recorded.skus_path(): (200, recorded.skus_body(*(recorded.vm_sku(s, location) for s in sorted(sizes)))),
            recorded.usages_path(location): (200, recorded.usages_body(needed)),
        }
    )

    report = aks.run_aks_preflight(plan, compute, recorded.SUBSCRIPTION)

    assert report.ok, [c.message for p in report.pools for c in p.checks if not c.ok]
    assert {q.name: q.needed for q in report.quotas} == needed


def test_cli_prices_from_the_retail_prices_api(tmp_path, cli, monkeypatch):
    from gpuplan.preflight import live_prices

    pages = {
        T4: recorded.retail_page(recorded.retail_item(T4, LOCATION, 0.526)),  # test figure
        A100: recorded.retail_page(),  # no price answered
    }

    def retail(request):
        size = next(s for s in pages if f"'{s}'" in (request.url or "").replace("%27", "'"))
        return 200, pages[size]

    transport, adapter = recorded.recorded_transport({"/api/retail/prices": retail})
    client = live_prices.azure_retail_client(transport)
    monkeypatch.setattr(live_prices, "azure_retail_client", lambda: client)

    result = cli("--config", str(write_stack(tmp_path, aks_config())), "--out", str(tmp_path / "out"),
                 "--format", "json", "--prices")  # fmt: skip

    assert result.exit_code == 0, result.output
    assert len(adapter.asked) == 2  # one read per VM size, no credentials sent
    assert all("Authorization" not in a.headers for a in adapter.asked)
    prices = json.loads(result.stdout)["prices"]
    pools = {p["pool"]: p for p in prices["pools"]}
    assert pools["t4"]["price"]["perNodeHour"] == 0.526 and pools["t4"]["price"]["region"] == LOCATION
    assert (pools["t4"]["alwaysOnPerHour"], pools["t4"]["maxPerHour"]) == (0.526, 1.578)
    assert pools["a100"]["price"] is None and pools["a100"]["unknownReason"].startswith("no on-demand hourly price")
    assert prices["totals"] == {"alwaysOnPerHour": 0.526, "maxPerHour": 1.578, "unpriced": ["a100"]}
