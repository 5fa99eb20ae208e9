"""`gpuplan preflight` for one stack: the read-only cloud checks of its plan (EKS: checks.py, AKS: aks.py), with
--prices the live on-demand prices of its pools (live_prices.py), and the report as JSON (preflight.json) and as
text (text.py). Kind and existing clusters ask no cloud account: the report says so and nothing is written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from dra_gpu_platform.facts import platforms
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.preflight import aks, checks, live_prices, text

# The platforms whose profile lists cloud checks (dra_gpu_platform/facts/platforms.py PlatformProfile.preflight).
COVERED = tuple(name for name, profile in platforms.PROFILES.items() if profile.preflight)

CloudReport = checks.PreflightReport | aks.AksPreflightReport


@dataclass(frozen=True)
class StackPreflight:
    stack: str
    platform: str
    report: CloudReport | None  # None: a platform preflight does not cover
    costs: live_prices.PriceReport | None = None

    @property
    def covered(self) -> bool:
        return self.report is not None

    @property
    def ok(self) -> bool:
        return self.report is None or self.report.ok

    @property
    def message(self) -> str:
        return (
            f"preflight covers EKS and AKS stacks; stack {self.stack} runs on {self.platform}, where no cloud account "
            "is asked, so there is nothing to check"
        )

    def as_json(self) -> dict[str, Any]:
        if self.report is None:
            return {
                "stack": self.stack,
                "platform": self.platform,
                "covered": False,
                "ok": True,
                "message": self.message,
            }
        document = self.report.as_json()
        if self.costs is not None:
            document["prices"] = self.costs.as_json()
        return document

    def render_text(self, console: Console) -> None:
        if self.report is None:
            console.print(self.message)
            return
        text.render_text(self.report, self.costs, console)


def preflight_stack(stack: str, plan: StackPlan, prices: bool, order: Sequence[str] = ()) -> StackPreflight:
    """Ask the stack's cloud account (read-only, its standard credentials) whether its GPU pools can launch; with
    `prices`, what they cost. `order`: the stack file's pool order, the order an EKS report lists them in. Raises
    InputError when the cloud cannot be asked (credentials, a denied call)."""
    ask = CLOUD_CHECKS.get(plan.platform) if plan.platform in COVERED else None
    if ask is None:
        return StackPreflight(stack, plan.platform, None)
    report, reader = ask(plan, order)
    costs = live_prices.price_report(plan.pools, plan.region or "", reader()) if prices else None
    return StackPreflight(stack, plan.platform, report, costs)


def _eks(plan: StackPlan, order: Sequence[str]) -> tuple[CloudReport, Callable[[], live_prices.PriceReader]]:
    try:
        ec2, quotas = checks.aws_clients(plan.region or "")
        report = checks.run_preflight(plan, ec2, quotas, order)
    except checks.AwsAccessError as error:
        where = f"AWS account access (region {plan.region})"
        raise InputError(
            [Problem(where, error.action or "credentials", error.code or MISSING, error.reason, error.fix)],
            "the AWS access preflight needs",
        ) from None
    return report, lambda: live_prices.aws_reader(live_prices.aws_pricing_client())


def _aks(plan: StackPlan, _order: Sequence[str]) -> tuple[CloudReport, Callable[[], live_prices.PriceReader]]:
    try:
        compute, subscription = aks.azure_compute_client()
        report = aks.run_aks_preflight(plan, compute, subscription)
    except aks.AzureAccessError as error:
        where = f"Azure subscription access (location {plan.region})"
        raise InputError(
            [Problem(where, error.action or "credentials", error.code or MISSING, error.reason, error.fix)],
            "the Azure access preflight needs",
        ) from None
    return report, lambda: live_prices.azure_reader(live_prices.azure_retail_client())


# Each covered platform's cloud checks, by profile name (one entry per profile that lists checks; a test holds them
# equal), the way dra-example-driver keeps one implementation per profile instead of branches.
CLOUD_CHECKS: dict[
    str, Callable[[StackPlan, Sequence[str]], tuple[CloudReport, Callable[[], live_prices.PriceReader]]]
] = {
    "eks": _eks,
    "aks": _aks,
}
