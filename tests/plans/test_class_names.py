"""DeviceClass names are DNS subdomains, as the API server takes them (docs/references.md#dra-api-object-names):
whatever derives from a class name stays valid Kubernetes (subrequest names are DNS labels, quota keys qualified
names, the DeviceClass's own name a subdomain) and the logical names follow the class name."""

from __future__ import annotations

import copy
import re

import pytest

from dra_gpu_platform.config import ConfigError, StackConfig
from dra_gpu_platform.facts.naming import dns_label
from dra_gpu_platform.plans.stack import plan_stack
from tests.conftest import KIND_BASE, run_config

LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
QUALIFIED_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")

MIG_CLASS = "nvidia-h100-mig-3g.40gb"
# the longest class a quota key can name: 225 + len(".deviceclass.resource.k8s.io") = 253
LONG_CLASS = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 33])


def _stack(*classes: str) -> dict:
    config = copy.deepcopy(KIND_BASE)
    config["deviceClasses"] = [{"name": name, "minMemory": "40Gi"} for name in classes]
    config["namespaces"][0]["quota"] = {"devices": dict.fromkeys(classes, 4)}
    config["namespaces"][0]["claimTemplates"] = [
        {"name": "any-of", "firstAvailable": [{"deviceClass": name} for name in classes]}
    ]
    return config


def _valid_qualified_name(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    return len(prefix) <= 253 and bool(SUBDOMAIN.match(prefix)) and len(name) <= 63 and bool(QUALIFIED_NAME.match(name))


def test_a_subdomain_class_name_is_accepted_and_everything_derived_from_it_is_valid():
    assert len(LONG_CLASS) == 225
    plan = plan_stack(StackConfig.model_validate(_stack(MIG_CLASS, LONG_CLASS)))
    assert [c.name for c in plan.device_classes] == sorted([MIG_CLASS, LONG_CLASS])
    assert all(SUBDOMAIN.match(c.name) and len(c.name) <= 253 for c in plan.device_classes)
    [namespace] = [n for n in plan.namespaces if n.name == "team-a"]
    keys = [key for key in namespace.quota if "deviceclass" in key]
    assert keys and all(_valid_qualified_name(key) for key in keys), keys
    [template] = namespace.claim_templates
    names = [sub.name for sub in template.claim.first_available]
    assert all(LABEL.match(name) and len(name) <= 63 for name in names) and len(set(names)) == 2, names
    assert names[0] == "nvidia-h100-mig-3g-40gb"  # a short name only loses its dots, as before


def test_long_class_names_that_share_a_beginning_get_distinct_subrequest_names():
    first, second = LONG_CLASS, LONG_CLASS[:-1] + "e"
    assert dns_label(first) != dns_label(second)
    assert all(LABEL.match(dns_label(name)) and len(dns_label(name)) <= 63 for name in (first, second))
    assert dns_label("gpu.nvidia.com") == "gpu-nvidia-com"


def test_a_class_too_long_for_its_quota_key_is_named():
    too_long = LONG_CLASS + "d"
    with pytest.raises(ConfigError) as caught:
        StackConfig.model_validate(_stack(too_long))
    [problem] = caught.value.problems
    assert problem.path == f"namespaces[0].quota.devices.{too_long}" and "at most 225 characters" in problem.fix


@pytest.mark.parametrize("name", ["Nvidia.H100", "h100..mig", "-h100", "h100.", "a" * 254])
def test_what_is_no_dns_subdomain_is_refused(name):
    with pytest.raises(ConfigError) as caught:
        StackConfig.model_validate(_stack(name))
    assert [p.path for p in caught.value.problems] == ["deviceClasses[0].name"]


def test_namespaces_stay_dns_labels():
    config = copy.deepcopy(KIND_BASE)
    config["namespaces"][1]["name"] = "team.b"
    with pytest.raises(ConfigError) as caught:
        StackConfig.model_validate(config)
    assert [p.path for p in caught.value.problems] == ["namespaces[1].name"]


def test_the_program_names_the_device_class_and_its_resource_after_the_class(tmp_path):
    run = run_config(tmp_path, _stack(MIG_CLASS), "names")
    [device_class] = [r for r in run.resources if r.type == "kubernetes:resource.k8s.io/v1:DeviceClass"]
    assert device_class.inputs["metadata"]["name"] == MIG_CLASS
    assert device_class.name.endswith(f"-{MIG_CLASS}")
