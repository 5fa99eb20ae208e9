"""The checks of Pod Security admission (k8s.io/pod-security-admission `policy/check_*.go`) and the registry of each
minor's API server (`policy/registry.go`): every check keeps its upstream ID, ForbiddenReason and ForbiddenDetail and
says per field what to change (`fixes`), with the path of the pod's spec in the object the user wrote. Used through
dra_gpu_platform/dra/pod_security.py. Pure: no Pulumi imports.

Sources: docs/references.md#psa-checks-per-minor (kubernetes/pod-security-admission v0.34.9, v0.35.6, v0.36.2,
v0.37.0-alpha.2).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.facts.pod_security import BASELINE, RESTRICTED


@dataclass(frozen=True)
class Violation:
    """One failed check: its upstream ID, ForbiddenReason and ForbiddenDetail, and per field what to change."""

    check: str
    reason: str
    detail: str
    fixes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"check": self.check, "reason": self.reason, "detail": self.detail, "fix": list(self.fixes)}


@dataclass(frozen=True)
class PodView:
    """The pod as the checks read it, and where its spec sits in the object the user wrote."""

    metadata: Mapping[str, Any]
    spec: Mapping[str, Any]
    path: str  # e.g. spec.template.spec

    def containers(self) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """visitContainers: init containers, containers, ephemeral containers; (path, container)."""
        for key in ("initContainers", "containers", "ephemeralContainers"):
            for i, container in enumerate(self.spec.get(key) or ()):
                if isinstance(container, Mapping):
                    yield f"{self.path}.{key}[{i}]", container

    @property
    def security(self) -> Mapping[str, Any]:
        return _mapping(self.spec.get("securityContext"))

    @property
    def user_namespace(self) -> bool:
        return self.spec.get("hostUsers") is False

    @property
    def windows(self) -> bool:
        return _mapping(self.spec.get("os")).get("name") == "windows"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _context(container: Mapping[str, Any]) -> Mapping[str, Any] | None:
    context = container.get("securityContext")
    return context if isinstance(context, Mapping) else None


def _name(container: Mapping[str, Any]) -> str:
    return str(container.get("name") or "")


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _quote(items: Sequence[str]) -> str:
    """joinQuote."""
    return '"' + '", "'.join(items) + '"' if items else ""


def _go_quote(value: str) -> str:
    """fmt's %q for the annotation values (printable text: JSON's escaping is Go's)."""
    return json.dumps(value, ensure_ascii=False)


def _containers(names: Sequence[str]) -> str:
    return f"{_plural('container', 'containers', len(names))} {_quote(names)}"


Result = Violation | None
CheckFn = Callable[[PodView], Result]


def _setters(pod: PodView, bad: Callable[[Mapping[str, Any]], bool], fix: str) -> tuple[list[str], list[str]]:
    """Where a pod sets a securityContext field it must not, as upstream names them ("pod", then `containers "a",
    "b"`), and a fix per place (`fix` formatted with `{where}`, the securityContext's path)."""
    setters, fixes, containers = [], [], []
    if bad(pod.security):
        setters.append("pod")
        fixes.append(fix.format(where=f"{pod.path}.securityContext"))
    for path, container in pod.containers():
        if bad(_context(container) or {}):
            containers.append(_name(container))
            fixes.append(fix.format(where=f"{path}.securityContext"))
    if containers:
        setters.append(_containers(containers))
    return setters, fixes


def _privileged(pod: PodView) -> Result:
    bad, fixes = [], []
    for path, container in pod.containers():
        if (_context(container) or {}).get("privileged") is True:
            bad.append(_name(container))
            fixes.append(f"remove {path}.securityContext.privileged (or set it to false)")
    if not bad:
        return None
    detail = f"{_containers(bad)} must not set securityContext.privileged=true"
    return Violation("privileged", "privileged", detail, tuple(fixes))


def _host_namespaces(pod: PodView) -> Result:
    found = [key for key in ("hostNetwork", "hostPID", "hostIPC") if pod.spec.get(key) is True]
    if not found:
        return None
    fixes = tuple(f"remove {pod.path}.{key} (or set it to false)" for key in found)
    return Violation("hostNamespaces", "host namespaces", ", ".join(f"{k}=true" for k in found), fixes)


