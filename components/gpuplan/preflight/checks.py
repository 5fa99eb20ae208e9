"""AWS preflight for EKS stacks: can the account actually launch the GPU pools the stack declares?

A node group with a zero vCPU quota is "created" but never launches a node, and a p5 pool whose subnets
sit in a zone without p5 fails late in a deploy (docs/references.md#ec2-zero-quota-node-group,
docs/references.md#eks-capacity-block-node-groups). This module asks EC2 and Service
Quotas, read-only, before `pulumi up`. The checks take boto3 clients as parameters so tests hand in
moto-backed or stubbed clients; only `aws_clients` touches the standard credential chain.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.facts import catalog
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.stack import StackPlan

# vCPU quotas under service code `ec2`, per instance family bucket and purchase option
# (docs/references.md#ec2-vcpu-quota-codes).
QUOTA_CODES: dict[tuple[str, str], str] = {
    ("P", "on-demand"): "L-417A185B",
    ("G", "on-demand"): "L-DB2E81BA",
    ("P", "spot"): "L-7212CCBC",
    ("G", "spot"): "L-3819A6DF",
}
FAMILY_LABEL = {"P": "P", "G": "G/VT"}

# Reservation states a pool can still use; the full list is botocore's CapacityReservationState enum.
USABLE_RESERVATION_STATES = ("active", "scheduled")

# The IAM action behind every call preflight makes, named in the error when the call is denied.
IAM_ACTIONS: dict[str, str] = {
    "describe_availability_zones": "ec2:DescribeAvailabilityZones",
    "describe_subnets": "ec2:DescribeSubnets",
    "describe_instance_type_offerings": "ec2:DescribeInstanceTypeOfferings",
    "describe_instance_types": "ec2:DescribeInstanceTypes",
    "describe_capacity_reservations": "ec2:DescribeCapacityReservations",
    "get_service_quota": "servicequotas:GetServiceQuota",
}

_DENIED = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation"}
_BAD_CREDENTIALS = {
    "AuthFailure",
    "InvalidClientTokenId",
    "UnrecognizedClientException",
    "SignatureDoesNotMatch",
    "ExpiredToken",
    "ExpiredTokenException",
    "RequestExpired",
    "OptInRequired",
}


class AwsAccessError(Exception):
    """Preflight could not ask AWS: no credentials, bad credentials, a denied call, no network."""

    def __init__(self, reason: str, fix: str, action: str = "", code: str = ""):
        self.reason = reason
        self.fix = fix
        self.action = action  # the IAM action of the call that failed, "" before any call
        self.code = code  # AWS error code, "" when no call got an answer
        super().__init__(reason)


def required_actions() -> list[str]:
    return sorted(set(IAM_ACTIONS.values()))


# ---------------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class Check:
    name: str  # zones | gpus | quota | reservation
    ok: bool
    message: str
    data: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "message": self.message, "data": self.data}


@dataclass(frozen=True)
class PoolReport:
    name: str
    instance_type: str
    capacity: str
    max_nodes: int
    zones: tuple[str, ...]
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def check(self, name: str) -> Check | None:
        return next((c for c in self.checks if c.name == name), None)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "instanceType": self.instance_type,
            "capacity": self.capacity,
            "maxNodes": self.max_nodes,
            "zones": list(self.zones),
            "ok": self.ok,
            "checks": [c.as_json() for c in self.checks],
        }


@dataclass(frozen=True)
class QuotaUse:
    code: str
    family: str  # P | G
    purchase: str  # on-demand | spot (capacity-block pools count as on-demand)
    pools: tuple[tuple[str, int, int], ...]  # (pool, maxNodes, vCPUs per node)
    quota: float | None  # None: the quota does not exist for this account/region
    error: str = ""

    @property
    def needed(self) -> int:
        return sum(nodes * vcpus for _, nodes, vcpus in self.pools)

    @property
    def ok(self) -> bool:
        return self.quota is not None and self.needed <= self.quota

    def as_json(self) -> dict[str, Any]:
        return {
            "quotaCode": self.code,
            "family": self.family,
            "purchaseOption": self.purchase,
            "pools": [p for p, _, _ in self.pools],
            "vcpusNeeded": self.needed,
            "quota": self.quota,
            "ok": self.ok,
        }


@dataclass(frozen=True)
class PreflightReport:
    stack: str
    region: str
    pools: tuple[PoolReport, ...]
    quotas: tuple[QuotaUse, ...]

    @property
    def ok(self) -> bool:
        return all(p.ok for p in self.pools)

    def pool(self, name: str) -> PoolReport:
        return next(p for p in self.pools if p.name == name)

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "platform": "eks",
            "covered": True,
            "region": self.region,
            "ok": self.ok,
            "pools": [p.as_json() for p in self.pools],
            "quotas": [q.as_json() for q in self.quotas],
        }


# ---------------------------------------------------------------------------------------------------
# AWS calls


def aws_clients(region: str):
    """(ec2, service-quotas) clients from the standard credential chain; refuses early without credentials."""
    import boto3
    from botocore.exceptions import BotoCoreError

    try:
        session = boto3.Session(region_name=region)
        credentials = session.get_credentials()
    except BotoCoreError as error:  # a broken profile or SSO cache
        raise AwsAccessError(f"could not load AWS credentials: {error}", _credentials_fix()) from None
    if credentials is None:
        raise AwsAccessError(
            "no AWS credentials found (environment, shared config/credentials files, SSO, container or instance role)",
            _credentials_fix(),
        )
    return session.client("ec2"), session.client("service-quotas")


def _credentials_fix() -> str:
    return (
        "configure credentials the AWS CLI way (`aws configure`, `aws sso login`, AWS_PROFILE, or "
        f"AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) for an identity allowed: {', '.join(required_actions())}"
    )


def _call(client, method: str, **kwargs) -> dict:
    """One API call; access problems become AwsAccessError naming the IAM action."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return getattr(client, method)(**kwargs)
    except ClientError as error:
        _raise_access(error, method)
        raise
    except BotoCoreError as error:
        raise _sdk_error(error, method) from None


