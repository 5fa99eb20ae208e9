"""Azure preflight for AKS stacks: can the subscription launch the VM sizes the stack's agent pools use?

An agent pool whose VM size the subscription may not use in the location, or whose vCPU quota (per VM family, and
the Total Regional vCPUs above it) is smaller than the pool can grow to, fails late in `pulumi up` or never scales
(docs/references.md#azure-vm-quota-tiers, docs/references.md#azure-resource-skus-api). This module asks Azure
Resource Manager, read-only, before the deploy: the Compute resource SKUs of the location (offered, restricted for
the subscription, the zones) and the Compute usages of the location (vCPU quota per family, regional and Spot).

The checks take a ComputeManagementClient as a parameter, so tests hand in one whose azure-core transport answers
with recorded responses; only `azure_compute_client` touches the credential chain and the environment.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.facts.catalog import InstanceType
from dra_gpu_platform.plans.aks import AksClusterPlan
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.preflight.checks import Check, PoolReport

# The token scope of Azure Resource Manager (the Compute management API lives there).
ARM_SCOPE = "https://management.azure.com/.default"
# Where the subscription comes from: the Azure SDK's and the Pulumi azure-native provider's variables.
SUBSCRIPTION_VARIABLES = ("AZURE_SUBSCRIPTION_ID", "ARM_SUBSCRIPTION_ID")

# Usage names of the two regional vCPU quotas (docs/references.md#azure-vm-quota-tiers): every pay-as-you-go VM also
# counts against the Total Regional vCPUs; Spot VMs count only against the Spot (low-priority) vCPUs of the region.
# The API's name first, then the English localized names the portal and Microsoft's Resource Graph queries use.
REGIONAL_QUOTA = ("cores", "Total Regional vCPUs")
SPOT_QUOTA = ("lowPriorityCores", "Total Regional Low-priority vCPUs", "Total Regional Spot vCPUs")

# The RBAC action behind each call preflight makes, named when Azure denies it (both are in the built-in Reader role).
RBAC_ACTIONS: dict[str, str] = {
    "resource_skus": "Microsoft.Compute/skus/read",
    "usage": "Microsoft.Compute/locations/usages/read",
}
SYSTEM_POOL = "system"  # the report's name for the cluster's system agent pool (dra_gpu_platform/facts/aks.py)


class AzureAccessError(Exception):
    """Preflight could not ask Azure: no subscription, no credentials, a denied call, no network."""

    def __init__(self, reason: str, fix: str, action: str = "", code: str = ""):
        self.reason = reason
        self.fix = fix
        self.action = action  # the RBAC action of the call that failed, "" before any call
        self.code = code  # Azure's error code, "" when no call got an answer
        super().__init__(reason)


def required_actions() -> list[str]:
    return sorted(set(RBAC_ACTIONS.values()))


def credentials_fix() -> str:
    return (
        "sign in the way the Azure SDK's DefaultAzureCredential reads: `az login` (and `az account set "
        "--subscription <id>`), or a service principal in AZURE_CLIENT_ID + AZURE_TENANT_ID + AZURE_CLIENT_SECRET "
        "(or AZURE_CLIENT_CERTIFICATE_PATH), or workload identity (AZURE_FEDERATED_TOKEN_FILE), or a managed "
        f"identity; the identity needs {', '.join(required_actions())} (the Reader role has both) on the subscription"
    )


# ---------------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class QuotaMember:
    pool: str
    vm_size: str
    nodes: int  # maxNodes (GPU pools) or the system pool's count
    vcpus: int | None  # per VM; None: neither Azure nor the catalog knows the size


@dataclass(frozen=True)
class AzureQuota:
    """One vCPU quota of the location and the pools that draw on it."""

    name: str  # the usage API's name.value (a family such as standardNCASv3_T4Family, cores, lowPriorityCores)
    kind: str  # family | regional | spot
    members: tuple[QuotaMember, ...]
    limit: int | None  # None: the location lists no such quota
    current: int | None  # vCPUs in use now (this stack's own VMs too, once deployed)
    localized_name: str = ""

    @property
    def needed(self) -> int:
        return sum(m.nodes * (m.vcpus or 0) for m in self.members)

    @property
    def unknown_sizes(self) -> list[str]:
        return sorted({m.vm_size for m in self.members if m.vcpus is None})

    @property
    def ok(self) -> bool:
        return self.limit is not None and not self.unknown_sizes and self.needed <= self.limit

    def message(self) -> str:
        shares = " + ".join(f"{m.pool} {m.nodes}×{m.vcpus if m.vcpus is not None else '?'}" for m in self.members)
        label = self.localized_name or self.name
        if self.limit is None:
            return f"needs {self.needed} vCPUs of {self.name}, but the location lists no such quota ({shares})"
        text = f"needs {self.needed} vCPUs, {label} limit {self.limit} (in use now {self.current}; {shares})"
        if self.unknown_sizes:
            text += f"; vCPUs of {', '.join(self.unknown_sizes)} unknown (not offered here, not in the catalog)"
        return text

    def as_json(self) -> dict[str, Any]:
        return {
            "quota": self.name,
            "kind": self.kind,
            "localizedName": self.localized_name,
            "pools": [m.pool for m in self.members],
            "vcpusNeeded": self.needed,
            "limit": self.limit,
            "currentValue": self.current,
            "ok": self.ok,
        }


@dataclass(frozen=True)
class AksPreflightReport:
    stack: str
    location: str
    subscription: str
    pools: tuple[PoolReport, ...]
    quotas: tuple[AzureQuota, ...]

    @property
    def region(self) -> str:  # the name the shared text rendering reads
        return self.location

    @property
    def ok(self) -> bool:
        return all(p.ok for p in self.pools)

    def pool(self, name: str) -> PoolReport:
        return next(p for p in self.pools if p.name == name)

    def quota(self, name: str) -> AzureQuota:
        return next(q for q in self.quotas if quota_key(q.name) == quota_key(name))

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "platform": "aks",
            "covered": True,
            "region": self.location,
            "subscriptionId": self.subscription,
            "ok": self.ok,
            "pools": [p.as_json() for p in self.pools],
            "quotas": [q.as_json() for q in self.quotas],
        }


# ---------------------------------------------------------------------------------------------------
# Azure calls


def subscription_id(environ: Mapping[str, str]) -> str:
    for name in SUBSCRIPTION_VARIABLES:
        value = environ.get(name, "").strip()
        if value:
            return value
    raise AzureAccessError(
        f"no Azure subscription chosen: neither {' nor '.join(SUBSCRIPTION_VARIABLES)} is set",
        "export AZURE_SUBSCRIPTION_ID=$(az account show --query id -o tsv), or the ARM_SUBSCRIPTION_ID your "
        "Pulumi azure-native provider already reads",
    )


def azure_compute_client(environ: Mapping[str, str] | None = None) -> tuple[Any, str]:
    """(ComputeManagementClient, subscription id) from the environment and DefaultAzureCredential; refuses early,
    before any Compute call, without a subscription or a credential that can get a token."""
    from azure.core.exceptions import AzureError
    from azure.identity import DefaultAzureCredential
    from azure.mgmt.compute import ComputeManagementClient

    subscription = subscription_id(os.environ if environ is None else environ)
    try:
        credential = DefaultAzureCredential()
    except ValueError as error:  # an environment setting it refuses, such as a misspelt AZURE_TOKEN_CREDENTIALS
        raise AzureAccessError(f"the Azure credential settings are invalid: {error}", credentials_fix()) from None
    identity_log = logging.getLogger("azure.identity")
    level = identity_log.level
    identity_log.setLevel(logging.ERROR)  # its warning repeats, unasked, what the problem below says
    try:
        credential.get_token(ARM_SCOPE)
    except AzureError as error:  # ClientAuthenticationError: nothing signed in, or a sign-in was refused
        raise AzureAccessError(
            sign_in_failure(str(getattr(error, "message", None) or error)), credentials_fix()
        ) from None
    finally:
        identity_log.setLevel(level)
    return ComputeManagementClient(credential, subscription), subscription


# What DefaultAzureCredential says of a credential that had nothing to sign in with (not a refusal).
_NOT_SET_UP = ("unavailable", "not installed", "not found", "could not be found", "requires")


def sign_in_failure(message: str) -> str:
    """DefaultAzureCredential's message, short: the credentials it tried and what refused, if anything did."""
    tried, refused = [], []
    for line in message.splitlines():
        name, colon, text = line.strip().partition(": ")
        if line.startswith("\t") and colon and name.endswith("Credential"):
            tried.append(name)
            if not any(marker in text for marker in _NOT_SET_UP):
                refused.append(f"{name}: {text.strip()}")
    if refused:
        return f"the Azure sign-in failed: {'; '.join(refused)}"
    if tried:
        return f"no Azure credential is signed in (DefaultAzureCredential tried {', '.join(tried)})"
    return f"no Azure credential could sign in: {message.strip().splitlines()[0] if message.strip() else 'no detail'}"


