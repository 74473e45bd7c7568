"""The mgr gate: which mgr commands may leave (pure logic; the sandbox test is tests/ui/test_faults_mgrdown.py)."""
from __future__ import annotations

import threading

from cephtui.ceph.mgrgate import NO_MGR, MgrGate, active_addr


def gate_running(prefix: str, gid: int, gate: MgrGate | None = None) -> MgrGate:
    """A gate that knows the active mgr (`gid`) and has let `prefix` go: that command is outstanding."""
    g = gate or MgrGate()
    g.observe(True, gid)
    assert g.begin(prefix, 0) is None
    return g


def waiter_gets(g: MgrGate, timed_out: bool) -> list[str | None]:
    """What `osd df`, waiting in another thread for the outstanding `pg stat`, gets once that ends."""
    got: list[str | None] = []
    waiter = threading.Thread(target=lambda: got.append(g.begin("osd df", 30)))
    waiter.start()
    g.end("pg stat", timed_out=timed_out)  # the waiter gets the slot as soon as it is free
    waiter.join(30)
    return got


def test_no_mgr_command_without_an_active_mgr() -> None:
    g = MgrGate()
    assert g.begin("pg stat", 0) is None  # nothing known yet: allowed
    g.end("pg stat", timed_out=False)
    g.observe(False)
    assert g.begin("pg stat", 0) == NO_MGR
    g.observe(True, 4154)
    assert g.begin("pg stat", 0) is None


def test_after_a_timeout_none_until_the_active_mgr_changes() -> None:
    g = gate_running("pg stat", 4154)
    g.end("pg stat", timed_out=True)
    # The mgrmap still says the same mgr is active (the mon has not noticed yet): held.
    g.observe(True)  # from `status`/`mgr stat`: no gid, the known one stands
    g.observe(True, 4154)
    why = g.begin("osd df", 0)
    assert why is not None and "pg stat" in why and why.startswith("mgr down")
    g.observe(False)  # the mon noticed
    assert g.begin("osd df", 0) == NO_MGR
    g.observe(True, 4200)  # a mgr is back: the op left at the mon is answered now
    assert g.begin("osd df", 0) is None


def test_a_restart_within_the_grace_clears_by_its_new_gid() -> None:
    g = gate_running("pg stat", 1)
    g.end("pg stat", timed_out=True)
    assert g.begin("pg stat", 0) is not None
    g.observe(True, 2)
    assert g.begin("pg stat", 0) is None


def test_one_mgr_command_outstanding_at_a_time() -> None:
    g = gate_running("pg stat", 1)
    busy = g.begin("osd df", 0.05)
    assert busy is not None and "pg stat" in busy
    got = waiter_gets(g, timed_out=False)
    assert got == [None] and g.outstanding == "osd df"


def test_a_waiter_is_refused_when_the_running_command_times_out() -> None:
    g = gate_running("pg stat", 1)
    got = waiter_gets(g, timed_out=True)
    assert got and got[0] is not None and got[0].startswith("mgr down")


def test_active_addr_prefers_v2() -> None:
    dump = {"active_addrs": {"addrvec": [{"type": "v1", "addr": "10.0.0.1:6801"},
                                         {"type": "v2", "addr": "10.0.0.1:6800"}]}}
    assert active_addr(dump) == ("10.0.0.1", 6800, True)
    assert active_addr({"active_addrs": {"addrvec": [{"type": "v2", "addr": "[::1]:6800"}]}}) == ("::1", 6800, True)
    assert active_addr({"active_addrs": {"addrvec": [{"type": "v1", "addr": "10.0.0.3:6801"}]}}) == \
        ("10.0.0.3", 6801, False)
    assert active_addr({"active_addr": "10.0.0.2:6800/1234"}) == ("10.0.0.2", 6800, False)
    assert active_addr({"active_addrs": {"addrvec": []}, "active_addr": ":/0"}) is None
    assert active_addr({}) is None


def test_a_mgr_still_listed_after_the_beacon_grace_gets_one_more_command() -> None:
    """Alive but slow (a big `pg dump` timed out): held only until the mon would have noticed a death."""
    import cephtui.ceph.mgrgate as mg
    now = [1000.0]
    g = gate_running("pg dump", 7, MgrGate(clock=lambda: now[0]))
    g.end("pg dump", timed_out=True)
    now[0] += mg.RETRY_AFTER - 1
    assert g.begin("pg dump", 0) is not None
    now[0] += 2
    g.observe(True, 7)
    assert g.begin("pg dump", 0) is None
