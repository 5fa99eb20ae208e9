"""Rules of `deviceClasses`: each class selects something that a catalog GPU can publish."""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts import catalog


def check(r: RuleContext) -> None:
    c = r.c
    r.unique("deviceClasses", (d.name for d in c.device_classes))
    if c.device_classes and not c.dra_pools:
        r.add(
            "deviceClasses",
            [d.name for d in c.device_classes],
            "device classes need a node pool with gpuStack: dra",
            "add a dra pool or remove the classes",
        )
    if c.device_classes and not c.dra_driver.enabled and not c.uses_example_driver:
        r.add("draDriver.enabled", False, "device classes need the DRA driver", "set draDriver.enabled: true")
    for i, dc in enumerate(c.device_classes):
        at = f"deviceClasses[{i}]"
        if not any((dc.gpu, dc.min_memory, dc.mig_profile, dc.min_compute_capability, dc.selectors)):
            r.add(
                at,
                {"name": dc.name},
                "a device class must select something",
                "set gpu, minMemory, migProfile, minComputeCapability or selectors",
            )
        model = catalog.gpu_model(dc.gpu) if dc.gpu else None
        mig = None
        if dc.mig_profile is not None:
            if model is not None:
                mig = model.mig_profile(dc.mig_profile)
                if mig is None:
                    r.add(
                        f"{at}.migProfile",
                        dc.mig_profile,
                        f"not a MIG profile of {dc.gpu}" if model.supports_mig else f"{dc.gpu} does not support MIG",
                        f"use one of {', '.join(p.name for p in model.mig_profiles)}"
                        if model.supports_mig
                        else "remove migProfile",
                    )
            elif dc.mig_profile not in catalog.all_mig_profile_names():
                r.add(
                    f"{at}.migProfile",
                    dc.mig_profile,
                    "not a MIG profile of any catalog GPU",
                    f"use one of {', '.join(sorted(catalog.all_mig_profile_names()))}",
                )
        if dc.min_memory is not None and model is not None:
            from dra_gpu_platform.facts.quantity import parse_quantity

            if mig is None:
                available = model.memory
            elif mig.memory is not None:
                available = parse_quantity(mig.memory)
            else:
                available = None  # no NVML figure is sourced for the profile: nothing to compare with
            if available is not None and parse_quantity(dc.min_memory) > available:
                r.add(
                    f"{at}.minMemory",
                    dc.min_memory,
                    f"{dc.gpu}{' ' + mig.name if mig else ''} publishes memory {available.text}; this class could never match",
                    f"use at most {available.text} (NVML totals are below the marketing size: '80GB' H100 → 81559Mi)",
                )
        if dc.min_compute_capability is not None and model is not None:
            if _cc(model.compute_capability) < _cc(dc.min_compute_capability):
                r.add(
                    f"{at}.minComputeCapability",
                    dc.min_compute_capability,
                    f"{dc.gpu} has compute capability {model.compute_capability}; this class could never match",
                    "lower minComputeCapability or change gpu",
                )
        if dc.sharing is not None:
            s = dc.sharing
            if s.strategy == "TimeSlicing" and (
                s.default_active_thread_percentage is not None or s.default_pinned_device_memory_limit
            ):
                r.add(
                    f"{at}.sharing",
                    s.model_dump(by_alias=True, exclude_none=True),
                    "MPS settings need strategy: MPS",
                    "remove them or use strategy: MPS",
                )
            if s.strategy == "MPS" and s.interval is not None:
                r.add(
                    f"{at}.sharing.interval",
                    s.interval,
                    "interval belongs to TimeSlicing",
                    "remove interval or use strategy: TimeSlicing",
                )
            if dc.mig_profile is not None and s.interval is not None:
                r.add(
                    f"{at}.sharing.interval",
                    s.interval,
                    "MIG devices take MigDeviceConfig, which has no time-slicing interval",
                    "remove interval (MIG sharing supports MPS)",
                )
            if c.uses_example_driver and s.strategy == "MPS":
                r.add(
                    f"{at}.sharing.strategy",
                    "MPS",
                    "the dra-example-driver supports TimeSlicing, not MPS",
                    "use TimeSlicing on kind",
                )


def _cc(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))
