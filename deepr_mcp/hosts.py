"""Which bind or URL hosts stay on this machine: the one loopback test config and auth share."""

from __future__ import annotations

import ipaddress


def is_loopback_host(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``: the binds that need no auth token."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