def _pages(client, method: str, key: str, **kwargs) -> list[dict]:
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return [item for page in client.get_paginator(method).paginate(**kwargs) for item in page.get(key, [])]
    except ClientError as error:
        _raise_access(error, method)
        raise
    except BotoCoreError as error:
        raise _sdk_error(error, method) from None


def _raise_access(error, method: str) -> None:
    code = error.response.get("Error", {}).get("Code", "")
    message = error.response.get("Error", {}).get("Message", "")
    action = IAM_ACTIONS[method]
    if code in _DENIED:
        raise AwsAccessError(
            f"AWS denied {action} ({code}): {message}".rstrip(": "),
            f"grant {action} to this identity; preflight needs {', '.join(required_actions())}",
            action,
            code,
        ) from None
    if code in _BAD_CREDENTIALS:
        raise AwsAccessError(
            f"AWS rejected the credentials calling {action} ({code}): {message}".rstrip(": "),
            _credentials_fix(),
            action,
            code,
        ) from None


def _sdk_error(error, method: str) -> AwsAccessError:
    from botocore import exceptions as bx

    action = IAM_ACTIONS[method]
    if isinstance(error, bx.NoCredentialsError):
        return AwsAccessError("no AWS credentials found", _credentials_fix(), action)
    if isinstance(
        error,
        (
            bx.PartialCredentialsError,
            bx.CredentialRetrievalError,
            bx.TokenRetrievalError,
            bx.SSOTokenLoadError,
            bx.UnauthorizedSSOTokenError,
        ),
    ):
        return AwsAccessError(f"could not load AWS credentials: {error}", _credentials_fix(), action)
    return AwsAccessError(
        f"calling {action} failed: {error}",
        "check network access to the AWS endpoints of the region and the region name",
        action,
    )


def _error_code(error) -> str:
    return error.response.get("Error", {}).get("Code", "")


# ---------------------------------------------------------------------------------------------------
# the checks


def pool_instance_type(pool: PoolPlan) -> str:
    """The pool's EC2 type: as written, or the catalog's default for its GPU (the plan resolved it)."""
    assert pool.instance_type  # config rules reject EKS pools whose GPU has no EC2 type
    return pool.instance_type


def pool_shape(pool: PoolPlan) -> catalog.InstanceType:
    """What the stack says a pool's instances are: an unlisted type's declared instanceFacts, else the catalog's."""
    assert pool.shape is not None  # config rules accept only catalog types or unlisted ones with instanceFacts
    return pool.shape


def quota_family(instance_type: str) -> str:
    shape = catalog.instance_type("eks", instance_type)
    if shape is not None and shape.quota_family:
        return shape.quota_family
    return "P" if instance_type.startswith("p") else "G"


def quota_purchase(pool: PoolPlan) -> str:
    # Capacity Block instances are counted against the On-Demand bucket: the conservative reading,
    # since no AWS document says which quota they count against (docs/references.md#ec2-vcpu-quota-codes).
    return "spot" if pool.capacity == "spot" else "on-demand"


