"""A loopback-only network guard for offline replay: `socket.connect` refuses other hosts.

The pytest plugin installs it for the duration of a replayed test (`--subagent-block-network`),
so a harness that still reaches a real model or API fails instead of silently going live.
Unix sockets and loopback addresses (127.0.0.0/8, ::1, `localhost`) stay allowed. Refused
attempts are remembered, so a refusal the harness caught still fails the test. Stdlib only.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any, Final

__all__ = ["NetworkBlockedError", "NetworkGuard", "is_loopback_address"]

_LOCAL_NAMES: Final = frozenset({"localhost", "localhost.", "ip6-localhost"})


class NetworkBlockedError(ConnectionRefusedError):
    """A connection refused by the guard: only loopback is reachable during replay."""


def is_loopback_address(family: int, address: object) -> bool:
    """Whether a `connect` address stays on this machine (Unix socket or loopback IP/name)."""
    if family == getattr(socket, "AF_UNIX", None):
        return True
    if not isinstance(address, tuple) or not address:
        return False
    host = address[0]
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False  # another host name: refused, as it would resolve off this machine


def _target(address: object) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)


class NetworkGuard:
    """Patches `socket.socket.connect`/`connect_ex` between `install()` and `remove()`."""

    def __init__(self, reason: str) -> None:
        self._reason = reason
        self._refused: list[str] = []
        self._saved: dict[str, object] | None = None

    @property
    def refused(self) -> tuple[str, ...]:
        """`host:port` of every refused connection attempt, in order."""
        return tuple(self._refused)

    def _check(self, sock: socket.socket, address: object) -> None:
        if not is_loopback_address(sock.family, address):
            target = _target(address)
            self._refused.append(target)
            raise NetworkBlockedError(
                f"network blocked during subagent cassette replay ({self._reason}): "
                f"connection to {target} refused; only loopback is allowed"
            )

    def install(self) -> None:
        """Start refusing non-loopback connections (idempotent)."""
        if self._saved is not None:
            return
        connect = socket.socket.connect
        connect_ex = socket.socket.connect_ex
        guard = self
        own = vars(socket.socket)

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            guard._check(sock, address)
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            guard._check(sock, address)
            return connect_ex(sock, address)

        self._saved = {name: own[name] for name in ("connect", "connect_ex") if name in own}
        socket.socket.connect = guarded_connect  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign,assignment]

    def remove(self) -> None:
        """Restore the original `connect` and `connect_ex` (idempotent)."""
        if self._saved is None:
            return
        saved, self._saved = self._saved, None
        for name in ("connect", "connect_ex"):
            if name in saved:
                setattr(socket.socket, name, saved[name])
            else:
                delattr(socket.socket, name)  # inherited from _socket.socket again
