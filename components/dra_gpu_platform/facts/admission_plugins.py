"""Admission plugins a platform's API server runs beyond the defaults, where fit must know them. Pure data.

ExtendedResourceToleration (kubernetes `plugin/pkg/admission/extendedresourcetoleration`) is not on by default
upstream; EKS lists it among the admission controllers of every platform version (awsdocs amazon-eks-user-guide
`clusters/platform-versions.adoc`, read up to 1.32; later minors assumed unchanged), AKS shipped it (Azure/AKS#1449,
closed as shipped); kind runs kubeadm's defaults (NodeRestriction only added), and an existing cluster's set is
unknown, so fit assumes it off there and says so. docs/references.md#extended-resource-toleration.
"""

from __future__ import annotations

EXTENDED_RESOURCE_TOLERATION = {"eks": True, "aks": True, "kind": False, "existing": False}