def run_preflight(plan: StackPlan, ec2, quotas, order: Sequence[str] = ()) -> PreflightReport:
    """Every check for every GPU pool of an EKS stack's plan, the pools in `order` (the stack file's nodePools
    order, as the report has always listed them), then any other by name. Raises AwsAccessError when AWS cannot be
    asked."""
    from botocore.exceptions import ClientError

    try:
        return _run(plan, in_order(plan.pools, order), ec2, quotas)
    except ClientError as error:  # throttling or a service fault that outlived botocore's retries
        operation = getattr(error, "operation_name", "")
        action = next((a for a in IAM_ACTIONS.values() if a.endswith(f":{operation}")), operation)
        raise AwsAccessError(
            f"AWS answered {_error_code(error)} to {action}: {error.response.get('Error', {}).get('Message', '')}",
            "run preflight again later; if it persists, check the region and the AWS Health Dashboard",
            action,
            _error_code(error),
        ) from None


def in_order(pools: Iterable[PoolPlan], order: Sequence[str]) -> list[PoolPlan]:
    """`pools` in `order` (names), the pools it does not name after them by name."""
    rank = {name: index for index, name in enumerate(order)}
    return sorted(pools, key=lambda pool: (rank.get(pool.name, len(rank)), pool.name))


def _run(plan: StackPlan, pools: list[PoolPlan], ec2, quotas) -> PreflightReport:
    cluster = plan.cluster
    assert plan.region and isinstance(cluster, eks_plan.EksClusterPlan)
    region = plan.region
    if not pools:  # an empty InstanceTypes list would describe every type of the region
        return PreflightReport(plan.stack, region, (), ())
    types = sorted({pool_instance_type(p) for p in pools})
    specs = _instance_types(ec2, types)
    zone_plan = _zone_plan(cluster.network, pools, region, ec2)
    offered = _offerings(ec2, types)
    quota_uses = _quota_uses(pools, specs, quotas)
    by_pool = {name: use for use in quota_uses for name, _, _ in use.pools}

    reports = []
    for pool in pools:
        itype = pool_instance_type(pool)
        zones, zone_problems = zone_plan(pool)
        checks = [
            _zones_check(itype, zones, zone_problems, offered.get(itype, set())),
            gpus_check(itype, specs.get(itype), pool_shape(pool)),
            _quota_check(pool, by_pool[pool.name]),
        ]
        if pool.capacity_reservation_id:
            checks.append(_reservation_check(pool, itype, zones, ec2, region))
        reports.append(PoolReport(pool.name, itype, pool.capacity, pool.max_nodes, tuple(zones), tuple(checks)))
    return PreflightReport(plan.stack, region, tuple(reports), tuple(quota_uses))


def _instance_types(ec2, types: list[str]) -> dict[str, dict]:
    from botocore.exceptions import ClientError

    try:
        return {
            t["InstanceType"]: t for t in _pages(ec2, "describe_instance_types", "InstanceTypes", InstanceTypes=types)
        }
    except ClientError as error:
        if _error_code(error) != "InvalidInstanceType":
            raise
    if len(types) == 1:
        return {}
    # One unknown name fails the whole call: ask one by one to keep the types the region knows.
    found: dict[str, dict] = {}
    for name in types:
        found.update(_instance_types(ec2, [name]))
    return found


def _offerings(ec2, types: list[str]) -> dict[str, set[str]]:
    offered: dict[str, set[str]] = defaultdict(set)
    for offer in _pages(
        ec2,
        "describe_instance_type_offerings",
        "InstanceTypeOfferings",
        LocationType="availability-zone",
        Filters=[{"Name": "instance-type", "Values": types}],
    ):
        offered[offer["InstanceType"]].add(offer["Location"])
    return offered


