"""The replay network guard: loopback connects, everything else is refused and remembered."""

from __future__ import annotations

import socket
import threading

import pytest
from cassette_provider.pytest.network_guard import (
    NetworkBlockedError,
    NetworkGuard,
    is_loopback_address,
)


def test_loopback_and_unix_addresses_are_allowed_others_are_not() -> None:
    assert is_loopback_address(socket.AF_INET, ("127.0.0.1", 80))
    assert is_loopback_address(socket.AF_INET, ("127.8.9.1", 80))
    assert is_loopback_address(socket.AF_INET6, ("::1", 80, 0, 0))
    assert is_loopback_address(socket.AF_INET, ("localhost", 80))
    assert is_loopback_address(socket.AF_UNIX, "/tmp/x.sock")
    assert not is_loopback_address(socket.AF_INET, ("93.184.216.34", 443))
    assert not is_loopback_address(socket.AF_INET, ("api.example.com", 443))
    assert not is_loopback_address(socket.AF_INET6, ("2001:db8::1", 443, 0, 0))


def test_the_guard_refuses_a_remote_connect_allows_loopback_and_restores_socket() -> None:
    original = socket.socket.connect
    own_before = "connect" in vars(socket.socket)  # another guard may have left its restore
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    accepted = threading.Event()

    def accept() -> None:
        conn, _ = server.accept()
        conn.close()
        accepted.set()

    thread = threading.Thread(target=accept)
    thread.start()
    guard = NetworkGuard("--subagent-block-network")
    guard.install()
    try:
        with (
            socket.socket() as remote,
            pytest.raises(NetworkBlockedError, match=r"192\.0\.2\.1:443"),
        ):
            remote.connect(("192.0.2.1", 443))
        with socket.socket() as remote, pytest.raises(NetworkBlockedError):
            remote.connect_ex(("192.0.2.1", 80))
        with socket.socket() as local:
            local.connect(server.getsockname())
    finally:
        guard.remove()
    thread.join()
    server.close()
    assert accepted.is_set()
    assert guard.refused == ("192.0.2.1:443", "192.0.2.1:80")
    assert socket.socket.connect is original
    assert ("connect" in vars(socket.socket)) == own_before
