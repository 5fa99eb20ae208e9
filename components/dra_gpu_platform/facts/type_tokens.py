"""Type tokens: the `type` part of every URN this package creates or reads. Identity: changing one of our own
tokens replaces every resource under it, so it never changes without an alias (and a comment saying why).

`Component` holds our ComponentResources' tokens; each resource class sets its `TYPE` from here, and the
deploy model, `gpuplan diff` and the policy pack compare against these attributes, never retyped strings.
`Upstream` holds the provider SDKs' tokens we compare against (tests/facts/test_type_tokens.py checks each one
is the string the installed SDK registers).
"""

from __future__ import annotations

PREFIX = "dra-gpu-platform"


class Component:
    GPU_PLATFORM = f"{PREFIX}:index:GpuPlatform"
    EKS_CLUSTER = f"{PREFIX}:cluster:EksCluster"
    EKS_NETWORK = f"{PREFIX}:cluster:EksNetwork"
    EKS_GPU_NODE_POOL = f"{PREFIX}:cluster:EksGpuNodePool"
    AKS_CLUSTER = f"{PREFIX}:cluster:AksCluster"
    AKS_GPU_NODE_POOL = f"{PREFIX}:cluster:AksGpuPool"  # the class is AksGpuNodePool; the token keeps URNs stable
    EKS_ADDONS = f"{PREFIX}:cluster:EksAddons"
    CLUSTER_AUTOSCALER = f"{PREFIX}:cluster:ClusterAutoscaler"
    KARPENTER = f"{PREFIX}:cluster:Karpenter"
    EKS_AUTO_MODE_POOLS = f"{PREFIX}:cluster:EksAutoModePools"
    AKS_NODE_AUTO_PROVISIONING = f"{PREFIX}:cluster:AksNodeAutoProvisioning"
    EFA_DEVICE_PLUGIN = f"{PREFIX}:cluster:EfaDevicePlugin"
    KIND_CLUSTER = f"{PREFIX}:cluster:KindCluster"
    EXISTING_CLUSTER = f"{PREFIX}:cluster:ExistingCluster"
    GPU_OPERATOR = f"{PREFIX}:software:GpuOperator"
    DRA_DRIVER = f"{PREFIX}:software:DraDriver"
    EXAMPLE_DRA_DRIVER = f"{PREFIX}:software:ExampleDraDriver"
    DEVICE_CLASSES = f"{PREFIX}:dra:DeviceClasses"
    MAINTENANCE = f"{PREFIX}:dra:Maintenance"
    TENANT_NAMESPACE = f"{PREFIX}:tenancy:TenantNamespace"
    DRA_ONLY_GUARD = f"{PREFIX}:tenancy:DraOnlyGuard"
    GPU_TOLERATION_POLICY = f"{PREFIX}:tenancy:GpuTolerationPolicy"
    TENANCY_GUARDS = f"{PREFIX}:tenancy:TenancyGuards"
    MONITORING = f"{PREFIX}:monitoring:Monitoring"

    GPU_NODE_POOLS = frozenset({EKS_GPU_NODE_POOL, AKS_GPU_NODE_POOL})


class Upstream:
    STACK = "pulumi:pulumi:Stack"
    KUBERNETES_PROVIDER = "pulumi:providers:kubernetes"
    COMMAND = "command:local:Command"
    # AWS (pulumi-aws)
    EKS_CLUSTER = "aws:eks/cluster:Cluster"
    EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
    EKS_ACCESS_ENTRY = "aws:eks/accessEntry:AccessEntry"
    EKS_ACCESS_POLICY_ASSOCIATION = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
    EKS_ADDON = "aws:eks/addon:Addon"
    EKS_POD_IDENTITY_ASSOCIATION = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
    EC2_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
    EC2_PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
    EC2_VPC = "aws:ec2/vpc:Vpc"
    EC2_SUBNET = "aws:ec2/subnet:Subnet"
    EC2_ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
    EC2_ROUTE_TABLE_ASSOCIATION = "aws:ec2/routeTableAssociation:RouteTableAssociation"
    EC2_NAT_GATEWAY = "aws:ec2/natGateway:NatGateway"
    EC2_INTERNET_GATEWAY = "aws:ec2/internetGateway:InternetGateway"
    EC2_EIP = "aws:ec2/eip:Eip"
    IAM_ROLE = "aws:iam/role:Role"
    IAM_ROLE_POLICY_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
    IAM_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
    VPC_SECURITY_GROUP_INGRESS_RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
    CLOUDWATCH_LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
    AUTOSCALING_SCHEDULE = "aws:autoscaling/schedule:Schedule"
    KMS_KEY = "aws:kms/key:Key"
    AUTOSCALING_TAG = "aws:autoscaling/tag:Tag"
    IAM_POLICY = "aws:iam/policy:Policy"
    SQS_QUEUE = "aws:sqs/queue:Queue"
    SQS_QUEUE_POLICY = "aws:sqs/queuePolicy:QueuePolicy"
    EVENT_RULE = "aws:cloudwatch/eventRule:EventRule"
    EVENT_TARGET = "aws:cloudwatch/eventTarget:EventTarget"
    # Azure (pulumi-azure-native)
    AKS_MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
    AKS_AGENT_POOL = "azure-native:containerservice:AgentPool"
    AZURE_RESOURCE_GROUP = "azure-native:resources:ResourceGroup"
    AZURE_ROLE_ASSIGNMENT = "azure-native:authorization:RoleAssignment"
    AZURE_DIAGNOSTIC_SETTING = "azure-native:monitor:DiagnosticSetting"
    AZURE_LOG_ANALYTICS_WORKSPACE = "azure-native:operationalinsights:Workspace"
    # Kubernetes (pulumi-kubernetes)
    HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
    HELM_CHART_V4 = "kubernetes:helm.sh/v4:Chart"
    NAMESPACE = "kubernetes:core/v1:Namespace"
    NODE_PATCH = "kubernetes:core/v1:NodePatch"
    RESOURCE_QUOTA = "kubernetes:core/v1:ResourceQuota"
    NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
    DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
    RESOURCE_CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
    RESOURCE_CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"
    DEVICE_TAINT_RULE = "kubernetes:resource.k8s.io/v1alpha3:DeviceTaintRule"  # Kubernetes 1.34/1.35
    DEVICE_TAINT_RULE_V1BETA2 = "kubernetes:resource.k8s.io/v1beta2:DeviceTaintRule"  # 1.36
    DEVICE_TAINT_RULE_V1 = "kubernetes:resource.k8s.io/v1:DeviceTaintRule"  # 1.37
    # Custom resources (apiextensions.CustomResource registers `kubernetes:<apiVersion>:<kind>`)
    KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
    EC2_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
    AUTO_MODE_NODE_CLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"
    AKS_NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"

    NODE_POOLS = frozenset({EKS_NODE_GROUP, AKS_AGENT_POOL})
    DEVICE_TAINT_RULES = frozenset({DEVICE_TAINT_RULE, DEVICE_TAINT_RULE_V1BETA2, DEVICE_TAINT_RULE_V1})
    CLUSTERS = frozenset({EKS_CLUSTER, AKS_MANAGED_CLUSTER})
