"""The CEL adapter behaves like Kubernetes: DRA selectors (docs/references.md#cel-unknown-domain-empty-map,
docs/references.md#cel-libraries), admission policies (docs/references.md#vap-dra-only)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dra_gpu_platform.cel import (
    MAX_SELECTOR_BYTES,
    CelCompileError,
    CelEvaluationError,
    Device,
    Version,
    check_selector,
    compile_selector,
    evaluate,
)
from dra_gpu_platform.facts.quantity import Quantity, parse_quantity
from tests.conftest import UPSTREAM_SPECS, shared_path

NV = "device.attributes['gpu.nvidia.com']"
NV_MEMORY = "device.capacity['gpu.nvidia.com'].memory"

# A full H200 as the NVIDIA DRA driver publishes it (docs/references.md#nvidia-dra-gpu-attributes).
H200_SLICE_DEVICE = {
    "name": "gpu-0",
    "attributes": {
        "type": {"string": "gpu"},
        "uuid": {"string": "GPU-5b7a4f0e-2c1d-4e8b-9f3a-0d6c1e2b3a4f"},
        "productName": {"string": "NVIDIA H200"},
        "brand": {"string": "Nvidia"},
        "architecture": {"string": "Hopper"},
        "cudaComputeCapability": {"version": "9.0.0"},
        "driverVersion": {"version": "580.159.4"},
        "resource.kubernetes.io/pcieRoot": {"string": "pci0000:44"},
    },
    "capacity": {"memory": {"value": "143771Mi"}},
}


@pytest.fixture(scope="module")
def h200() -> Device:
    return Device.from_slice_device("gpu.nvidia.com", H200_SLICE_DEVICE)


def matches(expression: str, device: Device) -> bool:
    return compile_selector(expression).matches(device)


# --- Device.from_slice_device ---------------------------------------------------------------------------


def test_slice_device_groups_names_by_domain_and_types_values(h200):
    assert h200.driver == "gpu.nvidia.com" and h200.name == "gpu-0"
    assert set(h200.attributes) == {"gpu.nvidia.com", "resource.kubernetes.io"}
    nvidia = h200.attributes["gpu.nvidia.com"]
    assert nvidia["productName"] == "NVIDIA H200" and nvidia["architecture"] == "Hopper"
    assert nvidia["cudaComputeCapability"] == Version(9, 0, 0)
    assert nvidia["driverVersion"] == Version(580, 159, 4)
    assert "pcieRoot" not in nvidia
    assert h200.attributes["resource.kubernetes.io"] == {"pcieRoot": "pci0000:44"}
    assert h200.capacity == {"gpu.nvidia.com": {"memory": parse_quantity("143771Mi")}}
    assert h200.capacity["gpu.nvidia.com"]["memory"].as_integer() == 143771 * 2**20


def test_slice_device_published_attributes_are_visible_to_selectors(h200):
    assert matches(f"{NV}.architecture == 'Hopper' && {NV}.type == 'gpu'", h200)
    assert matches("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:44'", h200)
    assert matches(f"{NV}.driverVersion.isGreaterThan(semver('580.105.8'))", h200)
    assert not matches("device.driver == 'gpu.example.com'", h200)


@pytest.mark.parametrize(
    "attribute",
    [{"string": "a", "int": 1}, {}, {"bools": [True]}, {"int": True}, {"version": "9.0"}],
)
def test_slice_device_rejects_malformed_attributes(attribute):
    with pytest.raises(ValueError, match="attribute 'x'"):
        Device.from_slice_device("d.example.com", {"name": "n", "attributes": {"x": attribute}})


def test_device_key_ignores_the_name_but_not_values_or_value_types(h200):
    renamed = Device.from_slice_device("gpu.nvidia.com", {**H200_SLICE_DEVICE, "name": "gpu-7"})
    assert renamed.key() == h200.key() and renamed != h200
    other_uuid = dict(H200_SLICE_DEVICE, attributes={**H200_SLICE_DEVICE["attributes"], "uuid": {"string": "GPU-2"}})
    assert Device.from_slice_device("gpu.nvidia.com", other_uuid).key() != h200.key()
    as_bool = Device("d", "a", {"d": {"x": True}}, {})
    as_int = Device("d", "a", {"d": {"x": 1}}, {})
    assert as_bool.key() != as_int.key()  # CEL: true != 1
    assert len({h200, renamed, h200}) == 2


# --- Kubernetes selector semantics ----------------------------------------------------------------------


def test_unknown_domain_is_an_empty_map(h200):
    assert not matches("'x' in device.attributes['other.domain']", h200)
    assert matches("size(device.capacity['other.domain']) == 0", h200)
    assert not matches("has(device.attributes['other.domain'].x)", h200)


def test_unknown_field_is_an_evaluation_error_not_false(h200):
    with pytest.raises(CelEvaluationError, match="index"):
        matches(f"{NV}.index == 0", h200)
    with pytest.raises(CelEvaluationError, match="x"):
        matches("device.attributes['other.domain'].x == 1", h200)


def test_memory_read_as_attribute_aborts_while_capacity_form_matches(h200):
    with pytest.raises(CelEvaluationError, match="memory"):
        matches(f"{NV}.memory.compareTo(quantity('20Gi')) >= 0", h200)
    assert matches(f"{NV_MEMORY}.compareTo(quantity('20Gi')) >= 0", h200)


def test_capacity_comparisons_are_exact(h200):
    # 143771Mi is 140.4Gi: above 140Gi, below 141Gi; floats would not be trusted here
    assert matches(f"{NV_MEMORY}.compareTo(quantity('140Gi')) == 1", h200)
    assert matches(f"{NV_MEMORY}.isLessThan(quantity('141Gi'))", h200)
    assert matches(f"{NV_MEMORY}.compareTo(quantity('150754820096')) == 0", h200)
    assert matches(f"{NV_MEMORY} == quantity('143771Mi')", h200)


def test_guards_bindings_optionals_regex_and_string_functions(h200):
    assert matches(f"'productName' in {NV} && {NV}.productName.matches('^NVIDIA H(100|200)')", h200)
    assert matches(f"{NV}.?index.orValue(-1) == -1", h200)
    assert matches("device.attributes[?'other.domain'].?x.orValue(7) == 7", h200)
    assert matches("cel.bind(gpu, device.attributes['gpu.nvidia.com'], gpu.brand.lowerAscii() == 'nvidia')", h200)
    assert matches(f"{NV}.productName.split(' ')[1] == 'H200'", h200)
    assert matches("device.attributes.exists(domain, domain == 'resource.kubernetes.io')", h200)
    assert not matches("device.allowMultipleAllocations", h200)


def test_selector_must_return_bool(h200):
    with pytest.raises(CelCompileError, match="must evaluate to bool, not string"):
        compile_selector("device.driver")
    with pytest.raises(CelCompileError, match="must evaluate to bool, not kubernetes.Quantity"):
        compile_selector(NV_MEMORY)
    # an attribute has an unknown type: Kubernetes accepts it at compile time and checks the value
    with pytest.raises(CelEvaluationError, match="returned string, not bool"):
        matches(f"{NV}.productName", h200)
    boolean = Device("d.example.com", "x", {"d.example.com": {"healthy": True}}, {})
    assert matches("device.attributes['d.example.com'].healthy", boolean)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("device.driver == ", "Syntax error"),
        ("devices.driver == 'x'", "undeclared reference to 'devices.driver'"),
        ("frobnicate(device.driver)", "undeclared reference to 'frobnicate'"),
        (f"{NV_MEMORY} >= quantity('80Gi')", "no matching overload for '_>=_'"),  # methods, not operators
        (f"{NV_MEMORY}.compareTo(semver('1.0.0')) == 0", "no matching overload for 'compareTo'"),
        ("quantity('1').value == 1", "select"),  # Quantity is opaque
    ],
)
def test_compile_errors_say_what_is_wrong(expression, message):
    with pytest.raises(CelCompileError, match=message):
        compile_selector(expression)


def test_length_limit_is_10_kib():
    clause = "device.driver == 'gpu.nvidia.com' || "
    at_limit = (clause * (MAX_SELECTOR_BYTES // len(clause)) + "true").ljust(MAX_SELECTOR_BYTES)
    assert len(at_limit.encode()) == MAX_SELECTOR_BYTES
    compile_selector(at_limit)
    with pytest.raises(CelCompileError, match="too long: 10241 bytes"):
        compile_selector(at_limit + " ")


def test_compile_is_cached_by_text():
    assert compile_selector("device.driver == 'a'") is compile_selector("device.driver == 'a'")


def test_dyn_values_of_the_wrong_kind_fail_like_no_such_overload(h200):
    with pytest.raises(CelEvaluationError, match=r"no such overload: compareTo\(string, kubernetes.Quantity\)"):
        matches(f"{NV}.productName.compareTo(quantity('1')) == 0", h200)
    with pytest.raises(CelEvaluationError, match=r"compareTo\(kubernetes.Semver, kubernetes.Quantity\)"):
        matches(f"{NV}.driverVersion.compareTo({NV_MEMORY}) == 0", h200)
    with pytest.raises(CelEvaluationError, match=r"major\(string\)"):
        matches(f"{NV}.brand.major() == 1", h200)


def test_selectors_reading_whole_maps_see_every_entry(h200):
    # selectors that only read fixed names get just those entries; others must still see the whole map
    assert matches(f"size({NV}) == 7 && {NV}.type == 'gpu'", h200)
    assert matches("cel.bind(all, device.attributes, size(all) == 2)", h200)


# --- quantity library -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        "quantity('200M').compareTo(quantity('0.2G')) == 0",
        "quantity('50M').compareTo(quantity('50Mi')) == -1",
        "quantity('50Mi').compareTo(quantity('50M')) == 1",
        "quantity('150Mi').isGreaterThan(quantity('100Mi'))",
        "!quantity('50Mi').isGreaterThan(quantity('100Mi'))",
        "quantity('50M').isLessThan(quantity('100M'))",
        "quantity('-1').isLessThan(quantity('-500m')) && quantity('-1.5').compareTo(quantity('-1')) == -1",
        "quantity('1') == quantity('1000m')",
        "quantity('50k').asInteger() == 50000 && quantity('50000000G').isInteger()",
        "!quantity('1.5').isInteger() && !quantity('9999999999999999999999999999999999999G').isInteger()",
        "quantity('50k').add(20) == quantity('50020') && quantity('50k').sub(20000) == quantity('30k')",
        "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
        "quantity('50k').sub(20000).asApproximateFloat() == 30000.0",
        "quantity('1Gi').sign() == 1 && sign(quantity('-1m')) == -1 && quantity('0').sign() == 0",
        "isQuantity('1.3Gi') && !isQuantity('200K') && !isQuantity('Mi')",
    ],
)
def test_quantity_library(expression):
    assert evaluate(expression, {}) is True


def test_quantity_errors():
    with pytest.raises(CelEvaluationError, match="'200K' is not a Kubernetes quantity"):
        evaluate("quantity('200K').sign() == 1", {})
    with pytest.raises(CelEvaluationError, match="cannot convert value to integer"):
        evaluate("quantity('9999999999999999999999999999999999999G').asInteger()", {})
    with pytest.raises(CelEvaluationError, match="not a Kubernetes quantity"):
        evaluate("quantity(x).sign()", {"x": "lots"})


def _decimal_text(units: int, scale: int) -> str:
    digits = str(abs(units)).rjust(scale + 1, "0")
    text = f"{digits[:-scale]}.{digits[-scale:]}" if scale else digits
    return f"-{text}" if units < 0 else text


_decimal_quantities = st.builds(
    lambda units, scale, suffix: _decimal_text(units, scale) + suffix,
    st.integers(-(10**12), 10**12),
    st.integers(0, 4),
    st.sampled_from(["", "m", "k", "Ki", "Mi", "Gi", "G", "e3", "e-2", "n"]),
)


@settings(max_examples=150, deadline=None)
@given(_decimal_quantities, _decimal_quantities)
def test_quantity_ordering_in_cel_matches_exact_arithmetic(left, right):
    expected = parse_quantity(left).compare_to(parse_quantity(right))
    assert evaluate("quantity(a).compareTo(quantity(b))", {"a": left, "b": right}) == expected
    assert evaluate("a.compareTo(b)", {"a": parse_quantity(left), "b": parse_quantity(right)}) == expected
    assert evaluate("(a == b) == (a.compareTo(b) == 0)", {"a": parse_quantity(left), "b": parse_quantity(right)})


def test_quantities_round_trip_through_evaluate():
    total = evaluate("a.add(b)", {"a": parse_quantity("80Gi"), "b": parse_quantity("512Mi")})
    assert total == parse_quantity("80.5Gi") and str(total) == "82432Mi"
    assert evaluate("quantity('1.5')", {}) == Quantity(Fraction(3, 2), "1500m")
    assert evaluate("quantity('-250u')", {}).value == Fraction(-1, 4000)


# --- semver library -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        "semver('1.2.3').compareTo(semver('1.2.3')) == 0",
        "semver('1.2.3').compareTo(semver('2.0.0')) == -1",
        "semver('1.2.3').compareTo(semver('0.1.2')) == 1",
        "semver('1.10.0').isGreaterThan(semver('1.9.9'))",
        "semver('1.0.0-alpha').isLessThan(semver('1.0.0'))",
        "semver('580.159.4').major() == 580 && semver('580.159.4').minor() == 159 && semver('580.159.4').patch() == 4",
        "isSemver('1.0.0') && !isSemver('v1.0') && isSemver('v1.0', true) && !isSemver('hello')",
        "semver('v1.0', true) == semver('1.0.0') && semver('01.01.01', true) == semver('1.1.1')",
        "semver('1.0.0+build.1') == semver('1.0.0+build.2')",
    ],
)
def test_semver_library(expression):
    assert evaluate(expression, {}) is True


def test_semver_parse_errors():
    with pytest.raises(CelEvaluationError, match="not a semantic version"):
        evaluate("semver('1.0').major()", {})
    for text in ("1.0", "v1.0.0", "01.0.0", "1.0.0-01", "1.0.0-", " 1.0.0"):
        with pytest.raises(ValueError):
            Version.parse(text)


SEMVER_PRECEDENCE = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.2.0",
    "1.10.0",
    "10.0.0",
]  # semver.org §11, plus multi-digit parts


def test_version_ordering_follows_semver_precedence():
    versions = [Version.parse(text) for text in SEMVER_PRECEDENCE]
    assert sorted(versions) == versions
    assert Version.parse("1.0.0+build") == Version.parse("1.0.0") and str(Version.parse("1.0.0+b")) == "1.0.0+b"
    assert Version.parse("v2.1", normalize=True) == Version(2, 1, 0)


@pytest.mark.parametrize(("lower", "higher"), itertools.pairwise(SEMVER_PRECEDENCE))
def test_semver_ordering_in_cel_follows_precedence(lower, higher):
    variables = {"a": Version.parse(lower), "b": Version.parse(higher)}
    assert evaluate("a.isLessThan(b) && b.isGreaterThan(a) && a.compareTo(b) == -1 && b.compareTo(a) == 1", variables)
    assert evaluate("semver(x).compareTo(semver(x)) == 0", {"x": lower})


# --- check_selector (policy pack) -----------------------------------------------------------------------


def test_check_selector_accepts_a_correct_selector():
    assert check_selector(f"device.driver == 'gpu.nvidia.com' && {NV_MEMORY}.compareTo(quantity('79Gi')) >= 0") == []


@pytest.mark.parametrize(
    "expression",
    [
        f"{NV}.memory.compareTo(quantity('20Gi')) >= 0",
        f"{NV}.?memory.orValue(quantity('0')).isGreaterThan(quantity('1Gi'))",
        f"{NV}['memory'].isGreaterThan(quantity('1Gi'))",
        f"has({NV}.memory)",
        "cel.bind(gpu, device.attributes['gpu.nvidia.com'], gpu.memory.compareTo(quantity('20Gi')) >= 0)",
    ],
)
def test_check_selector_finds_memory_read_through_attributes(expression):
    problems = check_selector(expression)
    assert len(problems) == 1
    assert "reads 'memory' through device.attributes" in problems[0]
    assert "device.capacity['gpu.nvidia.com'].memory" in problems[0]


def test_check_selector_points_at_the_read():
    expression = f"device.driver == 'gpu.nvidia.com' &&\n  {NV}.memory.isGreaterThan(quantity('20Gi'))"
    assert "through device.attributes at 2:38:" in check_selector(expression)[0]


def test_check_selector_knows_other_capacity_names_and_accepts_more():
    assert "multiprocessors" in check_selector(f"{NV}.multiprocessors > 14")[0]
    assert "memorySlice3" in check_selector(f"has({NV}.memorySlice3)")[0]
    assert check_selector(f"{NV}.productName == 'x' && {NV}.profile == '1g.10gb'") == []
    assert "cores" in check_selector("device.attributes['cpu.example.com'].cores > 4", capacity_names={"cores"})[0]


def test_check_selector_reports_compile_problems_and_length():
    assert "must evaluate to bool" in check_selector("device.driver")[0]
    assert "Syntax error" in check_selector("device.driver ==")[0]
    too_long = check_selector("device.driver == 'x' || " * 500 + "true")
    assert len(too_long) == 1 and "too long" in too_long[0]


# --- upstream examples ----------------------------------------------------------------------------------


def _upstream_selectors() -> list[tuple[str, str]]:
    found = []

    def collect(node, source):
        if isinstance(node, dict):
            if isinstance(node.get("cel"), dict) and "expression" in node["cel"]:
                found.append((source, node["cel"]["expression"]))
            for value in node.values():
                collect(value, source)
        elif isinstance(node, list):
            for value in node:
                collect(value, source)

    for path in sorted(UPSTREAM_SPECS.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            collect(document, path.name)
    return found


UPSTREAM_SELECTORS = _upstream_selectors()


def test_upstream_specs_contain_selectors():
    shared_path(UPSTREAM_SPECS)
    assert len(UPSTREAM_SELECTORS) >= 8


# Without ../shared there are no selectors to read: one case that skips with the shared reason.
@pytest.mark.parametrize(
    ("source", "expression"),
    UPSTREAM_SELECTORS or [("", "")],
    ids=[f"{source}:{e[:40]}" for source, e in UPSTREAM_SELECTORS] or ["no-upstream-specs"],
)
def test_upstream_selector_compiles_and_passes_the_policy(source, expression):
    if not source:
        shared_path(UPSTREAM_SPECS)
    compile_selector(expression)
    assert check_selector(expression) == []


def test_upstream_example_driver_selectors_on_an_example_device():
    shared_path(UPSTREAM_SPECS)
    # dra-example-driver v0.2.1 devices (docs/references.md#example-driver-devices)
    device = Device.from_slice_device(
        "gpu.example.com",
        {
            "name": "gpu-0",
            "attributes": {
                "index": {"int": 0},
                "uuid": {"string": "gpu-18db0e85-99e9-c746-8531-ffeb86328b39"},
                "model": {"string": "LATEST-GPU-MODEL"},
                "driverVersion": {"version": "1.0.0"},
            },
            "capacity": {"memory": {"value": "80Gi"}},
        },
    )
    results = {e: matches(e, device) for s, e in UPSTREAM_SELECTORS if "gpu.example.com" in e}
    assert results == {
        "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'": True,
        "device.capacity['gpu.example.com'].memory.compareTo(quantity('4Gi')) >= 0": True,
        "device.attributes['gpu.example.com'].model == 'BLEEDING-EDGE-GPU'": False,
        "device.capacity['gpu.example.com'].memory.compareTo(quantity('1Ti')) >= 0": False,
    }


# --- evaluate(): the ValidatingAdmissionPolicy of docs/references.md#vap-dra-only ---------------------------------

GPU_DRA_ONLY_POLICY = yaml.safe_load(
    """
