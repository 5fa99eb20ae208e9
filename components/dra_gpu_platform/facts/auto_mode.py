"""EKS Auto Mode: what a cluster needs to run it (compute, storage and load-balancing capabilities together, the
cluster role's policies), its NodeClass and NodePool spellings, the node role and its access entry, and what its
GPU nodes run by themselves. Pure data.

Sources (docs/references.md#eks-auto-mode): pulumi_aws 7.51.1 `eks/cluster.py` (the Auto Mode example and its NOTE,
`_inputs.py` ClusterComputeConfigArgs), awsdocs/amazon-eks-user-guide (4d52b4d, 2024-12) `automode/create-node-class.adoc`,
`create-node-pool.adoc`, `set-builtin-node-pools.adoc`, botocore eks `CreateAccessEntryRequest.type` ("EC2 (for EKS Auto
Mode)"); the current user guide's auto-accelerated page (the NVIDIA driver and device plugin run on Auto Mode GPU
nodes, not as DaemonSets) and device-management page (its DRA driver from Kubernetes 1.36).
"""

from __future__ import annotations

NODE_CLASS_API = "eks.amazonaws.com/v1"
NODE_CLASS_KIND = "NodeClass"
NODE_CLASS_GROUP = "eks.amazonaws.com"

# Auto Mode needs every capability on together, and bootstrapSelfManagedAddons false (pulumi_aws eks/cluster.py:1037).
CLUSTER_POLICIES = (
    "AmazonEKSClusterPolicy",
    "AmazonEKSComputePolicy",
    "AmazonEKSBlockStoragePolicy",
    "AmazonEKSLoadBalancingPolicy",
    "AmazonEKSNetworkingPolicy",
)
# The cluster role's trust adds sts:TagSession (pulumi_aws eks/cluster.py:1063).
CLUSTER_TRUST_ACTIONS = ("sts:AssumeRole", "sts:TagSession")
NODE_POLICIES = ("AmazonEKSWorkerNodeMinimalPolicy", "AmazonEC2ContainerRegistryPullOnly")
# A NodeClass's own node role needs an access entry of type EC2 with the AmazonEKSAutoNodePolicy access policy
# (create-node-class.adoc:103; botocore CreateAccessEntryRequest.type).
NODE_ACCESS_ENTRY_TYPE = "EC2"
NODE_ACCESS_POLICY = "AmazonEKSAutoNodePolicy"
# No built-in pool (general-purpose, system): the stack's GPU NodePools are the only Auto Mode nodes; the system
# nodes stay a managed node group (set-builtin-node-pools.adoc:14-26: built-in pools have no GPU instances).
BUILT_IN_NODE_POOLS: tuple[str, ...] = ()

# NodeClass fields (create-node-class.adoc:53-99): role, subnetSelectorTerms, securityGroupSelectorTerms (required),
# ephemeralStorage.size (the node's data volume, "1-59000Gi"), tags.
COMPUTE_TYPE_LABEL = "eks.amazonaws.com/compute-type"  # "auto" on Auto Mode nodes (create-node-pool.adoc:80-171)

# What Auto Mode GPU nodes run themselves: the NVIDIA driver and device plugin ("runs automatically and isn't
# visible as a daemon set"), so no GPU Operator, device-plugin or DRA driver chart is installed for them.
HOST_SOFTWARE = "EKS Auto Mode's node runtime: the NVIDIA driver and device plugin (not a DaemonSet)"
