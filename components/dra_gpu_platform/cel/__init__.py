"""CEL as Kubernetes evaluates it for DRA device selectors and admission policies. Pure (no Pulumi).

Engine: cel-expr-python 0.1.3 (cel-cpp) with its strings, optional and bindings extensions, plus the Kubernetes
quantity and semver libraries (apiserver pkg/cel/library/{quantity,semverlib}.go) re-implemented here.

How an expression runs:
1. A *typing* environment type-checks it with Kubernetes' declarations: `device.driver` string,
   `device.attributes` map(string, map(string, dyn)), `device.capacity` map(string, map(string, Quantity)),
   Quantity and Semver as opaque types. This yields the error messages and the result type, and rejects what
   Kubernetes rejects, e.g. `quantity('1') < quantity('2')`.
2. The checked syntax tree is rewritten and run unchecked in a *runtime* environment:
   - Python objects cannot be CEL values here, so values travel as tagged lists:
     Quantity [b"kubernetes.Quantity", order key, exact value "p/q"],
     Semver [b"kubernetes.Semver", order key, major, minor, patch, "major.minor.patch[-prerelease]"].
     Order keys are strings whose CEL `<` is the library's ordering, and every element is canonical, so `==`
     is value equality (quantity('1') == quantity('1000m')). Lists have no `<`, so ordering a Semver
     attribute with `>=` fails as in Kubernetes; JSON never holds bytes, so decoding results is unambiguous.
   - compareTo/isGreaterThan/isLessThan/sign/major/minor/patch become plain CEL on those lists, and
     quantity('..')/semver('..') of a literal become list literals. Reason: every call into a Python function
     leaks its arguments in cel-expr-python 0.1.3 (about 50-300 bytes per call), and is slower. The rarer
     functions (add, sub, asInteger, ...) and non-literal quantity(x)/semver(x) still call Python.
   - Kubernetes gives an unknown domain an empty map (docs/references.md#cel-unknown-domain-empty-map); cel-cpp maps
     have no default, so `device.attributes[d]` becomes `device.attributes[?d].orValue({})`. An unknown *name*
     inside a known or empty domain stays an evaluation error, as in Kubernetes.

Not modelled: the CEL cost limits (estimated and runtime, 1,000,000 per selector); a bare `device` variable
(`has(device.driver)`, `cel.bind(d, device, ...)` do not compile here; Kubernetes accepts them);
the empty-map default when a domain map is reached other than by indexing `device.attributes`/`device.capacity`
directly (e.g. `cel.bind(m, device.attributes, m['other'])` is an error here).
"""

from __future__ import annotations

from dra_gpu_platform.cel.base import KNOWN_CAPACITY_NAMES, MAX_SELECTOR_BYTES, CelCompileError, CelEvaluationError
from dra_gpu_platform.cel.devices import Device
from dra_gpu_platform.cel.selectors import DeviceSelector, check_selector, compile_selector, evaluate
from dra_gpu_platform.cel.values import Version

__all__ = [
    "KNOWN_CAPACITY_NAMES",
    "MAX_SELECTOR_BYTES",
    "CelCompileError",
    "CelEvaluationError",
    "Device",
    "DeviceSelector",
    "Version",
    "check_selector",
    "compile_selector",
    "evaluate",
]
