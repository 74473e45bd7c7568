"""CephClient's sending rules with a stand-in librados handle (pure: what leaves, not what Ceph answers).

The real behaviour against a dying mgr is tests/ui/test_faults_mgrdown.py and tests/ui/test_faults_kills.py;
these pin the rules fast.
"""
from __future__ import annotations

import errno
import json
import socket
import threading
import time
from typing import Any

import pytest

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephMgrDown, CephTimeout
from cephtui.ceph.mgrline import MgrLine

HANG = "hang"  # an answer: the mgr never answers until the test sets Handle.release (a dead mgr)
EACCES_MGR = "access denied: does your client key have mgr caps?"


class Handle:
    """Answers mon_command and mgr_command like librados: (ret, outbuf, outs); records what was sent, by
    which path (`via_mon`, `via_mgr`), and overlaps. A HANG answer blocks mgr_command as a dead mgr does
    on a connection with no librados timeout, until `release` is set."""

    def __init__(self, answers: dict[str, Any], delay: float = 0.0) -> None:
        self.answers, self.delay = answers, delay
        self.sent: list[str] = []
        self.via_mon: list[str] = []
        self.via_mgr: list[str] = []
        self.running: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self.release = threading.Event()
        self._lock = threading.Lock()

    def mgr_command(self, cmd: str, inbuf: bytes) -> tuple[int, bytes, str]:
        prefix = json.loads(cmd)["prefix"]
        with self._lock:
            self.via_mgr.append(prefix)
        answer = self.answers.get(prefix, {})
        if answer == HANG:
            self.release.wait(30)
            return 0, b"{}", ""
        if answer == EACCES_MGR:
            return -errno.EACCES, b"", EACCES_MGR
        return self.mon_command(cmd, inbuf, path=None)

    def mon_command(self, cmd: str, inbuf: bytes, path: list[str] | None = ...) -> tuple[int, bytes, str]:  # type: ignore[assignment]
        prefix = json.loads(cmd)["prefix"]
        with self._lock:
            if path is ...:
                self.via_mon.append(prefix)
            self.sent.append(prefix)
            self.running[prefix] = self.running.get(prefix, 0) + 1
            self.most[prefix] = max(self.most.get(prefix, 0), self.running[prefix])
        time.sleep(self.delay)  # the stand-in's own latency, not test synchronisation
        with self._lock:
            self.running[prefix] -= 1
        answer = self.answers.get(prefix, {})
        if answer in (EACCES_MGR, HANG):
            return 0, b"{}", ""  # the mon authorises by mon caps; a mgr it forwards to answers
        if isinstance(answer, int):
            return answer, b"", "timed out" if answer == -errno.ETIMEDOUT else ""
        return 0, json.dumps(answer).encode(), ""


def client_with(handle: Handle, op_timeout: int = 5) -> CephClient:
    c = CephClient(ConnectionSpec(op_timeout=op_timeout))
    c._handle = handle
    c._mgr_line = MgrLine(lambda: handle)
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


def test_mgr_commands_go_to_the_mgr_never_through_the_mon() -> None:
    h = Handle({"mgr dump": mgr_dump(True, 1), "pg stat": {"num_pgs": 8}, "osd df": {}})
    c = client_with(h)
    c.mon("mgr dump")
    assert c.mgr("pg stat") == {"num_pgs": 8}
    c.mon_raw("osd df")  # the command table (or MGR_PREFIXES) routes it, whoever calls
    assert h.via_mgr == ["pg stat", "osd df"] and "pg stat" not in h.via_mon and "osd df" not in h.via_mon


def test_a_key_without_mgr_caps_is_served_through_the_mon() -> None:
    h = Handle({"pg stat": EACCES_MGR})
    c = client_with(h)
    assert c.mgr("pg stat") == {}
    assert c.mgr("pg stat") == {}
    assert h.via_mgr == ["pg stat"] and h.via_mon.count("pg stat") == 2  # asked the mgr once


def test_a_key_that_may_not_read_the_mgrmap_is_served_through_the_mon() -> None:
    h = Handle({"mgr stat": -errno.EACCES, "pg stat": HANG})  # MgrClient would never find the mgr
    c = client_with(h)
    assert c.mgr("pg stat") == {}
    assert h.via_mgr == [] and h.via_mon.count("mgr stat") == 1 and h.via_mon.count("pg stat") == 1


def test_after_a_mgr_timeout_no_mgr_command_until_the_mgrmap_changes() -> None:
    h = Handle({"mgr dump": mgr_dump(True, 1), "pg stat": HANG, "osd df": {}})
    c = client_with(h, op_timeout=1)
    c.mon("mgr dump")
    with pytest.raises(CephTimeout, match="waits at this client") as caught:
        c.mgr("pg stat")
    carried = caught.value.carried
    assert carried is not None and carried.prefix == "pg stat" and not carried.done.is_set()
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
    # The held `pg stat` is still carried: a second one waits for it, then is refused, never stacked.
    with pytest.raises(CephTimeout, match="earlier `pg stat`"):
        c.mgr("pg stat")
    assert h.via_mgr.count("pg stat") == 1 and "pg stat" not in h.via_mon
    h.release.set()  # the mgr answers at last
    assert carried.done.wait(10) and carried.result == (0, b"{}", "")
    assert c.mgr("pg stat") == {}


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


def test_an_operation_answered_late_by_the_mgr_is_audited_twice(tmp_path: Any) -> None:
    from cephtui.ceph.ops.core import AuditLog, Operation, run

    h = Handle({"osd ok-to-stop": HANG})
    c = client_with(h, op_timeout=1)
    audit = AuditLog(tmp_path / "audit.log")
    op = Operation("ok-to-stop osd.1", "osd ok-to-stop", (("ids", ["1"]),), "ceph osd ok-to-stop 1")
    with pytest.raises(CephTimeout):
        run(c, op, audit)
    assert [e["ok"] for e in audit.session] == [False]
    assert "waits at this client" in audit.session[0]["message"]
    h.release.set()
    deadline = time.monotonic() + 10
    while len(audit.session) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # polled condition: the carrier thread appends the late answer
    assert [e["ok"] for e in audit.session] == [False, True]
    assert "once a mgr was active" in audit.session[1]["message"]
    assert len((tmp_path / "audit.log").read_text().splitlines()) == 2