def _host_path_volumes(pod: PodView) -> Result:
    bad, fixes = [], []
    for i, volume in enumerate(pod.spec.get("volumes") or ()):
        if isinstance(volume, Mapping) and volume.get("hostPath") is not None:
            bad.append(str(volume.get("name") or ""))
            fixes.append(
                f"replace {pod.path}.volumes[{i}].hostPath ({volume.get('name')}) with a persistentVolumeClaim, "
                "configMap, secret or emptyDir volume"
            )
    if not bad:
        return None
    detail = f"{_plural('volume', 'volumes', len(bad))} {_quote(bad)}"
    return Violation("hostPathVolumes", "hostPath volumes", detail, tuple(fixes))


def _host_ports(pod: PodView) -> Result:
    bad, ports, fixes = [], set(), []
    for path, container in pod.containers():
        used = False
        for j, port in enumerate(container.get("ports") or ()):
            host_port = _mapping(port).get("hostPort")
            if host_port:
                used = True
                ports.add(str(host_port))
                fixes.append(f"remove {path}.ports[{j}].hostPort ({host_port}); reach the port through a Service")
        if used:
            bad.append(_name(container))
    if not bad:
        return None
    detail = (
        f"{_containers(bad)} {_plural('uses', 'use', len(bad))} {_plural('hostPort', 'hostPorts', len(ports))} "
        f"{', '.join(sorted(ports))}"
    )
    return Violation("hostPorts", "hostPort", detail, tuple(fixes))


def _host_probes(pod: PodView) -> Result:
    bad: set[str] = set()
    hosts: set[str] = set()
    fixes = []
    for path, container in pod.containers():
        handlers = [
            (f"{path}.{p}", _mapping(container.get(p))) for p in ("livenessProbe", "readinessProbe", "startupProbe")
        ]
        lifecycle = _mapping(container.get("lifecycle"))
        handlers += [(f"{path}.lifecycle.{h}", _mapping(lifecycle.get(h))) for h in ("postStart", "preStop")]
        for where, handler in handlers:
            for kind in ("httpGet", "tcpSocket"):
                host = _mapping(handler.get(kind)).get("host")
                if host:
                    bad.add(_name(container))
                    hosts.add(str(host))
                    fixes.append(f"remove {where}.{kind}.host ({host}); probes and hooks reach the pod's own address")
    if not bad:
        return None
    names = sorted(bad)
    detail = (
        f"{_containers(names)} {_plural('uses', 'use', len(names))} "
        f"{_plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} {_quote(sorted(hosts))}"
    )
    return Violation("hostProbesAndHostLifecycle", "probe or lifecycle host", detail, tuple(fixes))


_DEFAULT_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)


def _capabilities_baseline(pod: PodView) -> Result:
    bad, added, fixes = [], set(), []
    for path, container in pod.containers():
        capabilities = (_context(container) or {}).get("capabilities")
        if not isinstance(capabilities, Mapping):
            continue
        extra = [str(c) for c in capabilities.get("add") or () if str(c) not in _DEFAULT_CAPABILITIES]
        if extra:
            bad.append(_name(container))
            added.update(extra)
            fixes.append(f"remove {', '.join(extra)} from {path}.securityContext.capabilities.add")
    if not bad:
        return None
    detail = f"{_containers(bad)} must not include {_quote(sorted(added))} in securityContext.capabilities.add"
    return Violation("capabilities_baseline", "non-default capabilities", detail, tuple(fixes))


_APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"


def _app_armor(pod: PodView) -> Result:
    values: set[str] = set()

    def bad_type(context: Mapping[str, Any]) -> bool:
        profile = context.get("appArmorProfile")
        if isinstance(profile, Mapping) and profile.get("type") not in ("RuntimeDefault", "Localhost"):
            values.add(str(profile.get("type") or ""))
            return True
        return False

    setters, fixes = _setters(pod, bad_type, "set {where}.appArmorProfile.type: RuntimeDefault (or remove it)")
    annotations = []
    for key, value in sorted(_mapping(pod.metadata.get("annotations")).items()):
        value = str(value)
        if key.startswith(_APPARMOR_ANNOTATION) and not (
            not value or value == "runtime/default" or value.startswith("localhost/")
        ):
            annotations.append(f"{key}={_go_quote(value)}")
            fixes.append(f"remove the annotation {key} (or set it to runtime/default)")
    annotations.sort()
    shown = sorted(values) + annotations
    if annotations:
        setters.append(_plural("annotation", "annotations", len(annotations)))
    if not setters:
        return None
    reason = _plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(shown))
    detail = f"{' and '.join(setters)} must not set AppArmor profile type to {_quote(shown)}"
    return Violation("appArmorProfile", reason, detail, tuple(fixes))


