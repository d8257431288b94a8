"""Per-address limits key an IPv6 client by its /64, not by each of its addresses.

One IPv6 subscriber holds a /64 (or more) and may send each request from a fresh address of it: keyed on the
full /128, the POST rate, sockets per address, sign-ups, password guesses and tables per client were no
limit at all. The addresses logged stay the real ones.
"""

from __future__ import annotations

import ipaddress
import logging

from forsale.server.app import HttpLimits
from forsale.server.http.common import client_host, client_net, network_of
from forsale.server.ops.badinput import BadInputLog


def test_an_ipv6_client_is_keyed_by_its_64_and_an_ipv4_client_by_its_address() -> None:
    a, b = "2001:db8:1:2::1", "2001:db8:1:2:ffff:eeee:dddd:cccc"
    assert network_of(a) == network_of(b) == "2001:db8:1:2::/64"
    assert ipaddress.ip_address(b) in ipaddress.ip_network(network_of(a))
    assert network_of("2001:db8:1:3::1") != network_of(a)  # the next /64 is someone else
    assert network_of("203.0.113.7") == "203.0.113.7" != network_of("203.0.113.8")
    assert network_of("::ffff:203.0.113.7") == "203.0.113.7"  # IPv4 mapped into IPv6: the same client
    assert network_of("fe80::1%eth0") == "fe80::/64"
    assert network_of("?") == "?" and network_of("testclient") == "testclient"
    scope = {"type": "http", "client": (b, 4321)}
    assert client_net(scope) == "2001:db8:1:2::/64" and client_host(scope) == b  # logged as it is


def test_the_post_rate_of_one_64_is_one_bucket() -> None:
    """A burst of 3 from one /64 spread over many of its addresses is still a burst of 3."""

    async def app(scope: object, receive: object, send: object) -> None:
        raise AssertionError("not reached: refusal() is asked directly")

    limits = HttpLimits(app, rate=0.001, burst=3, bad_input=BadInputLog(logging.getLogger("test")))

    def post(host: str) -> object:
        return limits.refusal({"type": "http", "method": "POST", "headers": [], "client": (host, 1)})

    assert [post(f"2001:db8:1:2::{i}") for i in range(1, 4)] == [None, None, None]
    refused = post("2001:db8:1:2::99")
    assert refused is not None and refused.status_code == 429  # type: ignore[attr-defined]
    assert post("2001:db8:1:3::1") is None  # another /64 has its own bucket