def _zone_plan(network: eks_plan.EksNetworkPlan, pools: list[PoolPlan], region: str, ec2):
    """A function pool → (zones its nodes can land in, problems with that placement)."""
    if network.subnet_ids:
        found = {
            s["SubnetId"]: s["AvailabilityZone"]
            for s in _pages(
                ec2, "describe_subnets", "Subnets", Filters=[{"Name": "subnet-id", "Values": list(network.subnet_ids)}]
            )
        }
        missing = [s for s in network.subnet_ids if s not in found]
        subnet_zones = sorted(set(found.values()))
        common = [f"subnet {s} (cluster.eks.subnetIds) does not exist in {region}" for s in missing]

        def plan(pool: PoolPlan) -> tuple[list[str], list[str]]:
            if pool.zone is None:
                return subnet_zones, common
            problems = list(common)
            if pool.zone not in subnet_zones:
                problems.append(
                    f"no subnet of cluster.eks.subnetIds is in {pool.zone} "
                    f"(they are in {', '.join(subnet_zones) or 'no zone'})"
                )
            return [pool.zone], problems

        return plan

    # A created VPC spans the zones dra_gpu_platform/resources/clusters/eks.py chooses (eks_plan.vpc_zones); a pinned zone
    # the region lacks is reported per pool below instead of failing the whole check.
    zones = _region_zones(ec2)
    pinned = {p.zone for p in pools if p.zone}
    vpc_zones = eks_plan.vpc_zones(zones, network.zone_count, pinned & set(zones))

    def plan_vpc(pool: PoolPlan) -> tuple[list[str], list[str]]:
        if pool.zone is None:
            return vpc_zones, []
        if pool.zone not in zones:
            return [pool.zone], [f"{pool.zone} is not an available zone of {region} (available: {', '.join(zones)})"]
        return [pool.zone], []

    return plan_vpc


def _region_zones(ec2) -> list[str]:
    # Local Zones and Wavelength Zones the account opted into are listed too; the VPC uses plain zones.
    listed = _call(ec2, "describe_availability_zones")["AvailabilityZones"]
    return sorted(
        z["ZoneName"]
        for z in listed
        if z.get("ZoneType", "availability-zone") == "availability-zone" and z.get("State") == "available"
    )


def _zones_check(itype: str, zones: list[str], problems: list[str], offered: set[str]) -> Check:
    missing = [z for z in zones if z not in offered]
    data = {"zones": zones, "offeredIn": sorted(offered), "notOfferedIn": missing}
    messages = list(problems)
    if missing:
        messages.append(
            f"{itype} is not offered in {', '.join(missing)} "
            f"(offered in {', '.join(sorted(offered)) or 'no zone of the region'})"
        )
    if not zones:
        messages.append("the pool has no zone to launch in")
    if messages:
        return Check("zones", False, "; ".join(messages), data)
    return Check("zones", True, f"{itype} offered in all {len(zones)} zone(s): {', '.join(zones)}", data)


def gpus_check(itype: str, spec: dict | None, shape: catalog.InstanceType | None = None) -> Check:
    """What EC2 reports for `itype` against what the stack expects: the catalog's entry, or `shape` (an unlisted
    type's declared facts)."""
    shape = shape or catalog.instance_type("eks", itype)
    assert shape is not None
    per_gpu_gb = shape.gpu_memory_gb // shape.gpus
    expected = f"{shape.gpus} × {shape.gpu} {per_gpu_gb} GB"
    if spec is None:
        return Check(
            "gpus",
            False,
            f"{itype} is not an instance type EC2 knows in this region (catalog: {expected})",
            {"expected": {"gpus": shape.gpus, "gpu": shape.gpu, "memoryGbPerGpu": per_gpu_gb}},
        )
    gpus = (spec.get("GpuInfo") or {}).get("Gpus") or []
    count = sum(g.get("Count", 0) for g in gpus)
    names = sorted({g.get("Name", "") for g in gpus})
    mib = sorted({g.get("MemoryInfo", {}).get("SizeInMiB", 0) for g in gpus})
    data = {
        "expected": {"gpus": shape.gpus, "gpu": shape.gpu, "memoryGbPerGpu": per_gpu_gb},
        "actual": {"gpus": count, "gpu": names, "memoryMiBPerGpu": mib},
        "vcpus": spec.get("VCpuInfo", {}).get("DefaultVCpus"),
    }
    found = f"{count} × {'/'.join(names) or 'no GPU'} {'/'.join(str(m) for m in mib) or 0} MiB"
    problems = []
    if count != shape.gpus:
        problems.append(f"{itype} has {count} GPU(s), the catalog says {shape.gpus}")
    # EC2 names the chip ("A100"), the catalog adds the memory variant ("A100-80GB").
    if names != [catalog.gpu_model(shape.gpu).ec2_gpu_name]:
        problems.append(f"{itype} carries {', '.join(names) or 'no GPU'}, the catalog says {shape.gpu}")
    if len(mib) != 1 or not _memory_matches(mib[0], per_gpu_gb):
        problems.append(f"{itype} has {'/'.join(str(m) for m in mib)} MiB per GPU, the catalog says {per_gpu_gb} GB")
    if problems:
        return Check("gpus", False, "; ".join(problems), data)
    return Check("gpus", True, f"{found} per instance, as the catalog says ({expected})", data)