def _proc_mount(check: str) -> CheckFn:
    def run(pod: PodView) -> Result:
        bad, kinds, fixes = [], set(), []
        for path, container in pod.containers():
            mount = (_context(container) or {}).get("procMount")
            if mount is not None and mount != "Default":
                bad.append(_name(container))
                kinds.add(str(mount))
                fixes.append(f"remove {path}.securityContext.procMount (or set it to Default)")
        if not bad:
            return None
        detail = f"{_containers(bad)} must not set securityContext.procMount to {_quote(sorted(kinds))}"
        return Violation(check, "procMount", detail, tuple(fixes))

    return run


def _relaxed(check: CheckFn) -> CheckFn:
    """The check, except for pods in a user namespace (`hostUsers: false`)."""
    return lambda pod: None if pod.user_namespace else check(pod)


_SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_TYPES_1_31 = _SELINUX_TYPES | {"container_engine_t"}


def _se_linux(allowed: frozenset[str]) -> CheckFn:
    def run(pod: PodView) -> Result:
        setters, types, fixes = [], set(), []
        user = role = False

        def bad(options: Any, where: str) -> bool:
            nonlocal user, role
            if not isinstance(options, Mapping):
                return False
            found = False
            if str(options.get("type") or "") not in allowed:
                types.add(str(options.get("type") or ""))
                fixes.append(f"remove {where}.seLinuxOptions.type (or use one of {', '.join(sorted(allowed - {''}))})")
                found = True
            for key in ("user", "role"):
                if options.get(key):
                    user, role = (True, role) if key == "user" else (user, True)
                    fixes.append(f"remove {where}.seLinuxOptions.{key}")
                    found = True
            return found

        if bad(pod.security.get("seLinuxOptions"), f"{pod.path}.securityContext"):
            setters.append("pod")
        containers = [
            _name(c)
            for path, c in pod.containers()
            if bad((_context(c) or {}).get("seLinuxOptions"), f"{path}.securityContext")
        ]
        if containers:
            setters.append(_containers(containers))
        if not setters:
            return None
        data = [f"{_plural('type', 'types', len(types))} {_quote(sorted(types))}"] if types else []
        data += ["user may not be set"] if user else []
        data += ["role may not be set"] if role else []
        detail = f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}"
        return Violation("seLinuxOptions", "seLinuxOptions", detail, tuple(fixes))

    return run


_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"
_SECCOMP_TYPES = ("RuntimeDefault", "Localhost")


def _seccomp_annotations(pod: PodView) -> Result:
    """v1.0-v1.18: the alpha annotations."""
    annotations = _mapping(pod.metadata.get("annotations"))
    keys = [_SECCOMP_POD_ANNOTATION] + [_SECCOMP_CONTAINER_ANNOTATION + _name(c) for _, c in pod.containers()]
    forbidden = set()
    for key in keys:
        if key in annotations:
            value = str(annotations[key])
            if not (value in ("runtime/default", "docker/default") or value.startswith("localhost/")):
                forbidden.add(f"{key}={_go_quote(value)}")
    if not forbidden:
        return None
    shown = sorted(forbidden)
    detail = f"forbidden {_plural('annotation', 'annotations', len(shown))} {', '.join(shown)}"
    fixes = tuple(f"set the annotation {item.split('=', 1)[0]} to runtime/default" for item in shown)
    return Violation("seccompProfile_baseline", "seccompProfile", detail, fixes)


