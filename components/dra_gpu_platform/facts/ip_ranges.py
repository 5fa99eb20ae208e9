"""Which address ranges count as "the internet", and when a CIDR allow-list is internet-wide. Pure data and
functions.

An API server allow-list (EKS `publicAccessCidrs`, AKS `authorizedIpRanges`) is judged by what it exposes, in
absolute terms: it is internet-wide when its networks together admit more globally routable addresses than one
IANA allocation unit (IPv4: a /8, 2^24 addresses; IPv6: a /12, 2^116), or when one network is wider than that unit.
So `0.0.0.0/1` + `128.0.0.0/1` is refused as surely as `0.0.0.0/0`, and so are two separate /8s or 91 of them
(41% of IPv4, which a share of the whole space let through), while an office, VPN or NAT list of /16-/32 ranges
passes. Listing a whole cloud provider's egress ranges fails on purpose: it opens the API to every tenant of that
cloud.

Sources: the IANA IPv4 Special-Purpose Address Registry and the IPv4 Multicast Address Space Registry (the ranges
below are not globally routable unicast), the IANA IPv6 Global Unicast Address Assignments (2000::/3) and the IANA
IPv4 Address Space Registry (allocations of at most a /8); docs/references.md#internet-wide-cidrs. Python's
`ipaddress.is_global` is not used: its table differs between CPython patch releases.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

IPv4_NOT_GLOBAL: tuple[str, ...] = (
    "0.0.0.0/8",  # "this network"
    "10.0.0.0/8",  # private
    "100.64.0.0/10",  # shared address space (carrier-grade NAT)
    "127.0.0.0/8",  # loopback
    "169.254.0.0/16",  # link local
    "172.16.0.0/12",  # private
    "192.0.0.0/24",  # IETF protocol assignments
    "192.0.2.0/24",  # documentation (TEST-NET-1)
    "192.168.0.0/16",  # private
    "198.18.0.0/15",  # benchmarking
    "198.51.100.0/24",  # documentation (TEST-NET-2)
    "203.0.113.0/24",  # documentation (TEST-NET-3)
    "224.0.0.0/4",  # multicast
    "240.0.0.0/4",  # reserved, and the limited broadcast address
)
IPv6_GLOBAL_UNICAST = "2000::/3"
# IANA's allocation unit to the registries: shorter prefixes span more than one organisation's allocation, and an
# allow-list admitting more public addresses than one unit exposes the API to many organisations.
WIDEST_PREFIX = {4: 8, 6: 12}
MAX_EXPOSED = {version: 2 ** (bits - WIDEST_PREFIX[version]) for version, bits in ((4, 32), (6, 128))}

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_V4_NOT_GLOBAL = tuple(ipaddress.IPv4Network(n) for n in IPv4_NOT_GLOBAL)
_V6_GLOBAL = ipaddress.IPv6Network(IPv6_GLOBAL_UNICAST)
_V4_GLOBAL_SIZE = 2**32 - sum(n.num_addresses for n in _V4_NOT_GLOBAL)


@dataclass(frozen=True)
class Coverage:
    exposed_v4: int  # globally routable IPv4 unicast addresses the list admits
    exposed_v6: int  # addresses of 2000::/3 it admits
    widest: tuple[str, ...]  # networks wider than one organisation's allocation

    @property
    def share_v4(self) -> float:
        """Of the global IPv4 unicast space (for messages only: the rule is absolute)."""
        return self.exposed_v4 / _V4_GLOBAL_SIZE

    @property
    def internet_wide(self) -> bool:
        return bool(self.widest) or self.exposed_v4 > MAX_EXPOSED[4] or self.exposed_v6 > MAX_EXPOSED[6]

    def describe(self) -> str:
        if self.widest:
            return f"{', '.join(self.widest)} spans more than any one organisation's address allocation"
        if self.exposed_v4 > MAX_EXPOSED[4]:
            return (
                f"together they admit {self.exposed_v4:,} public IPv4 addresses (about "
                f"{self.exposed_v4 / MAX_EXPOSED[4]:.1f} /8s, {self.share_v4:.1%} of the internet), more than one "
                "organisation's allocation (a /8)"
            )
        return (
            f"together they admit {self.exposed_v6 / MAX_EXPOSED[6]:.1f} /12s of public IPv6 addresses, more than "
            "one registry allocation (a /12)"
        )


def _overlap(a: Network, b: Network) -> int:
    """Addresses two networks share (CIDR blocks either nest or are disjoint)."""
    if isinstance(a, ipaddress.IPv4Network) and isinstance(b, ipaddress.IPv4Network):
        return a.num_addresses if a.subnet_of(b) else b.num_addresses if b.subnet_of(a) else 0
    if isinstance(a, ipaddress.IPv6Network) and isinstance(b, ipaddress.IPv6Network):
        return a.num_addresses if a.subnet_of(b) else b.num_addresses if b.subnet_of(a) else 0
    return 0


def coverage(cidrs: Iterable[str]) -> Coverage:
    """How much of the internet a list of CIDRs admits. Entries that are not CIDRs are skipped (the config
    rules report them on their own)."""
    networks: list[Network] = []
    for text in cidrs:
        try:
            networks.append(ipaddress.ip_network(str(text).strip(), strict=False))
        except ValueError:
            continue
    widest = tuple(str(n) for n in networks if n.prefixlen < WIDEST_PREFIX[n.version])
    v4 = list(ipaddress.collapse_addresses(n for n in networks if isinstance(n, ipaddress.IPv4Network)))
    v6 = list(ipaddress.collapse_addresses(n for n in networks if isinstance(n, ipaddress.IPv6Network)))
    global_v4 = sum(n.num_addresses - sum(_overlap(n, s) for s in _V4_NOT_GLOBAL) for n in v4)
    global_v6 = sum(_overlap(n, _V6_GLOBAL) for n in v6)
    return Coverage(global_v4, global_v6, widest)


def internet_wide(cidrs: Iterable[str]) -> bool:
    return coverage(cidrs).internet_wide