matchConditions:
- name: not-system-node-critical
  expression: "!has(object.spec.priorityClassName) || object.spec.priorityClassName != 'system-node-critical'"
variables:
- name: allContainers
  expression: "object.spec.containers + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
- name: legacyGpuContainers
  expression: >-
    variables.allContainers.filter(c, has(c.resources) && (
      (has(c.resources.limits) && 'nvidia.com/gpu' in c.resources.limits) ||
      (has(c.resources.requests) && 'nvidia.com/gpu' in c.resources.requests))).map(c, c.name)
validations:
- expression: "size(variables.legacyGpuContainers) == 0"
  messageExpression: >-
    'namespace ' + namespaceObject.metadata.name + ' is gpu-mode=dra-only: containers ' +
    variables.legacyGpuContainers.join(', ') + ' request nvidia.com/gpu; use spec.resourceClaims'
"""
)
NAMESPACE = {"metadata": {"name": "team-a", "labels": {"gpu-mode": "dra-only"}}}


def admit(pod: dict) -> str | None:
    """None if admitted (or not matched), else the denial message, the way the API server runs the policy."""
    context = {"object": pod, "oldObject": None, "namespaceObject": NAMESPACE, "request": {"operation": "CREATE"}}
    if not all(evaluate(c["expression"], context) for c in GPU_DRA_ONLY_POLICY["matchConditions"]):
        return None
    variables: dict = {}
    for variable in GPU_DRA_ONLY_POLICY["variables"]:
        variables[variable["name"]] = evaluate(variable["expression"], {**context, "variables": variables})
    for validation in GPU_DRA_ONLY_POLICY["validations"]:
        if not evaluate(validation["expression"], {**context, "variables": variables}):
            return evaluate(validation["messageExpression"], {**context, "variables": variables})
    return None


def pod(containers: list, init_containers: list | None = None, **spec) -> dict:
    body = {"containers": containers, **spec}
    if init_containers is not None:
        body["initContainers"] = init_containers
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team-a"}, "spec": body}


def test_policy_admits_dra_and_cpu_pods():
    dra = pod(
        [{"name": "train", "image": "cuda", "resources": {"claims": [{"name": "gpu"}]}}],
        resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
    )
    cpu = pod([{"name": "web", "resources": {"limits": {"cpu": "1"}}}, {"name": "bare", "image": "busybox"}])
    assert admit(dra) is None
    assert admit(cpu) is None


def test_policy_denies_legacy_gpu_in_containers_and_init_containers():
    limits = pod([{"name": "train", "resources": {"limits": {"nvidia.com/gpu": 1}}}, {"name": "side"}])
    assert admit(limits) == (
        "namespace team-a is gpu-mode=dra-only: containers train request nvidia.com/gpu; use spec.resourceClaims"
    )
    init = pod(
        [{"name": "main", "resources": {"limits": {"nvidia.com/gpu": "2"}}}],
        init_containers=[{"name": "warmup", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
    )
    assert "containers main, warmup request nvidia.com/gpu" in admit(init)


def test_policy_skips_system_node_critical_pods():
    critical = pod(
        [{"name": "dcgm", "resources": {"limits": {"nvidia.com/gpu": 1}}}], priorityClassName="system-node-critical"
    )
    assert admit(critical) is None


def test_evaluate_supports_optionals_and_reports_errors():
    object_ = {"metadata": {"labels": {"team": "a"}}}
    assert evaluate("object.metadata.?annotations.?owner.orValue('none')", {"object": object_}) == "none"
    assert evaluate("object.metadata.labels.map(k, k.upperAscii())", {"object": object_}) == ["TEAM"]
    with pytest.raises(CelEvaluationError, match="annotations"):
        evaluate("object.metadata.annotations.owner == 'x'", {"object": object_})
    with pytest.raises(CelCompileError, match="undeclared reference to 'obj.metadata'"):
        evaluate("obj.metadata", {"object": object_})