def _listed(client: Any, operation: str, *args: Any, **kwargs: Any) -> list[Any]:
    """Every item of one paged list call; Azure's refusals become AzureAccessError naming the RBAC action."""
    from azure.core.exceptions import ClientAuthenticationError, HttpResponseError, ServiceRequestError

    action = RBAC_ACTIONS[operation]
    try:
        return list(getattr(client, operation).list(*args, **kwargs))
    except ClientAuthenticationError as error:
        raise AzureAccessError(
            f"Azure rejected the credentials calling {action}: {_first_line(error)}", credentials_fix(), action, "401"
        ) from None
    except HttpResponseError as error:
        code = _error_code(error)
        if error.status_code == 403:
            raise AzureAccessError(
                f"Azure denied {action} ({code}): {_first_line(error)}",
                f"grant {action} on the subscription (the Reader role has it); preflight needs "
                f"{', '.join(required_actions())}",
                action,
                code,
            ) from None
        if code in ("SubscriptionNotFound", "InvalidSubscriptionId"):
            raise AzureAccessError(
                f"Azure does not know the subscription ({code}): {_first_line(error)}",
                "set AZURE_SUBSCRIPTION_ID (or ARM_SUBSCRIPTION_ID) to a subscription this identity can read "
                "(`az account list -o table`)",
                action,
                code,
            ) from None
        raise AzureAccessError(
            f"Azure answered {code} to {action}: {_first_line(error)}",
            "run preflight again later; if it persists, check the location name and Azure status",
            action,
            code,
        ) from None
    except ServiceRequestError as error:  # no answer at all: DNS, proxy, no route
        raise AzureAccessError(
            f"calling {action} failed: {_first_line(error)}",
            "check network access to management.azure.com",
            action,
        ) from None


