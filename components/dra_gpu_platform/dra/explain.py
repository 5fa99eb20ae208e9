"""Why claims do not fit on a node, in words: the first request that cannot be served even alone (which selector is
false for which published values, how many devices are in use or tainted), else the constraint, else the sum. The
scheduler itself only says "cannot allocate all claims"; these lines are fit's. Pure: no Pulumi imports, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dra_gpu_platform.dra.claims import DeviceClassSpec
from dra_gpu_platform.dra.cluster import Cluster
from dra_gpu_platform.dra.model import Features, NodeInfo, PodClaim, Selectors, blocking_taint, lookup_attribute


class Explanations:
    """Mixed into the Scheduler: reads its cluster, classes, features and selectors."""

    cluster: Cluster
    classes: dict[str, DeviceClassSpec]
    features: Features
    selectors: Selectors

    # -- why not --------------------------------------------------------------------------------------
    def why_not(self, node: NodeInfo, claims: list[PodClaim]) -> str:
        """Why the claims do not fit on this node, in one line (the scheduler itself only says "cannot allocate
        all claims"): the first request that cannot be served even alone, else the constraint, else the sum."""
        pools = self.cluster.pools(node)
        devices = [
            ((p.driver, p.pool, d.name), d.shape)
            for p in pools
            if not p.incomplete and p.invalid is None
            for s in p.slices
            for d in s.devices
        ]
        skipped = [
            f"{p.driver}/{p.pool} ({'incomplete' if p.incomplete else p.invalid})"
            for p in pools
            if p.incomplete or p.invalid is not None
        ]

        def prefix(claim: PodClaim) -> str:
            return f"claim {claim.ref} " if len(claims) > 1 else ""

        problems = []
        for claim in claims:
            for request in claim.spec.requests:
                shortfalls = [self._shortfall(sub, devices) for sub in request.alternatives]
                if all(shortfalls):
                    if request.first_available:
                        problems.append(
                            f"{prefix(claim)}request {request.name}: no alternative fits: "
                            + "; ".join(
                                f"{sub.name}: {text}"
                                for sub, text in zip(request.alternatives, shortfalls, strict=False)
                            )
                        )
                    else:
                        problems.append(f"{prefix(claim)}request {request.name}: {shortfalls[0]}")
        if not problems:
            for claim in claims:
                for constraint in claim.spec.constraints:
                    text = self._constraint_shortfall(claim, constraint, devices)
                    if text:
                        problems.append(f"{prefix(claim)}{text}")
                        break
        if not problems:
            needed = sum(min(s.count for s in r.alternatives) for c in claims for r in c.spec.requests)
            count = sum(len(c.spec.requests) for c in claims)
            problems.append(
                f"each request fits alone, but not all {count} together: they need {needed} distinct devices "
                "on one node (a device serves one request)"
            )
        if skipped:
            problems.append("pools not usable: " + ", ".join(skipped))
        return "; ".join(problems)

    def _usable(self, sub: Any, devices: list[tuple[Any, Any]]) -> tuple[list[Any], int, int]:
        """(devices that match and are free and tolerated, how many match but are in use, how many are tainted)."""
        device_class = self.classes[sub.device_class]
        usable, in_use, tainted = [], 0, 0
        for device_id, shape in devices:
            if shape.binding_conditions and not self.features.binding_and_status:
                continue
            if self._failure(device_class, sub, shape) is not None:
                continue
            if not sub.admin_access and device_id in self.cluster.usage.allocated:
                in_use += 1
            elif self.features.device_taints and blocking_taint(sub, shape) is not None:
                tainted += 1
            else:
                usable.append((device_id, shape))
        return usable, in_use, tainted

    def _failure(self, device_class: DeviceClassSpec, sub: Any, shape: Any) -> tuple[str, int, str] | None:
        """The first selector that is false (owner, index, expression), or None when the device matches."""
        for owner, selectors in (
            (f"DeviceClass {device_class.name}", device_class.selectors),
            (f"request {sub.label}", sub.selectors),
        ):
            for i, expression in enumerate(selectors):
                if self.selectors.verdict(expression, shape) is not True:
                    return owner, i, expression
        return None

    def _shortfall(self, sub: Any, devices: list[tuple[Any, Any]]) -> str | None:
        usable, in_use, tainted = self._usable(sub, devices)
        notes = "".join(
            [
                f"; {in_use} more in use" if in_use else "",
                f"; {tainted} more tainted and not tolerated" if tainted else "",
            ]
        )
        if sub.mode == "All":
            if usable and not in_use and not tainted:
                return None
            if usable or in_use or tainted:
                return f"allocationMode All needs every matching device, and {in_use + tainted} of them are in use or tainted"
        elif len(usable) >= sub.count:
            return None
        if usable:
            return (
                f"needs {sub.count} devices of DeviceClass {sub.device_class} on one node, a node of this pool has "
                f"{len(usable)} that match{notes}"
            )
        if in_use or tainted:
            return f"every matching device of DeviceClass {sub.device_class} is taken{notes}"
        if not devices:
            return "a node of this pool publishes no devices"
        device_class = self.classes[sub.device_class]
        failures: dict[tuple[str, int, str], list[Any]] = {}
        for _, shape in devices:
            step = self._failure(device_class, sub, shape)
            if step is not None:
                failures.setdefault(step, []).append(shape)
        per_node = f"{len(devices)} device{'s' if len(devices) != 1 else ''} per node"
        parts = []
        for (owner, index, expression), shapes in sorted(failures.items(), key=lambda item: -len(item[1]))[:2]:
            parts.append(
                f"{owner} selector #{index} `{expression}` is false for {len(shapes)} of {per_node} "
                f"({self._values(expression, shapes)})"
            )
        return "no device matches: " + "; ".join(parts)

    def _values(self, expression: str, shapes: list[Any]) -> str:
        """The values of what a selector reads, as the failing devices publish them."""
        selector = self.selectors.compiled(expression)
        if isinstance(selector, str):
            return selector
        shown = []
        if "device.driver" in expression:
            shown.append("driver " + _distinct(s.driver for s in shapes))
        for map_name, domain, name in selector.reads() or ():
            values = [
                (s.device.attributes if map_name == "attributes" else s.device.capacity).get(domain, {}).get(name)
                for s in shapes
            ]
            if all(v is None for v in values):
                shown.append(f"{domain}/{name} not published")
            else:
                shown.append(f"{domain}/{name}={_distinct('missing' if v is None else str(v) for v in values)}")
        return ", ".join(shown) if shown else "the expression reads whole attribute maps"

    def _constraint_shortfall(self, claim: PodClaim, constraint: Any, devices: list[tuple[Any, Any]]) -> str | None:
        if constraint.attribute is None:
            return None
        subs = [
            sub
            for r in claim.spec.requests
            for sub in r.alternatives[:1]
            if not constraint.requests or sub.request in constraint.requests or sub.label in constraint.requests
        ]
        if not subs:
            return None
        needed = sum(s.count for s in subs)
        candidates = {i: shape for sub in subs for i, shape in self._usable(sub, devices)[0]}
        values: dict[Any, int] = {}
        missing = 0
        for shape in candidates.values():
            value = lookup_attribute(shape, constraint.attribute)
            if value is None:
                missing += 1
            else:
                values[value] = values.get(value, 0) + 1
        where = f"constraint {'distinctAttribute' if constraint.distinct else 'matchAttribute'} {constraint.attribute}"
        if not values:
            return f"{where}: the {missing} matching devices do not publish {constraint.attribute}"
        if constraint.distinct:
            return f"{where}: only {len(values)} distinct values among matching devices, {needed} devices needed"
        best, count = max(values.items(), key=lambda item: item[1])
        return (
            f"{where}: at most {count} matching devices share one value ({best[1]}) on a node of this pool, "
            f"{needed} needed" + (f"; {missing} lack the attribute" if missing else "")
        )


def _distinct(values: Iterable[str], limit: int = 3) -> str:
    seen = list(dict.fromkeys(values))
    text = "|".join(seen[:limit])
    return text + (f"|… ({len(seen)} values)" if len(seen) > limit else "")
