"""Recorded Azure answers for the AKS preflight and the Retail Prices read, served through azure-core's transport.

The SDK clients run their whole pipeline (ARM policies, paging, deserialisation into the SDK's typed models); only
the bottom of azure-core's `RequestsTransport` is replaced: its requests session gets an adapter that answers from
recorded bodies instead of the network, and refuses any URL it has no answer for. The bodies have the shapes of
the REST API references (docs/references.md#azure-resource-skus-api, docs/references.md#azure-vm-quota-tiers,
docs/references.md#azure-retail-prices-response); the figures in them are test values, not facts about Azure.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests
from azure.core.credentials import AccessToken
from azure.core.pipeline.transport import RequestsTransport
from requests.adapters import BaseAdapter

from dra_gpu_platform.facts import catalog

SUBSCRIPTION = "00000000-0000-0000-0000-0000000000aa"
ARM = "https://management.azure.com"

# A route answers (status, JSON body) for one request; the adapter picks the first route whose path matches.
Answer = tuple[int, Any]


@dataclass
class RecordedAdapter(BaseAdapter):
    """requests' transport adapter, answering from recorded bodies (path → answer or function of the request)."""

    routes: dict[str, Answer | Callable[[requests.PreparedRequest], Answer]]
    asked: list[requests.PreparedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__()

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        self.asked.append(request)
        path = urlsplit(request.url or "").path
        route = self.routes.get(path)
        if route is None:
            raise AssertionError(f"no recorded answer for {request.method} {request.url}")
        status, body = route(request) if callable(route) else route
        response = requests.Response()
        response.status_code = status
        response.reason = "OK" if status < 400 else "Error"
        response.headers["Content-Type"] = "application/json; charset=utf-8"
        response.raw = io.BytesIO(json.dumps(body).encode())
        response.url = request.url or ""
        response.request = request
        return response

    def close(self) -> None:
        pass

    def query(self, index: int = -1) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.asked[index].url or "").query)


def recorded_transport(routes: dict[str, Any]) -> tuple[RequestsTransport, RecordedAdapter]:
    adapter = RecordedAdapter(routes)
    session = requests.Session()
    session.mount("https://", adapter)
    return RequestsTransport(session=session, session_owner=False), adapter


class FakeCredential:
    """A token credential that never signs in anywhere (the recorded transport checks nothing)."""

    def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return AccessToken("recorded", int(time.time()) + 3600)


def compute_client(routes: dict[str, Any]) -> tuple[Any, RecordedAdapter]:
    from azure.mgmt.compute import ComputeManagementClient

    transport, adapter = recorded_transport(routes)
    return ComputeManagementClient(FakeCredential(), SUBSCRIPTION, transport=transport), adapter


# ---------------------------------------------------------------------------------------------------
# bodies


def skus_path() -> str:
    return f"/subscriptions/{SUBSCRIPTION}/providers/Microsoft.Compute/skus"


def usages_path(location: str) -> str:
    return f"/subscriptions/{SUBSCRIPTION}/providers/Microsoft.Compute/locations/{location}/usages"


def vm_sku(
    name: str,
    location: str,
    *,
    family: str | None = None,
    vcpus: int | None = None,
    zones: Iterable[str] = ("1", "2", "3"),
    restrictions: Iterable[dict[str, Any]] = (),
) -> dict[str, Any]:
    """A `virtualMachines` resource SKU as ResourceSkus_List returns it (2021-07-01); family and vCPUs default to
    the catalog's."""
    shape = catalog.instance_type("aks", name)
    family = family if family is not None else (shape.quota_family if shape else "standardDSv5Family")
    vcpus = vcpus if vcpus is not None else (shape.vcpus if shape else 4)
    return {
        "resourceType": "virtualMachines",
        "name": name,
        "tier": "Standard",
        "size": name.removeprefix("Standard_"),
        "family": family,
        "locations": [location],
        "locationInfo": [{"location": location, "zones": list(zones), "zoneDetails": []}],
        "capabilities": [
            {"name": "vCPUs", "value": str(vcpus)},
            {"name": "MemoryGB", "value": str(shape.memory_gib if shape else 16)},
            {"name": "vCPUsAvailable", "value": str(vcpus)},
            {"name": "LowPriorityCapable", "value": "True"},
        ],
        "restrictions": list(restrictions),
    }


def restriction(kind: str, location: str, zones: Iterable[str] = (), reason: str = "NotAvailableForSubscription"):
    info: dict[str, Any] = {"locations": [location]}
    if kind == "Zone":
        info["zones"] = list(zones)
    return {"type": kind, "values": [location], "restrictionInfo": info, "reasonCode": reason}


def skus_body(*skus: dict[str, Any]) -> dict[str, Any]:
    return {"value": list(skus)}


def usage(name: str, limit: int, current: int = 0, localized: str | None = None) -> dict[str, Any]:
    """One Usage_List entry (unit Count, currentValue, limit, name {value, localizedValue})."""
    return {
        "unit": "Count",
        "currentValue": current,
        "limit": limit,
        "name": {"value": name, "localizedValue": localized or name},
    }


def usages_body(limits: dict[str, int], current: dict[str, int] | None = None) -> dict[str, Any]:
    localized = {"cores": "Total Regional vCPUs", "lowPriorityCores": "Total Regional Low-priority vCPUs"}
    current = current or {}
    return {
        "value": [usage(n, limit, current.get(n, 0), localized.get(n, f"{n} vCPUs")) for n, limit in limits.items()]
    }


def arm_error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def retail_item(vm_size: str, location: str, price: float, **changes: Any) -> dict[str, Any]:
    """One Retail Prices item (the fields of the API reference's example response)."""
    meter = vm_size.removeprefix("Standard_").replace("_", " ")
    base = {
        "currencyCode": "USD",
        "tierMinimumUnits": 0.0,
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": location,
        "location": "US East",
        "effectiveStartDate": "2026-05-01T00:00:00Z",
        "meterId": "00000000-0000-0000-0000-00000000beef",
        "meterName": meter,
        "productId": "DZH318Z0BQ4B",
        "skuId": "DZH318Z0BQ4B/00G1",
        "availabilityId": None,
        "productName": "Virtual Machines NCasT4_v3 Series",
        "skuName": meter,
        "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8",
        "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour",
        "type": "Consumption",
        "isPrimaryMeterRegion": True,
        "armSkuName": vm_size,
    }
    return {**base, **changes}


def retail_page(*items: dict[str, Any], next_link: str | None = None) -> dict[str, Any]:
    return {
        "BillingCurrency": "USD",
        "CustomerEntityId": "Default",
        "CustomerEntityType": "Retail",
        "Items": list(items),
        "NextPageLink": next_link,
        "Count": len(items),
    }