def _seccomp(check: str, *, required: bool) -> CheckFn:
    """seccompProfile_baseline (v1.19+): a type set must be RuntimeDefault or Localhost; restricted (required): one must
    be set, on the pod or on every container."""

    def run(pod: PodView) -> Result:
        setters, values, fixes = [], set(), []
        pod_set = False
        profile = pod.security.get("seccompProfile")
        if isinstance(profile, Mapping):
            if profile.get("type") not in _SECCOMP_TYPES:
                setters.append("pod")
                values.add(str(profile.get("type") or ""))
                fixes.append(f"set {pod.path}.securityContext.seccompProfile.type: RuntimeDefault")
            else:
                pod_set = True
        explicit, implicit = [], []
        for path, container in pod.containers():
            own = (_context(container) or {}).get("seccompProfile")
            if isinstance(own, Mapping):
                if own.get("type") not in _SECCOMP_TYPES:
                    explicit.append(_name(container))
                    values.add(str(own.get("type") or ""))
                    fixes.append(f"set {path}.securityContext.seccompProfile.type: RuntimeDefault")
            elif not pod_set:
                implicit.append(_name(container))
        if explicit:
            setters.append(_containers(explicit))
        if setters:
            detail = (
                f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to {_quote(sorted(values))}"
            )
            return Violation(check, "seccompProfile", detail, tuple(fixes))
        if required and implicit:
            detail = f'pod or {_containers(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'
            fix = f"set {pod.path}.securityContext.seccompProfile.type: RuntimeDefault (for every container)"
            return Violation(check, "seccompProfile", detail, (fix,))
        return None

    return run


_SYSCTLS = {
    0: frozenset(
        {
            "kernel.shm_rmid_forced",
            "net.ipv4.ip_local_port_range",
            "net.ipv4.tcp_syncookies",
            "net.ipv4.ping_group_range",
            "net.ipv4.ip_unprivileged_port_start",
        }
    )
}
_SYSCTLS[27] = _SYSCTLS[0] | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS[29] = _SYSCTLS[27] | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
_SYSCTLS[32] = _SYSCTLS[29] | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}
_SYSCTLS[37] = _SYSCTLS[32] | {"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"}


def _sysctls(allowed: frozenset[str]) -> CheckFn:
    def run(pod: PodView) -> Result:
        bad, fixes = [], []
        for i, sysctl in enumerate(pod.security.get("sysctls") or ()):
            name = str(_mapping(sysctl).get("name") or "")
            if name not in allowed:
                bad.append(name)
                fixes.append(f"remove {pod.path}.securityContext.sysctls[{i}] ({name}): not a namespaced, safe sysctl")
        if not bad:
            return None
        return Violation("sysctls", "forbidden sysctls", ", ".join(bad), tuple(fixes))

    return run


def _windows_host_process(pod: PodView) -> Result:
    def host(context: Mapping[str, Any]) -> bool:
        return _mapping(context.get("windowsOptions")).get("hostProcess") is True

    setters, fixes = _setters(pod, host, "remove {where}.windowsOptions.hostProcess")
    if not setters:
        return None
    detail = f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true"
    return Violation("windowsHostProcess", "hostProcess", detail, tuple(fixes))


def _not_windows(check: CheckFn) -> CheckFn:
    """The 1.25 revisions: a pod with spec.os.name windows is exempt."""
    return lambda pod: None if pod.windows else check(pod)


def _allow_privilege_escalation(pod: PodView) -> Result:
    bad, fixes = [], []
    for path, container in pod.containers():
        if (_context(container) or {}).get("allowPrivilegeEscalation") is not False:
            bad.append(_name(container))
            fixes.append(f"set {path}.securityContext.allowPrivilegeEscalation: false")
    if not bad:
        return None
    detail = f"{_containers(bad)} must set securityContext.allowPrivilegeEscalation=false"
    return Violation("allowPrivilegeEscalation", "allowPrivilegeEscalation != false", detail, tuple(fixes))