def _memory_matches(mib: int, nominal_gb: int) -> bool:
    # EC2 reports some GPUs in GiB (H100: 81920 MiB = 80 GiB) and others in GB (L4: 22888 MiB = 24 GB).
    return math.floor(nominal_gb * 10**9 / 2**20) <= mib <= nominal_gb * 1024


def _quota_uses(pools: Iterable[PoolPlan], specs: dict[str, dict], quotas) -> list[QuotaUse]:
    from botocore.exceptions import ClientError

    groups: dict[tuple[str, str], list[tuple[str, int, int]]] = defaultdict(list)
    for pool in pools:
        itype = pool_instance_type(pool)
        vcpus = specs.get(itype, {}).get("VCpuInfo", {}).get("DefaultVCpus") or pool_shape(pool).vcpus
        groups[(quota_family(itype), quota_purchase(pool))].append((pool.name, pool.max_nodes, vcpus))
    uses = []
    for (family, purchase), members in sorted(groups.items(), key=lambda kv: QUOTA_CODES[kv[0]]):
        code = QUOTA_CODES[(family, purchase)]
        try:
            value = float(_call(quotas, "get_service_quota", ServiceCode="ec2", QuotaCode=code)["Quota"]["Value"])
            uses.append(QuotaUse(code, family, purchase, tuple(members), value))
        except ClientError as error:
            if _error_code(error) != "NoSuchResourceException":
                raise
            uses.append(
                QuotaUse(code, family, purchase, tuple(members), None, error.response["Error"].get("Message", ""))
            )
    return uses


def _quota_check(pool: PoolPlan, use: QuotaUse) -> Check:
    family = FAMILY_LABEL[use.family]
    shares = " + ".join(f"{name} {nodes}×{vcpus}" for name, nodes, vcpus in use.pools)
    data = {
        "quotaCode": use.code,
        "purchaseOption": use.purchase,
        "vcpusNeeded": use.needed,
        "quota": use.quota,
        "pools": [name for name, _, _ in use.pools],
    }
    if use.quota is None:
        return Check(
            "quota",
            False,
            f"needs {use.needed} {family} vCPUs, but quota {use.code} does not exist here "
            f"({use.error or 'NoSuchResourceException'})",
            data,
        )
    text = f"needs {use.needed} {family} vCPUs, quota {use.quota:g} ({use.code}, {use.purchase}: {shares})"
    return Check("quota", use.ok, text, data)


def _reservation_check(pool: PoolPlan, itype: str, zones: list[str], ec2, region: str) -> Check:
    from botocore.exceptions import ClientError

    rid = pool.capacity_reservation_id
    try:
        found = _call(ec2, "describe_capacity_reservations", CapacityReservationIds=[rid])["CapacityReservations"]
    except ClientError as error:
        if not _error_code(error).startswith("InvalidCapacityReservationId"):
            raise
        found = []
    if not found:
        return Check("reservation", False, f"capacity reservation {rid} does not exist in {region}", {"id": rid})
    res = found[0]
    state, rtype, zone = res.get("State", ""), res.get("InstanceType", ""), res.get("AvailabilityZone", "")
    kind = res.get("ReservationType", "default")
    data = {
        "id": rid,
        "state": state,
        "instanceType": rtype,
        "availabilityZone": zone,
        "reservationType": kind,
        "totalInstances": res.get("TotalInstanceCount"),
        "startDate": res.get("StartDate"),
        "endDate": res.get("EndDate"),
    }
    problems = []
    if state not in USABLE_RESERVATION_STATES:
        problems.append(f"{rid} is {state}; it must be {' or '.join(USABLE_RESERVATION_STATES)}")
    if rtype != itype:
        problems.append(f"{rid} reserves {rtype}, the pool uses {itype}")
    if pool.capacity == "capacity-block" and kind != "capacity-block":
        problems.append(f"{rid} is not a Capacity Block (reservation type {kind})")
    expected = [pool.zone] if pool.zone else zones
    if zone not in expected:
        problems.append(f"{rid} is in {zone}, the pool is limited to {', '.join(expected)}")
    if problems:
        return Check("reservation", False, "; ".join(problems), data)
    count = res.get("TotalInstanceCount")
    return Check("reservation", True, f"{rid} {state} {kind}: {count} × {rtype} in {zone}", data)
