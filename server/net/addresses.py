"""Who a client is to the limits: the address it is counted by, and whether that is exempt.

::

    addresses = Addresses(trusted_proxies=networks("10.0.0.0/8"))
    addresses.client_address("10.0.0.5", ["203.0.113.7"])   # "203.0.113.7"
    addresses.client_address("2001:db8:1:2:3:4:5:6")        # "2001:db8:1:2::/64"

The client address is the TCP peer, or, when the peer is a trusted proxy
(``SIMON_TRUSTED_PROXIES``), the nearest address in ``X-Forwarded-For`` that is not one.
IPv6 clients are counted by their /64 (one host usually holds the whole prefix). An address
inside an exempt network (``SIMON_LIMITS_EXEMPT``) is held to no address's budget.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from .limiters import MAX_ADDRESSES

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def networks(text: str) -> tuple[Network, ...]:
    """``"127.0.0.1, 10.0.0.0/8"``: comma-separated addresses or CIDR networks."""
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
    )


def parse_address(text: str | None) -> Address | None:
    """An IP address (a scope such as ``%eth0`` dropped), or None for anything else."""
    if not text:
        return None
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


class Addresses:
    """The proxies whose ``X-Forwarded-For`` is believed, and the networks exempt from the
    addresses' budgets (whether an address is exempt is worked out once: it is asked on
    every frame, and parsing an address costs more than the rest of a frame's budget)."""

    def __init__(
        self, trusted_proxies: tuple[Network, ...] = (), exempt: tuple[Network, ...] = ()
    ) -> None:
        self.trusted_proxies = trusted_proxies
        self.exempt_networks = exempt
        self._exempt: dict[str, bool] = {}

    def client_address(self, peer: str | None, forwarded: Iterable[str] = ()) -> str:
        """The address a client is counted by (see the module's docstring)."""
        address = parse_address(peer)
        if address is None:
            return peer or "unknown"
        if self.trusted(address):
            hops = [hop.strip() for value in forwarded for hop in value.split(",")]
            for hop in reversed(hops):
                parsed = parse_address(hop)
                if parsed is None:
                    break  # not written by a proxy of ours: stop at the last one we trust
                address = parsed
                if not self.trusted(parsed):
                    break
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return str(address.ipv4_mapped)
            return str(ipaddress.IPv6Network((address, 64), strict=False))
        return str(address)

    def trusted_peer(self, peer: str | None) -> bool:
        """Whether the TCP peer ``peer`` is a trusted proxy (its forwarded headers believed)."""
        address = parse_address(peer)
        return address is not None and self.trusted(address)

    def trusted(self, address: Address) -> bool:
        return any(address in network for network in self.trusted_proxies)

    def exempt(self, address: str) -> bool:
        """Whether the client address ``address`` is held to no address's budget."""
        if not self.exempt_networks:
            return False
        known = self._exempt.get(address)
        if known is None:
            if len(self._exempt) >= MAX_ADDRESSES:
                self._exempt.clear()
            known = self._exempt[address] = self._exempt_network(address)
        return known

    def _exempt_network(self, address: str) -> bool:
        try:
            network = ipaddress.ip_network(address, strict=False)
        except ValueError:
            return False
        return any(
            network.version == ex.version and network.subnet_of(ex)  # type: ignore[arg-type]
            for ex in self.exempt_networks
        )


__all__ = ["Address", "Addresses", "Network", "networks", "parse_address"]
