"""Which input changes force a resource to be replaced, per resource type the package emits. Pure data:
no Pulumi imports. Read by `gpuplan diff` (gpuplan/diff/engine.py).

Every entry names its source. Paths are Pulumi input paths (the camelCase names the engine records):
`a.b`, `a[*].b` for every list element, `a["dotted/key"]` for map keys. A changed input path is replace-
triggering when a rule path equals it or contains it (`spec` covers `spec.spec.devices.requests[0]`).

`complete=True`: the source lists every replace-triggering input of the type, so any other changed input
is an in-place update. `complete=False`: the source is only partly known here; inputs listed in
`updatable` are known to update in place and any other changed input is reported as "may replace"
rather than guessed. A type missing from RULES is "may replace" for every change.
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.facts.type_tokens import Upstream

# ----------------------------------------------------------------------------------------------- sources

TF_AWS = "hashicorp/terraform-provider-aws"
TF_AWS_NOTE = "pulumi-aws is bridged from the Terraform AWS provider: a `ForceNew: true` attribute is a replace"
AZN_REPLACEMENT = (
    "pulumi/pulumi-azure-native provider/pkg/gen/replacement.go (forceNewMap) and provider/pkg/provider/diff.go "
    "(every URL path parameter and every forceNew property replaces; swagger `x-ms-mutability` without `update` "
    "is forceNew too)"
)
K8S_FORCE_NEW = (
    "pulumi/pulumi-kubernetes provider forceNewProperties (metadata.name and metadata.namespace always "
    "replace, plus per-kind lists); with server-side apply an API-server `field is immutable` answer on the "
    "preview dry-run is planned as a replace (pulumi/pulumi-kubernetes#988, #3053)"
)


@dataclass(frozen=True)
class TypeRule:
    type: str
    replace: tuple[str, ...]
    source: str
    complete: bool = True
    updatable: tuple[str, ...] = ()
    # Inputs that replace only when the whole block goes away (the provider forces new on removal only).
    replace_if_removed: tuple[str, ...] = ()
    # Outputs the provider recomputes on an in-place update, so dependents see a new (unknown) value;
    # changes to only the inputs in `outputs_kept_when_only` leave them as they are.
    outputs_changed_by_update: tuple[str, ...] = ()
    outputs_kept_when_only: tuple[str, ...] = ()
    # In-place updates that still replace every node one batch at a time (pods drained first).
    rolling_update: tuple[str, ...] = ()
    note: str = ""


# ------------------------------------------------------------------------------------------------- AWS

_AWS: tuple[TypeRule, ...] = (
    TypeRule(
        Upstream.EKS_CLUSTER,
        replace=(
            "name",
            "roleArn",
            "accessConfig.bootstrapClusterCreatorAdminPermissions",
            "bootstrapSelfManagedAddons",
            "kubernetesNetworkConfig.ipFamily",
            "kubernetesNetworkConfig.serviceIpv4Cidr",
            "outpostConfig",
            "remoteNetworkConfig",
        ),
        replace_if_removed=("encryptionConfig",),
        source=f"{TF_AWS} internal/service/eks/cluster.go: ForceNew attributes; CustomizeDiff "
        "ForceNewIfChange(encryption_config) when envelope encryption is removed. " + TF_AWS_NOTE,
        note="vpcConfig.subnetIds, version, logging, upgradePolicy and access mode update in place",
    ),
    TypeRule(
        Upstream.EKS_NODE_GROUP,
        replace=(
            "amiType",
            "capacityType",
            "clusterName",
            "diskSize",
            "instanceTypes",
            "launchTemplate.id",
            "launchTemplate.name",
            "nodeGroupName",
            "nodeGroupNamePrefix",
            "nodeRoleArn",
            "remoteAccess",
            "subnetIds",
        ),
        rolling_update=("launchTemplate.version", "version", "releaseVersion"),
        source=f"{TF_AWS} internal/service/eks/node_group.go: ForceNew attributes; launch_template, version and "
        "release_version changes call UpdateNodegroupVersion, which replaces every node with a new one, "
        "draining its pods first (EKS API reference UpdateNodegroupVersion, NodegroupUpdateConfig). " + TF_AWS_NOTE,
        note="scalingConfig, labels, taints, updateConfig, tags update in place without touching nodes",
    ),
    TypeRule(
        Upstream.EKS_ACCESS_ENTRY,
        replace=("clusterName", "principalArn", "type"),
        source=f"{TF_AWS} internal/service/eks/access_entry.go: ForceNew attributes. " + TF_AWS_NOTE,
    ),
    TypeRule(
        Upstream.EKS_ACCESS_POLICY_ASSOCIATION,
        replace=("accessScope", "clusterName", "policyArn", "principalArn"),
        source=f"{TF_AWS} internal/service/eks/access_policy_association.go: every attribute is ForceNew (no Update)",
    ),
    TypeRule(
        Upstream.EC2_LAUNCH_TEMPLATE,
        replace=("name", "namePrefix"),
        outputs_changed_by_update=("latestVersion", "defaultVersion"),
        outputs_kept_when_only=("name", "namePrefix", "description", "defaultVersion", "updateDefaultVersion"),
        source=f"{TF_AWS} resource aws_launch_template: only name/name_prefix are ForceNew; "
        "CustomizeDiff ComputedIf(latest_version) on any other change (a new template version)",
        note="a changed template is a new version: node groups pointing at latestVersion roll their nodes",
    ),
    TypeRule(
        Upstream.EC2_PLACEMENT_GROUP,
        replace=("name", "partitionCount", "spreadLevel", "strategy"),
        source=f"{TF_AWS} resource aws_placement_group: ForceNew attributes, Update is tags only",
    ),
    TypeRule(
        Upstream.EC2_VPC,
        replace=("cidrBlock", "ipv4IpamPoolId", "ipv4NetmaskLength"),
        source=f"{TF_AWS} resource aws_vpc: ForceNew attributes. " + TF_AWS_NOTE,
    ),
    TypeRule(
        Upstream.EC2_SUBNET,
        replace=("availabilityZone", "availabilityZoneId", "cidrBlock", "ipv6Native", "outpostArn", "vpcId"),
        source=f"{TF_AWS} resource aws_subnet: ForceNew attributes. " + TF_AWS_NOTE,
    ),
    TypeRule(
        Upstream.EC2_ROUTE_TABLE_ASSOCIATION,
        replace=("gatewayId", "subnetId"),
        source=f"{TF_AWS} resource aws_route_table_association: ForceNew attributes; "
        "route_table_id updates through ReplaceRouteTableAssociation",
    ),
    TypeRule(
        Upstream.EC2_NAT_GATEWAY,
        replace=("allocationId", "connectivityType"),
        complete=False,
        updatable=("tags",),
        source=f"{TF_AWS} resource aws_nat_gateway: allocation_id and connectivity_type are "
        "ForceNew (the rest of the schema is not recorded here)",
    ),
    TypeRule(
        Upstream.IAM_ROLE,
        replace=("name", "namePrefix", "path"),
        source=f"{TF_AWS} resource aws_iam_role: ForceNew attributes. " + TF_AWS_NOTE,
    ),
    TypeRule(
        Upstream.IAM_ROLE_POLICY_ATTACHMENT,
        replace=("policyArn", "role"),
        source=f"{TF_AWS} resource aws_iam_role_policy_attachment: every attribute is ForceNew (no Update)",
    ),
    TypeRule(
        Upstream.KMS_KEY,
        replace=("customerMasterKeySpec", "customKeyStoreId", "keyUsage"),
        complete=False,
        updatable=(
            "description",
            "enableKeyRotation",
            "deletionWindowInDays",
            "tags",
            "bypassPolicyLockoutSafetyCheck",
        ),
        source=f"{TF_AWS} resource aws_kms_key: customer_master_key_spec, custom_key_store_id and key_usage "
        "are ForceNew; description, enable_key_rotation, deletion_window_in_days are not",
    ),
    TypeRule(
        Upstream.AUTOSCALING_TAG,
        replace=("autoscalingGroupName", "tag.key"),
        source=f"{TF_AWS} internal/service/autoscaling/group_tag.go: autoscaling_group_name and tag.key are "
        "ForceNew; value and propagate_at_launch update",
    ),
)

# Types the package emits whose replace triggers were not verified: every change is "may replace".
UNVERIFIED_TYPES: dict[str, str] = {
    Upstream.EC2_ROUTE_TABLE: "schema not checked (emitted only when the stack creates its own VPC)",
    Upstream.EC2_INTERNET_GATEWAY: "schema not checked (emitted only when the stack creates its own VPC)",
    Upstream.EC2_EIP: "schema not checked (emitted only when the stack creates its own VPC)",
    # Added with the EKS add-ons, autoscaler and private-endpoint access (issue 15); their Terraform schemas were
    # not read here (the terraform-provider-aws repository was too large to mirror), so every change is reported
    # as "may replace" rather than guessed.
    Upstream.EKS_ADDON: "schema not checked: aws_eks_addon (addon_name, cluster_name are identity)",
    Upstream.EKS_POD_IDENTITY_ASSOCIATION: "schema not checked: aws_eks_pod_identity_association",
    Upstream.IAM_ROLE_POLICY: "schema not checked: aws_iam_role_policy",
    Upstream.VPC_SECURITY_GROUP_INGRESS_RULE: "schema not checked: aws_vpc_security_group_ingress_rule",
    Upstream.CLOUDWATCH_LOG_GROUP: "schema not checked: aws_cloudwatch_log_group (name is identity)",
    Upstream.AUTOSCALING_SCHEDULE: "schema not checked: aws_autoscaling_schedule",
    Upstream.AZURE_ROLE_ASSIGNMENT: "schema not checked: Microsoft.Authorization roleAssignments (scope is a URL path parameter)",
    # Added with the AKS audit logs (issue 28); not read in azure-native's forceNewMap.
    Upstream.AZURE_DIAGNOSTIC_SETTING: "schema not checked: Microsoft.Insights diagnosticSettings (resourceUri and name are URL path parameters)",
    Upstream.AZURE_LOG_ANALYTICS_WORKSPACE: "schema not checked: Microsoft.OperationalInsights workspaces (resourceGroupName and workspaceName are URL path parameters)",
}

# ----------------------------------------------------------------------------------------------- Azure

_AZURE: tuple[TypeRule, ...] = (
    TypeRule(
        Upstream.AKS_MANAGED_CLUSTER,
        replace=(
            "resourceGroupName",
            "resourceName",
            "diskEncryptionSetID",
            "dnsPrefix",
            "fqdnSubdomain",
            "linuxProfile",
            "location",
            "nodeResourceGroup",
            "windowsProfile",
            "networkProfile.serviceCidr",
            "networkProfile.serviceCidrs",
            "networkProfile.dnsServiceIP",
            "networkProfile.networkMode",
            "networkProfile.networkPlugin",
            "networkProfile.networkPluginMode",
            "networkProfile.podCidr",
            "networkProfile.networkDataplane",
            "networkProfile.networkPolicy",
            "networkProfile.outboundType",
        ),
        complete=False,
        updatable=(
            "kubernetesVersion",
            "tags",
            "aadProfile",
            "disableLocalAccounts",
            "autoScalerProfile",
            "apiServerAccessProfile.authorizedIPRanges",
            "oidcIssuerProfile",
            "sku",
        ),
        source=AZN_REPLACEMENT + "; in-place updates: Set-AzAksCluster (learn.microsoft.com powershell az.aks)",
        note="apiServerAccessProfile.enablePrivateCluster is not in either list (a public cluster cannot always be "
        "made private in place): reported as may replace; agentPoolProfiles updates the inline system pool",
    ),
    TypeRule(
        Upstream.AKS_AGENT_POOL,
        replace=(
            "agentPoolName",
            "resourceName",
            "resourceGroupName",
            "gpuInstanceProfile",
            "vmSize",
            "networkProfile.nodePublicIPTags",
        ),
        complete=False,
        updatable=(
            "count",
            "minCount",
            "maxCount",
            "enableAutoScaling",
            "mode",
            "nodeLabels",
            "nodeTaints",
            "tags",
            "orchestratorVersion",
            "upgradeSettings",
        ),
        source=AZN_REPLACEMENT + "; in-place updates: Update-AzAksNodePool (learn.microsoft.com powershell az.aks)",
        note="gpuProfile, availabilityZones, osDiskSizeGB, osSKU and scaleSetPriority are not in either list: "
        "reported as may replace",
    ),
    TypeRule(
        Upstream.AZURE_RESOURCE_GROUP,
        replace=("resourceGroupName", "location"),
        source=AZN_REPLACEMENT,
    ),
)

# ------------------------------------------------------------------------------------------ Kubernetes

KUBERNETES_PROVIDER = Upstream.KUBERNETES_PROVIDER
KUBERNETES_PROVIDER_IDENTIFIER = "clusterIdentifier"
HELM_RELEASE = Upstream.HELM_RELEASE

_KUBERNETES: tuple[TypeRule, ...] = (
    TypeRule(
        KUBERNETES_PROVIDER,
        replace=("kubeconfig", "renderYamlToDirectory"),
        source="pulumi/pulumi-kubernetes provider DiffConfig: replace when the kubeconfig is unknown (computed) or "
        "its active cluster changes, or renderYamlToDirectory changes. pulumi/pulumi "
        "pkg/resource/deploy/step_generator.go providerChanged: a resource whose provider is replaced this "
        "way is replaced too",
        note="kubeconfig is a secret: offline, a change is only seen when the resource it comes from changes. "
        "With clusterIdentifier set, only a change of clusterIdentifier replaces (SDK docstring, "
        "pulumi_kubernetes 4.34.2 Provider)",
    ),
    TypeRule(
        HELM_RELEASE,
        replace=("name", "namespace"),
        source="pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go Diff: forceNewFields .name, .namespace",
        note="chart, version, values and repositoryOpts changes are a helm upgrade in place",
    ),
)

# Kubernetes objects: metadata.name and metadata.namespace always replace; plus these per kind.
KUBERNETES_METADATA_REPLACE = ("metadata.name", "metadata.namespace")
KUBERNETES_KIND_REPLACE: dict[str, tuple[tuple[str, ...], str]] = {
    "ResourceClaimTemplate": (
        ("spec",),
        "kubernetes/kubernetes pkg/apis/resource/validation/validation.go ValidateResourceClaimTemplateUpdate: "
        "ValidateImmutableField(spec)",
    ),
    "ResourceClaim": (
        ("spec",),
        "kubernetes/kubernetes pkg/apis/resource/validation/validation.go: a ResourceClaim spec is immutable",
    ),
    "ConfigMap": (("data", "binaryData"), K8S_FORCE_NEW + " (core/v1 ConfigMap, unless enableConfigMapMutable)"),
    "Secret": (("type", "stringData", "data"), K8S_FORCE_NEW + " (core/v1 Secret)"),
    "ResourceQuota": (("spec.scopes",), K8S_FORCE_NEW + " (core/v1 ResourceQuota)"),
}
# Kinds checked to have a mutable spec (only metadata.name/namespace replace).
KUBERNETES_MUTABLE_KINDS: dict[str, str] = {
    "DeviceClass": "ValidateDeviceClassUpdate validates the new spec, no immutable fields",
    "DeviceTaintRule": "ValidateDeviceTaintRuleUpdate validates the new spec, no immutable fields",
    "Namespace": "only metadata; labels and annotations update in place",
    "ValidatingAdmissionPolicy": "not in pulumi-kubernetes' force-new list",
    "ValidatingAdmissionPolicyBinding": "not in pulumi-kubernetes' force-new list",
    "PrometheusRule": "a CRD object: only the pulumi-kubernetes metadata rule applies",
    "ServiceMonitor": "a CRD object: only the pulumi-kubernetes metadata rule applies",
}

# --------------------------------------------------------------------------------------------- command

_COMMAND: tuple[TypeRule, ...] = (
    TypeRule(
        Upstream.COMMAND,
        replace=("triggers",),
        outputs_changed_by_update=("stdout", "stderr"),
        source="pulumi_command 1.2.1 local/command.py: the SDK registers replace_on_changes=['triggers[*]']; "
        "docstring: without an `update` command, `create` runs again when the inputs change",
        note="an in-place change re-runs `create` (or `update` when one is given); nothing is deleted first",
    ),
)

RULES: dict[str, TypeRule] = {rule.type: rule for rule in (*_AWS, *_AZURE, *_KUBERNETES, *_COMMAND)}


def kubernetes_kind(type_token: str) -> str | None:
    """`kubernetes:core/v1:Namespace` → `Namespace`; None for Helm releases and non-Kubernetes types."""
    if (
        not type_token.startswith("kubernetes:")
        or type_token == HELM_RELEASE
        or type_token.startswith("kubernetes:helm.sh/")
    ):
        return None
    return type_token.rsplit(":", 1)[-1]


def rule_for(type_token: str) -> TypeRule | None:
    """The rule for a resource type, None when unknown (then every change "may replace")."""
    if type_token in RULES:
        return RULES[type_token]
    kind = kubernetes_kind(type_token)
    if kind is None:
        return None
    extra, source = KUBERNETES_KIND_REPLACE.get(kind, ((), KUBERNETES_MUTABLE_KINDS.get(kind, "")))
    return TypeRule(
        type_token,
        replace=(*KUBERNETES_METADATA_REPLACE, *extra),
        source=K8S_FORCE_NEW + (f"; {kind}: {source}" if source else ""),
        # A kind not checked here may still have API-server immutable fields: say so instead of guessing.
        complete=kind in KUBERNETES_KIND_REPLACE or kind in KUBERNETES_MUTABLE_KINDS,
        updatable=() if (kind in KUBERNETES_KIND_REPLACE or kind in KUBERNETES_MUTABLE_KINDS) else ("metadata",),
    )