def _capabilities_restricted(pod: PodView) -> Result:
    missing, adding, added, fixes = [], [], set(), []
    for path, container in pod.containers():
        capabilities = (_context(container) or {}).get("capabilities")
        if not isinstance(capabilities, Mapping):
            missing.append(_name(container))
            fixes.append(f'set {path}.securityContext.capabilities.drop: ["ALL"]')
            continue
        if "ALL" not in [str(c) for c in capabilities.get("drop") or ()]:
            missing.append(_name(container))
            fixes.append(f'add "ALL" to {path}.securityContext.capabilities.drop')
        extra = [str(c) for c in capabilities.get("add") or () if str(c) != "NET_BIND_SERVICE"]
        if extra:
            adding.append(_name(container))
            added.update(extra)
            fixes.append(
                f"remove {', '.join(extra)} from {path}.securityContext.capabilities.add (only NET_BIND_SERVICE may be added)"
            )
    details = []
    if missing:
        details.append(f'{_containers(missing)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(
            f"{_containers(adding)} must not include {_quote(sorted(added))} in securityContext.capabilities.add"
        )
    if not details:
        return None
    return Violation("capabilities_restricted", "unrestricted capabilities", "; ".join(details), tuple(fixes))


_ALLOWED_VOLUMES = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
# In the order restrictedVolumes_1_0 names them.
_RESTRICTED_VOLUMES = (
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
)


def _restricted_volumes(pod: PodView) -> Result:
    bad, kinds, fixes = [], set(), []
    for i, volume in enumerate(pod.spec.get("volumes") or ()):
        volume = _mapping(volume)
        if any(volume.get(key) is not None for key in _ALLOWED_VOLUMES):
            continue
        if not any(value is not None for key, value in volume.items() if key != "name"):
            continue  # no source: the API server's defaulting made it an emptyDir (SetDefaults_Volume)
        kind = next((key for key in _RESTRICTED_VOLUMES if volume.get(key) is not None), "unknown")
        bad.append(str(volume.get("name") or ""))
        kinds.add(kind)
        fixes.append(
            f"replace {pod.path}.volumes[{i}] ({volume.get('name')}, {kind}) with a volume of type "
            f"{', '.join(_ALLOWED_VOLUMES)} (a persistentVolumeClaim or csi volume for storage)"
        )
    if not bad:
        return None
    detail = (
        f"{_plural('volume', 'volumes', len(bad))} {_quote(bad)} {_plural('uses', 'use', len(bad))} "
        f"{_plural('restricted volume type', 'restricted volume types', len(kinds))} {_quote(sorted(kinds))}"
    )
    return Violation("restrictedVolumes", "restricted volume types", detail, tuple(fixes))


def _run_as_non_root(pod: PodView) -> Result:
    setters, fixes = [], []
    pod_value = pod.security.get("runAsNonRoot")
    if pod_value is False:
        setters.append("pod")
        fixes.append(f"set {pod.path}.securityContext.runAsNonRoot: true")
    explicit, implicit = [], []
    for path, container in pod.containers():
        value = (_context(container) or {}).get("runAsNonRoot")
        if value is not None:
            if value is False:
                explicit.append(_name(container))
                fixes.append(f"set {path}.securityContext.runAsNonRoot: true")
        elif pod_value is not True:
            implicit.append(_name(container))
    if explicit:
        setters.append(_containers(explicit))
    if setters:
        detail = f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false"
        return Violation("runAsNonRoot", "runAsNonRoot != true", detail, tuple(fixes))
    if implicit:
        detail = f"pod or {_containers(implicit)} must set securityContext.runAsNonRoot=true"
        fix = (
            f"set {pod.path}.securityContext.runAsNonRoot: true (for every container; an image that runs as root "
            f"then also needs {pod.path}.securityContext.runAsUser, e.g. 1000)"
        )
        return Violation("runAsNonRoot", "runAsNonRoot != true", detail, (fix,))
    return None


