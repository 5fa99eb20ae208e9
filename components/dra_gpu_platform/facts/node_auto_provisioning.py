"""AKS node auto-provisioning (NAP, Karpenter managed by AKS): the ManagedCluster setting that turns it on, what it
needs and forbids, and the AKSNodeClass and NodePool spellings of a GPU pool. Pure data.

Sources (docs/references.md#aks-node-auto-provisioning): pulumi_azure_native 3.29.0 `containerservice/_enums.py`
(NodeProvisioningMode Auto: "Fixed size Node Pools can still be created, but autoscaling Node Pools cannot be";
NodeProvisioningDefaultNodePools None) and `_inputs.py` ManagedClusterNodeProvisioningProfileArgs;
MicrosoftDocs/azure-aks-docs (fb060ab) `articles/aks/node-auto-provisioning-networking.md:19-33` (Azure CNI Overlay
powered by Cilium is supported), `node-auto-provisioning.md:74-83` (limits), `node-auto-provisioning-node-pools.md`
(nodeClassRef karpenter.azure.com/AKSNodeClass, `karpenter.azure.com/sku-name`); Azure/karpenter-provider-azure
v1.14.2 `pkg/apis/crds/karpenter.azure.com_aksnodeclasses.yaml` (v1beta1 served and stored; `gpu.mode` Driver | None,
from v1.12.0), `pkg/apis/v1beta1/labels.go:38,127` (capacity types on-demand and spot; sku-name).
"""

from __future__ import annotations

MODE_AUTO = "Auto"
DEFAULT_NODE_POOLS_NONE = "None"  # no default Karpenter NodePools: the stack's GPU NodePools are the only ones

NODE_CLASS_API = "karpenter.azure.com/v1beta1"
NODE_CLASS_KIND = "AKSNodeClass"
NODE_CLASS_GROUP = "karpenter.azure.com"
SKU_NAME_LABEL = "karpenter.azure.com/sku-name"
IMAGE_FAMILY = "Ubuntu"  # the image the GPU Operator supports (dra_gpu_platform/facts/aks.py OS_SKU)
# AKSNodeClass gpu.mode: AKS installs the NVIDIA driver (Driver) or leaves it to the GPU Operator (None).
GPU_MODE_DRIVER = "Driver"
GPU_MODE_NONE = "None"
