"""Cross-field rules of the stack contract ("Meaning that code must enforce"). Pure: no Pulumi imports.

Each rule returns Problems with the field path, the value, the rule and a fix; all rules run, so one
`gpuplan preview` shows every mistake in a stack file.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from components.facts import catalog, versions
from components.config.models import StackConfig
from components.config.problems import MISSING, Problem

NVIDIA_DRIVER_CLASSES = ("gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com")
COMPUTE_DOMAIN_CLASSES = ("compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com")
EXAMPLE_DRIVER_CLASSES = ("gpu.example.com",)
RESERVED_LABEL_PREFIXES = ("dra-gpu-platform.io/", "nvidia.com/", "kubernetes.io/", "k8s.io/", "node-role.kubernetes.io/")


def driver_device_classes(config: StackConfig) -> tuple[str, ...]:
    """DeviceClasses the installed driver chart creates by itself (dra.md 4.3 and 5)."""
    if config.uses_example_driver:
        return EXAMPLE_DRIVER_CLASSES
    if not config.dra_driver.enabled:
        return ()
    return NVIDIA_DRIVER_CLASSES + (COMPUTE_DOMAIN_CLASSES if config.dra_driver.compute_domains else ())


def usable_device_classes(config: StackConfig) -> set[str]:
    return {c.name for c in config.device_classes} | set(driver_device_classes(config))


class _Rules:
    def __init__(self, config: StackConfig, declared: dict[str, set[str]]):
        self.c = config
        self.declared = declared
        self.problems: list[Problem] = []

    def add(self, path: str, value, rule: str, fix: str) -> None:
        self.problems.append(Problem(self.c.source, path, value, rule, fix))

    # ---------------------------------------------------------------- helpers
    def unique(self, section: str, names: Iterable[str]) -> None:
        seen: Counter[str] = Counter()
        for index, name in enumerate(names):
            seen[name] += 1
            if seen[name] == 2:
                self.add(f"{section}[{index}].name", name, "names must be unique in the list",
                         "rename one of them; names are the identity of the resources they create")

    # ---------------------------------------------------------------- cluster
    def cluster(self) -> None:
        cluster = self.c.cluster
        for other in ("eks", "aks", "kind", "existing"):
            if other != cluster.platform and getattr(cluster, other) is not None:
                self.add(f"cluster.{other}", "{...}", f"only the block matching platform ({cluster.platform}) is allowed",
                         f"remove cluster.{other} or set platform: {other}")
        settings = cluster.settings()
        if cluster.platform == "eks":
            if settings.endpoint_public_access and not settings.public_access_cidrs:
                self.add("cluster.eks.publicAccessCidrs", [], "a public endpoint needs explicit CIDRs",
                         "list the office/VPN CIDRs, or set endpointPublicAccess: false")
            for i, cidr in enumerate(settings.public_access_cidrs):
                if cidr in ("0.0.0.0/0", "::/0"):
                    self.add(f"cluster.eks.publicAccessCidrs[{i}]", cidr, "the API endpoint must not be open to the whole internet",
                             "list specific CIDRs, or keep the endpoint private")
                elif not _is_cidr(cidr):
                    self.add(f"cluster.eks.publicAccessCidrs[{i}]", cidr, "not an IPv4 CIDR", "write it like 203.0.113.0/24")
            if not _is_cidr(settings.vpc_cidr):
                self.add("cluster.eks.vpcCidr", settings.vpc_cidr, "not an IPv4 CIDR", "write it like 10.0.0.0/16")
            if not self.c.region:
                self.add("aws:region", MISSING, "EKS stacks need the AWS region", "add `aws:region: us-east-1` under config")
        if cluster.platform == "aks" and not self.c.region:
            self.add("azure-native:location", MISSING, "AKS stacks need the Azure location", "add `azure-native:location: eastus` under config")
        if cluster.platform == "kind" and settings.node_image:
            tag = settings.node_image.rsplit(":", 1)[-1].split("@")[0]
            if not tag.startswith(f"v{cluster.kubernetes_version}."):
                self.add("cluster.kind.nodeImage", settings.node_image,
                         f"the node image must run Kubernetes {cluster.kubernetes_version} (kubernetesVersion)",
                         f"use kindest/node:v{cluster.kubernetes_version}.x or change kubernetesVersion")
        if cluster.platform == "kind" and settings.example_driver_version not in versions.EXAMPLE_DRIVER_RELEASES:
            self.add("cluster.kind.exampleDriverVersion", settings.example_driver_version, "no such dra-example-driver chart release",
                     f"use one of {', '.join(versions.EXAMPLE_DRIVER_RELEASES)}")
        if cluster.platform == "existing" and not self.c.has_kubeconfig:
            self.add("kubeconfig", MISSING, "platform existing needs the cluster's kubeconfig as a secret config value",
                     "run `pulumi config set --secret kubeconfig \"$(cat ~/.kube/config)\" --stack <stack>`")

    # ---------------------------------------------------------------- node pools
    def node_pools(self) -> None:
        c = self.c
        platform = c.platform
        self.unique("nodePools", (p.name for p in c.node_pools))
        for i, pool in enumerate(c.node_pools):
            at = f"nodePools[{i}]"
            model = catalog.gpu_model(pool.gpu)
            if pool.min_nodes > pool.max_nodes:
                self.add(f"{at}.minNodes", pool.min_nodes, f"minNodes must be ≤ maxNodes ({pool.max_nodes})", "lower minNodes or raise maxNodes")
            if pool.desired_nodes is not None and not pool.min_nodes <= pool.desired_nodes <= pool.max_nodes:
                self.add(f"{at}.desiredNodes", pool.desired_nodes, f"desiredNodes must lie within minNodes..maxNodes ({pool.min_nodes}..{pool.max_nodes})",
                         "choose a size within the autoscaling range")
            if platform in ("eks", "aks"):
                self._cloud_instance(at, pool, platform)
                if pool.gpus_per_node is not None:
                    self.add(f"{at}.gpusPerNode", pool.gpus_per_node, "on eks/aks the GPU count comes from the instance type",
                             "remove gpusPerNode; choose an instanceType with that many GPUs")
            elif pool.instance_type is not None and platform == "kind":
                self.add(f"{at}.instanceType", pool.instance_type, "kind workers have no instance type", "remove instanceType")
            elif pool.instance_type is not None:
                known = catalog.instance_type_named(pool.instance_type)
                if known is None:
                    self.add(f"{at}.instanceType", pool.instance_type, "unknown instance type (used to count GPUs per node)",
                             "set gpusPerNode instead, or use a catalog type")
                elif known.gpu != pool.gpu:
                    self.add(f"{at}.instanceType", pool.instance_type, f"{pool.instance_type} carries {known.gpu}, not {pool.gpu}",
                             f"set gpu: {known.gpu} or pick another type")
            if pool.capacity != "on-demand" and platform in ("kind", "existing"):
                self.add(f"{at}.capacity", pool.capacity, f"capacity applies to cloud pools, not platform {platform}", "remove capacity")
            if pool.capacity == "capacity-block":
                if platform == "aks":
                    self.add(f"{at}.capacity", pool.capacity, "EC2 Capacity Blocks do not exist on AKS",
                             "use on-demand or spot; for reserved Azure capacity use a capacity reservation group")
                elif pool.capacity_reservation_id is None:
                    self.add(f"{at}.capacityReservationId", MISSING, "capacity-block pools need the Capacity Block reservation id",
                             "add capacityReservationId: cr-... (from the EC2 console or `aws ec2 describe-capacity-reservations`)")
                if platform == "eks" and pool.availability_zone is None:
                    self.add(f"{at}.availabilityZone", MISSING, "a Capacity Block lives in one zone; the pool's subnets must be limited to it",
                             "add availabilityZone: us-east-1a (the reservation's zone)")
            elif pool.capacity_reservation_id is not None and (platform != "eks" or pool.capacity == "spot"):
                self.add(f"{at}.capacityReservationId", pool.capacity_reservation_id,
                         "a capacity reservation id applies to EKS capacity-block or on-demand pools only",
                         "remove it, or set capacity: capacity-block")
            if pool.availability_zone is not None and platform != "eks":
                self.add(f"{at}.availabilityZone", pool.availability_zone, "availabilityZone is an EKS setting", "remove it")
            if pool.ami_type is not None and platform != "eks":
                self.add(f"{at}.amiType", pool.ami_type, "amiType is an EKS setting", "remove it")
            if pool.mig is not None:
                if not model.supports_mig:
                    self.add(f"{at}.mig", {"profile": pool.mig.profile}, f"{pool.gpu} does not support MIG",
                             "remove mig, or use an A100/H100/H200 pool")
                elif model.mig_profile(pool.mig.profile) is None:
                    self.add(f"{at}.mig.profile", pool.mig.profile, f"not a MIG profile of {pool.gpu}",
                             f"use one of {', '.join(p.name for p in model.mig_profiles)}")
                if platform == "kind" and c.uses_example_driver:
                    self.add(f"{at}.mig", {"profile": pool.mig.profile}, "the dra-example-driver has no MIG devices",
                             "remove mig or use kind.gpuDriver: nvidia")
            for key in pool.labels:
                if key.startswith(RESERVED_LABEL_PREFIXES):
                    self.add(f"{at}.labels.{key}", pool.labels[key], "this label domain is managed by the platform",
                             "use your own prefix, e.g. team: research or example.com/team")

    def _cloud_instance(self, at: str, pool, platform: str) -> None:
        if pool.instance_type is None:
            if catalog.default_instance_type(platform, pool.gpu) is None:
                offered = sorted({t.gpu for t in catalog.INSTANCE_TYPES.values() if t.platform == platform})
                self.add(f"{at}.gpu", pool.gpu, f"no {platform.upper()} {'VM size' if platform == 'aks' else 'instance type'} in the catalog carries {pool.gpu}",
                         f"use one of {', '.join(offered)} on {platform}, or set instanceType to a known size")
            return
        shape = catalog.instance_type(platform, pool.instance_type)
        if shape is None:
            options = [t.name for t in catalog.instance_types_for(platform, pool.gpu)]
            self.add(f"{at}.instanceType", pool.instance_type, f"unknown {platform.upper()} {'VM size' if platform == 'aks' else 'instance type'} for GPU pools",
                     f"use one of {', '.join(options) or '(none for ' + pool.gpu + ')'}")
        elif shape.gpu != pool.gpu:
            options = [t.name for t in catalog.instance_types_for(platform, pool.gpu)]
            self.add(f"{at}.instanceType", pool.instance_type, f"{pool.instance_type} carries {shape.gpu}, not {pool.gpu}",
                     f"set gpu: {shape.gpu}, or use one of {', '.join(options) or '(none)'}")

    # ---------------------------------------------------------------- cloud pools (eks_plan.py, aks_plan.py)
    def cloud_pools(self) -> None:
        c = self.c
        if c.platform == "eks":
            self._eks_pools()
        elif c.platform == "aks":
            self._aks_pools()

    def _eks_pools(self) -> None:
        region = self.c.region
        for i, pool in enumerate(self.c.node_pools):
            at = f"nodePools[{i}]"
            zone = pool.availability_zone
            if zone is not None and region and not (zone.startswith(region) and len(zone) > len(region)):
                self.add(f"{at}.availabilityZone", zone, f"not a zone of the stack's region {region}",
                         f"use a zone of {region}, e.g. {region}a")

    def _aks_pools(self) -> None:
        from components.plans import aks as aks_plan

        c = self.c
        settings = c.cluster.settings()
        if settings.existing_resource_group and not settings.resource_group:
            self.add("cluster.aks.resourceGroup", MISSING, "existingResourceGroup needs the group's name",
                     "add resourceGroup: <name of the existing group>")
        for i, pool in enumerate(c.node_pools):
            at = f"nodePools[{i}]"
            problem = aks_plan.agent_pool_name_problem(pool.name)
            if problem:
                self.add(f"{at}.name", pool.name, problem,
                         "rename the pool so it starts with a letter (AKS pool names: 1-12 lower-case letters and digits)")
            if pool.mig is not None and catalog.gpu_model(pool.gpu).mig_profile(pool.mig.profile) is not None:
                if aks_plan.gpu_instance_profile(pool.gpu, pool.mig.profile) is None:
                    self.add(f"{at}.mig.profile", pool.mig.profile,
                             "AKS partitions MIG pools by slice count only (gpuInstanceProfile MIG1g…MIG7g) into the smallest profile of that size",
                             f"use one of {', '.join(aks_plan.aks_mig_profiles(pool.gpu))}")
        names = [p.name for p in c.node_pools]
        # duplicates of one name are reported by unique(); here only distinct names that collide
        for derived, pools in sorted(aks_plan.colliding_pool_names(dict.fromkeys(names)).items()):
            for name in pools[1:]:
                self.add(f"nodePools[{names.index(name)}].name", name,
                         f"pools {', '.join(pools)} all become AKS agent pool {derived!r} (letters and digits of the name, at most 12)",
                         "rename one of them so the first 12 letters and digits differ")

    # ---------------------------------------------------------------- GPU software
    def software(self) -> None:
        c = self.c
        dra_pools = c.dra_pools
        if c.gpu_operator_enabled:
            op = versions.version_tuple(c.gpu_operator.version)
            if dra_pools and op is not None and op < versions.GPU_OPERATOR_MIN_FOR_DRA:
                self.add("gpuOperator.version", c.gpu_operator.version,
                         "DRA pools need GPU Operator v25.10.0 or newer (the first with CDI on by default)",
                         f"use {versions.GPU_OPERATOR_DEFAULT} or newer")
            if c.uses_example_driver:
                self.add("gpuOperator.enabled", True, "the GPU Operator needs real NVIDIA GPUs; kind with gpuDriver: example has none",
                         "set gpuOperator.enabled: false, or kind.gpuDriver: nvidia on a GPU host")
            if c.platform == "eks" and c.gpu_operator.driver == "operator":
                self.add("gpuOperator.driver", "operator",
                         "the GPU Operator has no driver containers for the EKS NVIDIA AMIs (AL2023/Bottlerocket ship the driver)",
                         "use driver: auto or host")
        elif c.gpu_operator.driver == "operator":
            self.add("gpuOperator.driver", "operator", "driver: operator needs gpuOperator.enabled", "enable the GPU Operator or use driver: host")
        dra = c.dra_driver
        if dra_pools and not dra.enabled:
            # on kind with gpuDriver: example, draDriver.enabled installs the dra-example-driver
            self.add("draDriver.enabled", False, f"pools {', '.join(p.name for p in dra_pools)} run gpuStack: dra and need the DRA driver",
                     "set draDriver.enabled: true, or gpuStack: device-plugin on those pools")
        if not c.uses_example_driver:
            if dra.version not in versions.DRA_DRIVER_RELEASES:
                self.add("draDriver.version", dra.version, "no such NVIDIA DRA driver chart release",
                         f"use one of {', '.join(versions.DRA_DRIVER_RELEASES)} (0.4+ is the kubernetes-sigs chart)")
        for gate in dra.feature_gates:
            if gate not in _feature_gates():
                self.add(f"draDriver.featureGates.{gate}", dra.feature_gates[gate], "unknown NVIDIA DRA driver feature gate",
                         f"use one of {', '.join(_feature_gates())}")
        if dra.extended_resource_bridge:
            if c.uses_example_driver:
                self.add("draDriver.extendedResourceBridge", True, "the bridge maps nvidia.com/gpu to the NVIDIA DRA driver's gpu.nvidia.com class",
                         "use kind.gpuDriver: nvidia, or turn the bridge off")
            elif c.platform != "kind" and c.cluster.minor < 36:
                self.add("draDriver.extendedResourceBridge", True,
                         f"the DRAExtendedResource feature gate is alpha (off) in Kubernetes {c.cluster.kubernetes_version}; managed control planes cannot turn it on",
                         "keep device-plugin pools for legacy namespaces, or use kind, or Kubernetes 1.36+")
            elif dra.version in ("25.3.0", "25.3.1", "25.3.2", "25.8.0", "25.8.1"):
                self.add("draDriver.version", dra.version, "the gpu.nvidia.com class has extendedResourceName only from 25.12.0",
                         "use 25.12.0 or 0.4.x")

    def software_placement(self) -> None:
        """What the GPU software values (components/plans/gpu_software.py) cannot make safe."""
        c = self.c
        for i, pool in enumerate(c.node_pools):
            if pool.ami_type == "BOTTLEROCKET_x86_64_NVIDIA" and pool.gpu_stack == "dra":
                self.add(f"nodePools[{i}].gpuStack", "dra",
                         "the Bottlerocket NVIDIA AMI runs its own NVIDIA device plugin, which cannot share a node with the DRA kubelet plugin",
                         "use amiType AL2023_x86_64_NVIDIA for DRA pools, or gpuStack: device-plugin on this Bottlerocket pool")
        if c.platform == "kind" and c.gpu_operator_enabled and c.gpu_operator.driver == "operator":
            self.add("gpuOperator.driver", "operator", "kind nodes share the host's kernel and driver; the operator cannot install a driver there",
                     "use driver: auto or host (nvkind style: the host has the driver and toolkit)")
        if c.uses_example_driver or not c.dra_driver.enabled:
            return
        from components.plans.gpu_software import chart_has_feature_gates, required_feature_gates

        gates = c.dra_driver.feature_gates
        if gates and not chart_has_feature_gates(c.dra_driver.version):
            self.add("draDriver.featureGates", gates, f"the DRA driver chart {c.dra_driver.version} has no featureGates value (from 25.8.0)",
                     "remove draDriver.featureGates or use DRA driver 25.8.0 or newer")
        for gate, classes in required_feature_gates(c).items():
            if gates.get(gate) is False:
                self.add(f"draDriver.featureGates.{gate}", False, f"device classes {', '.join(classes)} need the {gate} driver feature gate",
                         f"remove draDriver.featureGates.{gate} (it is turned on for you) or drop the sharing settings of those classes")

    # ---------------------------------------------------------------- device classes
    def device_classes(self) -> None:
        c = self.c
        self.unique("deviceClasses", (d.name for d in c.device_classes))
        if c.device_classes and not c.dra_pools:
            self.add("deviceClasses", [d.name for d in c.device_classes], "device classes need a node pool with gpuStack: dra",
                     "add a dra pool or remove the classes")
        if c.device_classes and not c.dra_driver.enabled and not c.uses_example_driver:
            self.add("draDriver.enabled", False, "device classes need the DRA driver", "set draDriver.enabled: true")
        for i, dc in enumerate(c.device_classes):
            at = f"deviceClasses[{i}]"
            if not any((dc.gpu, dc.min_memory, dc.mig_profile, dc.min_compute_capability, dc.selectors)):
                self.add(at, {"name": dc.name}, "a device class must select something",
                         "set gpu, minMemory, migProfile, minComputeCapability or selectors")
            model = catalog.gpu_model(dc.gpu) if dc.gpu else None
            mig = None
            if dc.mig_profile is not None:
                if model is not None:
                    mig = model.mig_profile(dc.mig_profile)
                    if mig is None:
                        self.add(f"{at}.migProfile", dc.mig_profile,
                                 f"not a MIG profile of {dc.gpu}" if model.supports_mig else f"{dc.gpu} does not support MIG",
                                 f"use one of {', '.join(p.name for p in model.mig_profiles)}" if model.supports_mig else "remove migProfile")
                elif dc.mig_profile not in catalog.all_mig_profile_names():
                    self.add(f"{at}.migProfile", dc.mig_profile, "not a MIG profile of any catalog GPU",
                             f"use one of {', '.join(sorted(catalog.all_mig_profile_names()))}")
            if dc.min_memory is not None and model is not None:
                from components.facts.quantity import parse_quantity

                available = parse_quantity(mig.memory) if mig else model.memory
                if parse_quantity(dc.min_memory) > available:
                    self.add(f"{at}.minMemory", dc.min_memory,
                             f"{dc.gpu}{' ' + mig.name if mig else ''} publishes memory {available.text}; this class could never match",
                             f"use at most {available.text} (NVML totals are below the marketing size: '80GB' H100 → 81559Mi)")
            if dc.min_compute_capability is not None and model is not None:
                if _cc(model.compute_capability) < _cc(dc.min_compute_capability):
                    self.add(f"{at}.minComputeCapability", dc.min_compute_capability,
                             f"{dc.gpu} has compute capability {model.compute_capability}; this class could never match",
                             "lower minComputeCapability or change gpu")
            if dc.sharing is not None:
                s = dc.sharing
                if s.strategy == "TimeSlicing" and (s.default_active_thread_percentage is not None or s.default_pinned_device_memory_limit):
                    self.add(f"{at}.sharing", s.model_dump(by_alias=True, exclude_none=True), "MPS settings need strategy: MPS", "remove them or use strategy: MPS")
                if s.strategy == "MPS" and s.interval is not None:
                    self.add(f"{at}.sharing.interval", s.interval, "interval belongs to TimeSlicing", "remove interval or use strategy: TimeSlicing")
                if dc.mig_profile is not None and s.interval is not None:
                    self.add(f"{at}.sharing.interval", s.interval, "MIG devices take MigDeviceConfig, which has no time-slicing interval",
                             "remove interval (MIG sharing supports MPS)")
                if c.uses_example_driver and s.strategy == "MPS":
                    self.add(f"{at}.sharing.strategy", "MPS", "the dra-example-driver supports TimeSlicing, not MPS", "use TimeSlicing on kind")

    # ---------------------------------------------------------------- namespaces
    def namespaces(self) -> None:
        c = self.c
        self.unique("namespaces", (n.name for n in c.namespaces))
        usable = usable_device_classes(c) | self.declared.get("deviceClasses", set())
        has_plugin_pool = bool(c.device_plugin_pools)
        for i, ns in enumerate(c.namespaces):
            at = f"namespaces[{i}]"
            if ns.migration in ("legacy", "dual") and not has_plugin_pool and not c.dra_driver.extended_resource_bridge:
                self.add(f"{at}.migration", ns.migration, f"a {ns.migration} namespace runs nvidia.com/gpu pods, which need a device-plugin pool",
                         "add a node pool with gpuStack: device-plugin, move the namespace to dra-only, or turn on draDriver.extendedResourceBridge")
            if ns.migration in ("dual", "dra-only"):
                if not c.dra_pools:
                    self.add(f"{at}.migration", ns.migration, f"a {ns.migration} namespace uses DRA claims, which need a pool with gpuStack: dra",
                             "add a dra pool, or set migration: legacy")
                elif not c.dra_driver.enabled and not c.uses_example_driver:
                    self.add(f"{at}.migration", ns.migration, f"a {ns.migration} namespace needs the DRA driver", "set draDriver.enabled: true")
            if ns.migration == "legacy" and ns.claim_templates:
                self.add(f"{at}.claimTemplates", [t.name for t in ns.claim_templates], "legacy namespaces use nvidia.com/gpu; claim templates are not allowed",
                         "move the namespace to dual (both) or dra-only")
            quota = ns.quota
            if quota is not None:
                if quota.legacy_gpus and ns.migration == "dra-only":
                    self.add(f"{at}.quota.legacyGpus", quota.legacy_gpus, "dra-only namespaces deny nvidia.com/gpu requests",
                             "set legacyGpus: 0 or move the namespace to dual")
                if quota.devices and ns.migration == "legacy":
                    self.add(f"{at}.quota.devices", quota.devices, "legacy namespaces make no DRA claims", "remove quota.devices")
                for name in quota.devices:
                    if name not in usable:
                        self.add(f"{at}.quota.devices.{name}", quota.devices[name], "no such device class in this stack or its driver chart",
                                 f"use one of {', '.join(sorted(usable)) or '(none)'}")
            self.unique(f"{at}.claimTemplates", (t.name for t in ns.claim_templates))
            for j, tpl in enumerate(ns.claim_templates):
                self._template(f"{at}.claimTemplates[{j}]", ns, tpl, usable)

    def _template(self, at: str, ns, tpl, usable: set[str]) -> None:
        if (tpl.device_class is None) == (tpl.first_available is None):
            self.add(at, {"name": tpl.name}, "a claim template needs exactly one of deviceClass or firstAvailable",
                     "set deviceClass (with count) or list firstAvailable alternatives")
        if tpl.first_available is not None:
            for key, value in (("count", tpl.count), ("allocationMode", tpl.allocation_mode)):
                if value is not None:
                    self.add(f"{at}.{key}", value, f"{key} belongs to each firstAvailable entry", f"move {key} into the alternatives")
            if tpl.selectors:
                self.add(f"{at}.selectors", tpl.selectors, "selectors belong to each firstAvailable entry", "move them into the alternatives")
            if tpl.admin_access:
                self.add(f"{at}.adminAccess", True, "adminAccess cannot be combined with firstAvailable", "use deviceClass")
        self._count(at, tpl.count, tpl.allocation_mode)
        if tpl.device_class is not None and tpl.device_class not in usable:
            self.add(f"{at}.deviceClass", tpl.device_class, "no such device class in this stack or its driver chart",
                     f"use one of {', '.join(sorted(usable)) or '(none)'}")
        if tpl.admin_access and not ns.admin_access:
            self.add(f"{at}.adminAccess", True, "adminAccess claims need the namespace label resource.kubernetes.io/admin-access",
                     f"set namespaces[].adminAccess: true on {ns.name}")
        names: Counter[str] = Counter()
        for k, sub in enumerate(tpl.first_available or []):
            sub_at = f"{at}.firstAvailable[{k}]"
            if sub.device_class not in usable:
                self.add(f"{sub_at}.deviceClass", sub.device_class, "no such device class in this stack or its driver chart",
                         f"use one of {', '.join(sorted(usable)) or '(none)'}")
            self._count(sub_at, sub.count, sub.allocation_mode)
            names[sub.name or sub.device_class.replace(".", "-")] += 1
        for name, seen in names.items():
            if seen > 1:
                self.add(f"{at}.firstAvailable", name, "two alternatives would get the same subrequest name",
                         "give the alternatives distinct `name`s")

    def _count(self, at: str, count, mode) -> None:
        if mode == "All" and count is not None:
            self.add(f"{at}.count", count, "allocationMode: All takes every matching device; count is not allowed", "remove count or use ExactCount")

    # ---------------------------------------------------------------- maintenance
    def maintenance(self) -> None:
        c = self.c
        taints = c.maintenance.device_taints
        self.unique("maintenance.deviceTaints", (t.name for t in taints))
        if taints and c.platform != "kind":
            self.add("maintenance.deviceTaints", [t.name for t in taints],
                     f"DeviceTaintRule is alpha (resource.k8s.io/v1alpha3, gate DRADeviceTaints) and {c.platform} control planes cannot turn alpha gates on",
                     "remove maintenance.deviceTaints (drain the node instead), or use a kind stack")
        elif taints and c.cluster.kubernetes_version not in ("1.34", "1.35"):
            self.add("maintenance.deviceTaints", [t.name for t in taints], "DeviceTaintRule is rendered as v1alpha3 for Kubernetes 1.34 and 1.35 only",
                     'use kubernetesVersion "1.34" or "1.35"')
        for i, taint in enumerate(taints):
            if taint.effect == "None" and c.cluster.kubernetes_version == "1.34":
                self.add(f"maintenance.deviceTaints[{i}].effect", "None", "taint effect None exists from Kubernetes 1.35", "use NoSchedule or NoExecute")


def _feature_gates() -> tuple[str, ...]:
    from components.config.models import DRA_DRIVER_FEATURE_GATES

    return DRA_DRIVER_FEATURE_GATES


def _cc(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _is_cidr(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv4Network(text, strict=False)
    except ValueError:
        return False
    return "/" in text


def consistency_problems(config: StackConfig, declared: dict[str, set[str]] | None = None) -> list[Problem]:
    rules = _Rules(config, declared or {})
    rules.cluster()
    rules.node_pools()
    rules.cloud_pools()
    rules.software()
    rules.software_placement()
    rules.device_classes()
    rules.namespaces()
    rules.maintenance()
    return rules.problems