def _root(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == 0


def _run_as_user(pod: PodView) -> Result:
    setters, fixes = _setters(
        pod, lambda context: _root(context.get("runAsUser")), "set {where}.runAsUser to a non-zero UID, e.g. 1000"
    )
    if not setters:
        return None
    return Violation("runAsUser", "runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0", tuple(fixes))


@dataclass(frozen=True)
class Versioned:
    minimum: int  # the first v1.<minor> this revision applies to
    run: CheckFn
    overrides: tuple[str, ...] = ()  # baseline checks it replaces in restricted


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    versions: tuple[Versioned, ...]

    def at(self, version: int) -> Versioned | None:
        found = [v for v in self.versions if v.minimum <= version]
        return found[-1] if found else None


def registry(server: int, user_namespace_gate: bool = False) -> tuple[Check, ...]:
    """The checks the API server of 1.<server> registers (its pod-security-admission module's policy package)."""
    proc_mount = _proc_mount("procMount")
    run_as_non_root, run_as_user = _run_as_non_root, _run_as_user
    proc_mount_versions: tuple[Versioned, ...]
    non_root_versions: tuple[Versioned, ...]
    user_versions: tuple[Versioned, ...]
    if server >= 35:
        proc_mount_versions = (Versioned(0, proc_mount), Versioned(35, _relaxed(proc_mount)))
        non_root_versions = (Versioned(0, run_as_non_root), Versioned(35, _relaxed(run_as_non_root)))
        user_versions = (Versioned(23, run_as_user), Versioned(35, _relaxed(run_as_user)))
    else:  # v0.34: one revision each, relaxed for user-namespace pods only with the alpha gate
        relax = _relaxed if user_namespace_gate else (lambda check: check)
        proc_mount_versions = (Versioned(0, relax(proc_mount)),)
        non_root_versions = (Versioned(0, relax(run_as_non_root)),)
        user_versions = (Versioned(23, relax(run_as_user)),)
    sysctls = [Versioned(m, _sysctls(s)) for m, s in sorted(_SYSCTLS.items()) if m != 37 or server >= 37]
    checks = [
        Check("appArmorProfile", BASELINE, (Versioned(0, _app_armor),)),
        Check("capabilities_baseline", BASELINE, (Versioned(0, _capabilities_baseline),)),
        Check("hostNamespaces", BASELINE, (Versioned(0, _host_namespaces),)),
        Check("hostPathVolumes", BASELINE, (Versioned(0, _host_path_volumes),)),
        Check("hostPorts", BASELINE, (Versioned(0, _host_ports),)),
        Check("hostProbesAndHostLifecycle", BASELINE, (Versioned(34, _host_probes),)),
        Check("privileged", BASELINE, (Versioned(0, _privileged),)),
        Check("procMount", BASELINE, proc_mount_versions),
        Check(
            "seLinuxOptions",
            BASELINE,
            (Versioned(0, _se_linux(_SELINUX_TYPES)), Versioned(31, _se_linux(_SELINUX_TYPES_1_31))),
        ),
        Check(
            "seccompProfile_baseline",
            BASELINE,
            (
                Versioned(0, _seccomp_annotations),
                Versioned(19, _seccomp("seccompProfile_baseline", required=False)),
            ),
        ),
        Check("sysctls", BASELINE, tuple(sysctls)),
        Check("windowsHostProcess", BASELINE, (Versioned(0, _windows_host_process),)),
        Check(
            "allowPrivilegeEscalation",
            RESTRICTED,
            (Versioned(8, _allow_privilege_escalation), Versioned(25, _not_windows(_allow_privilege_escalation))),
        ),
        Check(
            "capabilities_restricted",
            RESTRICTED,
            (
                Versioned(22, _capabilities_restricted, ("capabilities_baseline",)),
                Versioned(25, _not_windows(_capabilities_restricted), ("capabilities_baseline",)),
            ),
        ),
        Check("restrictedVolumes", RESTRICTED, (Versioned(0, _restricted_volumes, ("hostPathVolumes",)),)),
        Check("runAsNonRoot", RESTRICTED, non_root_versions),
        Check("runAsUser", RESTRICTED, user_versions),
        Check(
            "seccompProfile_restricted",
            RESTRICTED,
            (
                Versioned(19, _seccomp("seccompProfile_restricted", required=True), ("seccompProfile_baseline",)),
                Versioned(
                    25,
                    _not_windows(_seccomp("seccompProfile_restricted", required=True)),
                    ("seccompProfile_baseline",),
                ),
            ),
        ),
    ]
    if server >= 35:
        restricted_proc_mount = Versioned(35, _proc_mount("procMount_restricted"), ("procMount",))
        checks.append(Check("procMount_restricted", RESTRICTED, (restricted_proc_mount,)))
    return tuple(checks)
