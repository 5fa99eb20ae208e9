"""GPU pools as NodePools of a provisioner that launches nodes for pending pods: Karpenter (karpenter.py), EKS Auto
Mode (auto_mode.py) and AKS node auto-provisioning (node_auto_provisioning.py), with the NodePool they share
(node_pools.py). Pure: no Pulumi imports."""