def _error_code(error: Any) -> str:
    detail = getattr(error, "error", None)
    return str(getattr(detail, "code", "") or error.status_code or "")


def _first_line(error: Any) -> str:
    text = str(getattr(error, "message", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def location_skus(compute: Any, location: str) -> dict[str, Any]:
    """VM size → its Compute resource SKU as listed for the location (the API filters by location only)."""
    skus = _listed(compute, "resource_skus", filter=f"location eq '{location}'")
    return {
        sku.name: sku
        for sku in skus
        if sku.resource_type == "virtualMachines" and location.lower() in {x.lower() for x in sku.locations or ()}
    }


def quota_key(name: str) -> str:
    """Family and quota names as the APIs spell them vary in case and spaces ("Standard NCASv3_T4 Family",
    standardNCASv3_T4Family; docs/references.md#azure-gpu-vm-sizes): compare them without either."""
    return name.replace(" ", "").lower()


def location_usages(compute: Any, location: str) -> dict[str, Any]:
    """Usage name (and localized name), by quota_key → the usage entry of the location."""
    found: dict[str, Any] = {}
    for usage in _listed(compute, "usage", location):
        for key in (usage.name.value, usage.name.localized_value):
            if key:
                found.setdefault(quota_key(key), usage)
    return found


# ---------------------------------------------------------------------------------------------------
# the checks


@dataclass(frozen=True)
class _Member:
    """One agent pool as preflight sees it."""

    name: str
    vm_size: str
    nodes: int
    capacity: str  # on-demand | spot
    shape: InstanceType | None  # the catalog's entry (GPU pools); None for the system pool


def _members(cluster: AksClusterPlan) -> list[_Member]:
    system = _Member(SYSTEM_POOL, cluster.system_vm_size, cluster.system_count, "on-demand", None)
    gpu = [
        _Member(p.pool.name, p.pool.instance_type or "", p.pool.max_nodes, p.pool.capacity, p.pool.shape)
        for p in cluster.agent_pools
    ]
    return [system, *gpu]


def run_aks_preflight(plan: StackPlan, compute: Any, subscription: str) -> AksPreflightReport:
    """Every check for the system pool and every GPU pool of an AKS stack. Raises AzureAccessError when Azure
    cannot be asked."""
    cluster = plan.cluster
    assert isinstance(cluster, AksClusterPlan)
    location = cluster.location
    skus = location_skus(compute, location)
    usages = location_usages(compute, location)
    members = _members(cluster)
    quotas = _quotas(members, skus, usages)
    by_pool: dict[str, list[AzureQuota]] = defaultdict(list)
    for quota in quotas:
        for share in quota.members:
            by_pool[share.pool].append(quota)

    reports = []
    for member in members:
        sku = skus.get(member.vm_size)
        checks = [size_check(member.vm_size, sku, location)]
        if member.shape is not None:
            checks.append(shape_check(member.shape, sku))
        checks += [_quota_check(q) for q in sorted(by_pool[member.name], key=lambda q: q.kind != "family")]
        reports.append(PoolReport(member.name, member.vm_size, member.capacity, member.nodes, (), tuple(checks)))
    return AksPreflightReport(plan.stack, location, subscription, tuple(reports), tuple(quotas))


def _text(value: Any) -> str:
    """An SDK enum member (ResourceSkuRestrictionsType.LOCATION) or a plain string, as the API spells it."""
    return str(getattr(value, "value", value) or "")


def capability(sku: Any, name: str) -> str | None:
    return next((c.value for c in sku.capabilities or () if c.name == name), None)


def sku_vcpus(sku: Any) -> int | None:
    value = capability(sku, "vCPUs") if sku is not None else None
    return int(value) if value is not None and value.isdigit() else None


def size_check(vm_size: str, sku: Any, location: str) -> Check:
    """Offered in the location and not restricted there for this subscription. The stack's agent pools set no
    availability zones (dra_gpu_platform/resources/clusters/aks_node_pool.py), so they are regional: a zone restriction
    narrows where Azure may place a VM but does not stop the pool; the zones are shown, not required."""
    if sku is None:
        return Check(
            "size",
            False,
            f"{vm_size} is not offered in {location} (not among the location's Compute resource SKUs)",
            {"location": location, "offered": False},
        )
    zones = sorted(next((i.zones or [] for i in sku.location_info or () if i.location.lower() == location.lower()), []))
    restrictions: list[dict[str, Any]] = [
        {
            "type": _text(r.type),
            "reasonCode": _text(r.reason_code),
            "locations": list(r.restriction_info.locations or []) if r.restriction_info else [],
            "zones": sorted(r.restriction_info.zones or []) if r.restriction_info else [],
        }
        for r in sku.restrictions or ()
    ]
    location_blocks = [
        r for r in restrictions if r["type"] == "Location" and location.lower() in {x.lower() for x in r["locations"]}
    ]
    restricted_zones = sorted({z for r in restrictions if r["type"] == "Zone" for z in r["zones"]})
    usable_zones = [z for z in zones if z not in restricted_zones]
    data = {
        "location": location,
        "offered": not location_blocks,
        "zones": zones,
        "restrictedZones": restricted_zones,
        "restrictions": restrictions,
    }
    if location_blocks:
        reasons = ", ".join(sorted({str(r["reasonCode"]) for r in location_blocks}))
        return Check(
            "size",
            False,
            f"{vm_size} is restricted in {location} for this subscription ({reasons}): request access to the size "
            "in this location (a quota request for its family), or choose another location or size",
            data,
        )
    if not zones:
        where = "no availability zones"
    elif restricted_zones:
        where = (
            f"zones {', '.join(usable_zones) or 'none'} usable, {', '.join(restricted_zones)} restricted for this "
            "subscription; the pool is regional, so Azure places its VMs where it may"
        )
    else:
        where = f"zones {', '.join(zones)}"
    return Check("size", True, f"{vm_size} offered in {location} ({where})", data)


def shape_check(shape: InstanceType, sku: Any) -> Check:
    """The size's vCPUs and quota family as Azure lists them, against the catalog (which sizes pools and quotas)."""
    expected = {"vcpus": shape.vcpus, "family": shape.quota_family}
    if sku is None:
        return Check(
            "shape",
            False,
            f"{shape.name} is not listed here, so its shape cannot be compared with the catalog "
            f"({shape.vcpus} vCPUs, {shape.quota_family})",
            {"expected": expected},
        )
    vcpus, family = sku_vcpus(sku), sku.family or ""
    data = {"expected": expected, "actual": {"vcpus": vcpus, "family": family}}
    problems = []
    if vcpus != shape.vcpus:
        problems.append(f"{shape.name} has {vcpus} vCPUs, the catalog says {shape.vcpus}")
    if quota_key(family) != quota_key(shape.quota_family):
        problems.append(f"{shape.name} is in family {family or '(none)'}, the catalog says {shape.quota_family}")
    if problems:
        return Check("shape", False, "; ".join(problems), data)
    return Check("shape", True, f"{vcpus} vCPUs, family {family}, as the catalog says", data)


def _family(member: _Member, sku: Any) -> str:
    if member.shape is not None and member.shape.quota_family:
        return member.shape.quota_family
    return (sku.family if sku is not None else "") or ""


def _quotas(members: Iterable[_Member], skus: Mapping[str, Any], usages: Mapping[str, Any]) -> list[AzureQuota]:
    groups: dict[tuple[str, str], tuple[str, list[QuotaMember]]] = {}

    def add(kind: str, name: str, member: QuotaMember) -> None:
        groups.setdefault((kind, quota_key(name)), (name, []))[1].append(member)

    for member in members:
        sku = skus.get(member.vm_size)
        vcpus = sku_vcpus(sku)
        if vcpus is None and member.shape is not None:
            vcpus = member.shape.vcpus
        quota_member = QuotaMember(member.name, member.vm_size, member.nodes, vcpus)
        if member.capacity == "spot":
            add("spot", SPOT_QUOTA[0], quota_member)
            continue
        add("family", _family(member, sku) or f"(family of {member.vm_size} unknown)", quota_member)
        add("regional", REGIONAL_QUOTA[0], quota_member)
    named = {"regional": REGIONAL_QUOTA, "spot": SPOT_QUOTA}
    quotas = []
    for (kind, _), (name, group) in sorted(groups.items(), key=lambda kv: (kv[0][0] != "family", kv[0][1])):
        usage = next((usages[quota_key(k)] for k in named.get(kind, (name,)) if quota_key(k) in usages), None)
        quotas.append(
            AzureQuota(
                usage.name.value if usage is not None else name,
                kind,
                tuple(group),
                int(usage.limit) if usage is not None else None,
                int(usage.current_value) if usage is not None else None,
                (usage.name.localized_value or "") if usage is not None else "",
            )
        )
    return quotas


def _quota_check(quota: AzureQuota) -> Check:
    name = "regional" if quota.kind == "regional" else "quota"
    return Check(name, quota.ok, quota.message(), quota.as_json())
