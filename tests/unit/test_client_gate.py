"""CephClient's sending rules with a stand-in librados handle (pure: what leaves, not what Ceph answers).

The real behaviour against a dying mgr is tests/ui/test_faults_mgrdown.py; these pin the rules fast.
"""
from __future__ import annotations

import errno
import json
import socket
import threading
import time
from typing import Any

import pytest

from cephtui.ceph.client import CephClient, CephMgrDown, CephTimeout


class Handle:
    """Answers mon_command like librados: (ret, outbuf, outs); records what was sent and overlaps."""

    def __init__(self, answers: dict[str, Any], delay: float = 0.0) -> None:
        self.answers, self.delay = answers, delay
        self.sent: list[str] = []
        self.running: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self._lock = threading.Lock()

    def mon_command(self, cmd: str, inbuf: bytes) -> tuple[int, bytes, str]:
        prefix = json.loads(cmd)["prefix"]
        with self._lock:
            self.sent.append(prefix)
            self.running[prefix] = self.running.get(prefix, 0) + 1
            self.most[prefix] = max(self.most.get(prefix, 0), self.running[prefix])
        time.sleep(self.delay)  # the stand-in's own latency, not test synchronisation
        with self._lock:
            self.running[prefix] -= 1
        answer = self.answers.get(prefix, {})
        if isinstance(answer, int):
            return answer, b"", "timed out" if answer == -errno.ETIMEDOUT else ""
        return 0, json.dumps(answer).encode(), ""


def client_with(handle: Handle) -> CephClient:
    c = CephClient()
    c._handle = handle
    return c


def mgr_dump(available: bool, gid: int, port: int | None = None) -> dict[str, Any]:
    addrs = {"addrvec": [{"type": "v2", "addr": f"127.0.0.1:{port}", "nonce": 1}]} if port else {"addrvec": []}
    return {"available": available, "active_gid": gid, "active_name": "x", "active_addrs": addrs}


def test_one_command_of_each_kind_in_flight() -> None:
    h = Handle({"status": {}, "health": {}}, delay=0.05)
    c = client_with(h)
    threads = [threading.Thread(target=c.mon, args=(p,)) for p in ("status", "status", "status", "health")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert h.sent.count("status") == 3 and h.most["status"] == 1  # queued behind each other, never stacked


def test_after_a_mgr_timeout_no_mgr_command_until_the_mgrmap_changes() -> None:
    h = Handle({"mgr dump": mgr_dump(True, 1), "pg stat": -errno.ETIMEDOUT, "osd df": {}})
    c = client_with(h)
    c.mon("mgr dump")
    with pytest.raises(CephTimeout):
        c.mgr("pg stat")
    with pytest.raises(CephMgrDown, match="pg stat"):
        c.mgr("osd df")
    c.mon("mgr dump")  # same gid: the op left at the mon is still waiting there
    with pytest.raises(CephMgrDown):
        c.mgr("osd df")
    assert h.sent.count("osd df") == 0
    h.answers["mgr dump"] = mgr_dump(True, 2)  # a new active mgr
    c.mon("mgr dump")
    c.mgr("osd df")
    assert h.sent.count("osd df") == 1


def test_no_mgr_command_while_the_mgrmap_has_no_active_mgr() -> None:
    h = Handle({"status": {"mgrmap": {"available": False}}, "pg stat": {}})
    c = client_with(h)
    c.mon("status")
    with pytest.raises(CephMgrDown, match="no active mgr"):
        c.mgr("pg stat")
    assert "pg stat" not in h.sent


def test_a_refused_connection_at_the_active_mgrs_address_holds_mgr_commands() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: the kernel refuses, as for a dead mgr
    h = Handle({"mgr dump": mgr_dump(True, 1, port), "pg stat": {}})
    c = client_with(h)
    c.mon("mgr dump")
    with pytest.raises(CephMgrDown, match="nothing listens"):
        c.mgr("pg stat")
    assert "pg stat" not in h.sent
    with socket.socket() as live:  # a listening mgr: the command goes
        live.bind(("127.0.0.1", 0))
        live.listen()
        h.answers["mgr dump"] = mgr_dump(True, 2, live.getsockname()[1])
        c.mon("mgr dump")
        c.mgr("pg stat")
    assert "pg stat" in h.sent
