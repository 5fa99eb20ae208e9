"""dra_gpu_platform/dra/pod_security.py: Pod Security admission as the API server of each minor runs it. The expected
reasons and details are those of kubernetes/pod-security-admission's own unit tests (policy/check_*_test.go at
v0.36.2); the check sets per minor are those of its registry at v0.34.9, v0.35.6 and v0.37.0-alpha.2."""

from __future__ import annotations

import pytest

from dra_gpu_platform.dra import pod_security as ps
from dra_gpu_platform.plans.namespaces import pod_security_labels

RESTRICTED_35 = ps.LevelVersion("restricted", 35)


def pod(*containers, **spec):
    return {"metadata": {"name": "p"}, "spec": {"containers": list(containers) or [{"name": "main"}], **spec}}


def compliant(**extra):
    """What restricted asks of a pod: non-root, the runtime's seccomp profile, no escalation, no capabilities."""
    container = {
        "name": "main",
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, **extra},
    }
    return pod(container, securityContext={"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}})


def failed(level_version, document, server=35, **options):
    return {v.check: v for v in ps.evaluate(level_version, document, server, **options)}


def test_a_typical_pod_is_refused_by_restricted_with_the_api_servers_words_and_a_fix_per_field():
    decision = ps.admit(pod_security_labels("restricted", 35), pod(), 35)
    assert decision.denied == (
        'violates PodSecurity "restricted:v1.35": allowPrivilegeEscalation != false (container "main" must set '
        'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "main" must set '
        'securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "main" must set '
        'securityContext.runAsNonRoot=true), seccompProfile (pod or container "main" must set '
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )
    fixes = {v.check: v.fixes for v in decision.violations}
    assert fixes["allowPrivilegeEscalation"] == (
        "set spec.containers[0].securityContext.allowPrivilegeEscalation: false",
    )
    assert fixes["capabilities_restricted"] == ('set spec.containers[0].securityContext.capabilities.drop: ["ALL"]',)
    assert fixes["runAsNonRoot"][0].startswith("set spec.securityContext.runAsNonRoot: true")
    assert fixes["seccompProfile_restricted"][0].startswith(
        "set spec.securityContext.seccompProfile.type: RuntimeDefault"
    )
    assert ps.admit(pod_security_labels("restricted", 35), compliant(), 35).denied is None


def test_baseline_admits_the_typical_pod_and_refuses_host_access():
    labels = pod_security_labels("baseline", 36)
    assert ps.admit(labels, pod(), 36).denied is None
    hostile = pod(
        {"name": "a", "securityContext": {"privileged": True}, "ports": [{"containerPort": 80, "hostPort": 80}]},
        hostNetwork=True,
        volumes=[{"name": "root", "hostPath": {"path": "/"}}],
    )
    decision = ps.admit(labels, hostile, 36)
    assert [v.check for v in decision.violations] == ["hostNamespaces", "hostPathVolumes", "hostPorts", "privileged"]
    assert decision.denied.startswith('violates PodSecurity "baseline:v1.36": host namespaces (hostNetwork=true), ')
    assert decision.violations[1].fixes[0].startswith("replace spec.volumes[0].hostPath (root)")


@pytest.mark.parametrize(
    "containers, reason, detail",
    [
        (  # check_hostPorts_test.go
            [
                {"name": "a"},
                {"name": "b", "ports": [{"hostPort": 10}, {"hostPort": 20}]},
                {"name": "c", "ports": [{"hostPort": 30}]},
            ],
            "hostPort",
            'containers "b", "c" use hostPorts 10, 20, 30',
        ),
        (  # check_capabilities_restricted_test.go
            [
                {"name": "a", "securityContext": {"capabilities": {"add": ["FOO", "BAR"]}}},
                {"name": "b", "securityContext": {"capabilities": {"add": ["BAR", "BAZ"]}}},
                {
                    "name": "c",
                    "securityContext": {"capabilities": {"add": ["NET_BIND_SERVICE", "CHOWN"], "drop": ["ALL", "FOO"]}},
                },
            ],
            "unrestricted capabilities",
            'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not '
            'include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
        ),
    ],
)
def test_reasons_and_details_are_upstreams(containers, reason, detail):
    violations = [v for v in ps.evaluate(ps.LevelVersion("restricted"), pod(*containers), 36) if v.reason == reason]
    assert [v.detail for v in violations] == [detail]


def test_selinux_and_volume_details_are_upstreams():
    selinux = pod(
        *[
            {"name": n, "securityContext": {"seLinuxOptions": o}}
            for n, o in [
                ("a", {"type": "container_t"}),
                ("d", {"type": "container_engine_t"}),
                ("e", {"type": "bar"}),
                ("f", {"user": "bar"}),
                ("g", {"role": "baz"}),
            ]
        ],
        securityContext={"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}},
    )
    assert failed(ps.LevelVersion("baseline", 31), selinux)["seLinuxOptions"].detail == (
        'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may '
        "not be set; role may not be set"
    )
    # container_engine_t is allowed from v1.31 only
    assert '"d"' in failed(ps.LevelVersion("baseline", 30), selinux)["seLinuxOptions"].detail
    volumes = pod(
        volumes=[
            {"name": "a1", "emptyDir": {}},
            {"name": "a9", "image": {"reference": "x"}},
            {"name": "b1", "hostPath": {"path": "/"}},
            {"name": "b5", "nfs": {"server": "s", "path": "/"}},
            {"name": "d1"},  # no source: the API server's defaulting makes it an emptyDir
        ]
    )
    violation = failed(ps.LevelVersion("restricted"), volumes, 36)["restrictedVolumes"]
    assert violation.detail == 'volumes "b1", "b5" use restricted volume types "hostPath", "nfs"'
    assert "hostPathVolumes" not in failed(ps.LevelVersion("restricted"), volumes, 36)  # restricted overrides it


def test_each_minors_api_server_runs_its_own_checks():
    assert "procMount_restricted" in ps.check_ids("restricted", 35, 35)
    assert "procMount_restricted" not in ps.check_ids("restricted", 35, 34)  # v0.34 has no such check
    assert "procMount_restricted" not in ps.check_ids("restricted", 34, 36)  # a v1.34 label: the v1.34 checks
    assert "hostProbesAndHostLifecycle" not in ps.check_ids("baseline", 33, 36)
    assert ps.check_ids("privileged", 36, 36) == []
    # a user-namespace pod: exempt from runAsNonRoot from v1.35 on a 1.35+ server; on 1.34 only with the alpha gate
    userns = compliant()
    del userns["spec"]["securityContext"]["runAsNonRoot"]
    userns["spec"]["hostUsers"] = False
    assert failed(RESTRICTED_35, userns, 35) == {}
    assert "runAsNonRoot" in failed(ps.LevelVersion("restricted", 34), userns, 36)
    assert "runAsNonRoot" in failed(ps.LevelVersion("restricted"), userns, 34)
    assert failed(ps.LevelVersion("restricted"), userns, 34, user_namespace_gate=True) == {}
    # the unmasked /proc: baseline lets a user-namespace pod have it from v1.35, restricted never
    unmasked = compliant(procMount="Unmasked")
    unmasked["spec"]["hostUsers"] = False
    assert "procMount" not in failed(ps.LevelVersion("baseline", 35), unmasked, 35)
    assert "procMount_restricted" in failed(RESTRICTED_35, unmasked, 35)
    # sysctls: 1.37 allows two more, on its own API server only
    tuned = compliant()
    tuned["spec"]["securityContext"]["sysctls"] = [{"name": "net.ipv4.tcp_notsent_lowat", "value": "16384"}]
    assert failed(ps.LevelVersion("baseline"), tuned, 37) == {}
    assert failed(ps.LevelVersion("baseline"), tuned, 36)["sysctls"].detail == "net.ipv4.tcp_notsent_lowat"
    assert failed(ps.LevelVersion("baseline", 36), tuned, 37)["sysctls"].reason == "forbidden sysctls"


def test_windows_pods_are_exempt_from_the_linux_only_restricted_checks_from_v1_25():
    windows = pod(os={"name": "windows"}, securityContext={"runAsNonRoot": True})
    assert failed(ps.LevelVersion("restricted", 25), windows, 36) == {}
    assert set(failed(ps.LevelVersion("restricted", 24), windows, 36)) == {
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "seccompProfile_restricted",
    }


def test_namespace_labels_resolve_as_the_api_server_resolves_them():
    assert ps.namespace_policy({}) == ps.DEFAULT_POLICY
    policy = ps.namespace_policy({"pod-security.kubernetes.io/enforce": "baseline"})
    assert str(policy.enforce) == "baseline:latest" and str(policy.warn) == "baseline:latest"  # warn follows
    bad = ps.namespace_policy(
        {"pod-security.kubernetes.io/enforce": "strict", "pod-security.kubernetes.io/enforce-version": "1.35"}
    )
    assert str(bad.enforce) == "restricted:latest" and len(bad.errors) == 2
    assert str(bad.warn) == "privileged:latest"  # an enforce level in error does not carry over


def test_controllers_are_warned_and_pods_refused():
    labels = pod_security_labels("restricted", 35)
    deployment_template = ps.admit(labels, pod(), 35, controller=True, spec_path="spec.template.spec")
    assert deployment_template.denied is None
    assert deployment_template.warnings[0].startswith('would violate PodSecurity "restricted:latest": ')
    refused = ps.admit(labels, pod(), 35, spec_path="spec.template.spec")
    assert refused.violations[0].fixes == (
        "set spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation: false",
    )
    # enforce baseline, warn restricted: admitted with the warning
    mixed = {**pod_security_labels("baseline", 35), "pod-security.kubernetes.io/warn": "restricted"}
    admitted = ps.admit(mixed, pod(), 35)
    assert admitted.denied is None and admitted.warnings and admitted.evaluated
    assert not ps.admit({"kubernetes.io/metadata.name": "x"}, pod(), 35).evaluated  # the default: privileged
