"""The seeds' objects as the components create them, alone under mocks: DeviceTaintRules in the typed SDK class of
the plan's API version (their selectors without the fields left out), shared ResourceClaims keyed by name with
their tolerations."""

from __future__ import annotations

import pytest

from dra_gpu_platform.plans.claim_templates import ClaimPlan, ClaimTemplatePlan, ExactPlan, TolerationPlan
from dra_gpu_platform.plans.maintenance import DeviceTaintRulePlan
from dra_gpu_platform.plans.namespaces import NamespacePlan
from tests.resources.alone import inputs, of_type, provider, register


@pytest.mark.parametrize("api", ["resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"])
def test_a_device_taint_rule_is_the_sdk_class_of_its_api_version(api):
    from dra_gpu_platform.resources.dra.maintenance import Maintenance, MaintenanceArgs

    rule = DeviceTaintRulePlan("node-drain", "gpu.nvidia.com", "node-7", None, "maintenance", None, "NoExecute", api)
    registered = register(lambda: Maintenance("m", MaintenanceArgs((rule,), provider())))
    (created,) = of_type(registered, f"kubernetes:{api}:DeviceTaintRule")
    assert inputs(created)["spec"] == rule.manifest()["spec"]
    assert inputs(created)["spec"]["deviceSelector"] == {"driver": "gpu.nvidia.com", "pool": "node-7"}


def test_a_shared_claim_is_a_resource_claim_of_the_namespace_with_its_tolerations():
    from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace, TenantNamespaceArgs

    toleration = TolerationPlan("gpu.nvidia.com/xid", "Exists", None, "NoSchedule")
    claim = ClaimTemplatePlan(
        "shared", ClaimPlan("gpu", ExactPlan("l4", "ExactCount", 1, (), False, (toleration,)), (), None)
    )
    plan = NamespacePlan("team", "dra-only", {"gpu-mode": "dra-only"}, {}, (), (claim,))
    registered = register(lambda: TenantNamespace("team", TenantNamespaceArgs(plan, provider())))
    (created,) = of_type(registered, "kubernetes:resource.k8s.io/v1:ResourceClaim")
    assert created.name == "team-claim-shared"
    body = inputs(created)
    assert body["metadata"]["name"] == "shared" and body["spec"] == {"devices": claim.devices()}
