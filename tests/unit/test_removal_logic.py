"""The removal workflow's safety logic, without a cluster (the real runs are in tests/ui/test_removal.py)."""
from __future__ import annotations

import errno
import threading
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph import ops
from cephtui.ceph.errors import CephError
from cephtui.ceph.workflows.removal import Removal, unfinished
from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.removal_stop import stop_command
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.ui.screens.removal import planned_commands


class ScriptedCluster:
    """Answers the few commands the remove step asks; records every mutating command sent."""

    def __init__(self, safe: bool) -> None:
        self.safe = safe
        self.sent: list[dict[str, Any]] = []

    def mon(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd dump":
            return {"osds": [{"osd": 4, "up": 0, "in": 0, "state": ["exists"]}]}
        raise AssertionError(f"unexpected {prefix}")

    def mgr(self, prefix: str, **args: Any) -> Any:
        assert prefix == "osd safe-to-destroy"
        if self.safe:
            return {"safe_to_destroy": [4], "active": [], "missing_stats": [], "stored_pgs": []}
        raise CephError(16, "OSD(s) 4 have 12 pgs currently mapped to them.", prefix)

    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        self.sent.append({"prefix": prefix, **args})
        return b"", "purged osd.4"


def test_a_resumed_workflow_asks_safe_to_destroy_again(tmp_path: Path) -> None:
    state = Removal(osds=[4], step="remove")  # as read back from the state file after a restart
    cluster = ScriptedCluster(safe=False)
    engine = RemovalEngine(cluster, state, WorkflowStore(tmp_path))
    engine.tick()
    assert cluster.sent == [] and state.step == "wait_safe" and "no longer safe" in state.waiting_for
    # Once Ceph says yes, the -actual command goes out with the flag, never --force.
    cluster.safe = True
    state.step = "remove"
    engine.tick()
    assert cluster.sent == [{"prefix": "osd purge-actual", "id": 4, "yes_i_really_mean_it": True}]
    assert state.step == "backfill" and state.removed == [4]


def test_state_survives_a_restart(tmp_path: Path) -> None:
    store = WorkflowStore(tmp_path)
    r = Removal(osds=[1, 2], replace=True, drain_mode="crush0", stop_template="ssh {host} stop {id}")
    r.step, r.original = "wait_safe", {"1": {"in": True, "crush_weight": 1.8}}
    store.save("removal", r.id, r.to_json())
    back = unfinished(store)
    assert len(back) == 1 and back[0] == r
    r.status = "done"
    store.save("removal", r.id, r.to_json())
    assert unfinished(store) == []


def test_destroying_needs_a_yes_from_safe_to_destroy_in_this_run() -> None:
    with pytest.raises(ValueError, match="not been confirmed safe"):
        ops.osd_remove(3, replace=False, safe_verified=False)
    assert ops.osd_remove(3, True, True).cli == "ceph osd destroy-actual 3 --yes-i-really-mean-it"


def test_stop_command_and_plan() -> None:
    assert stop_command("ssh {host} systemctl stop ceph-osd@{id}", 7, "node3") == \
        "ssh node3 systemctl stop ceph-osd@7"
    assert stop_command("", 7, "some-other-host") is None  # not here: the operator stops it
    plan = planned_commands(Removal(osds=[5], replace=True, stop_template="stop {id}"))
    assert plan[1] == "ceph osd out 5" and plan[3] == "stop 5"
    assert any("destroy-actual 5" in c for c in plan) and any("ceph-volume lvm create --osd-id 5" in c for c in plan)
    crush0 = planned_commands(Removal(osds=[5], drain_mode="crush0"))
    assert "ceph osd crush reweight osd.5 0" in crush0 and not any("ceph-volume" in c for c in crush0)


class PreflightCluster:
    """Three OSDs in, one pool of size 2, and a PG table the test chooses."""

    def __init__(self, pgs: list[dict[str, Any]]) -> None:
        self.pgs = pgs

    def mon(self, prefix: str, **args: Any) -> Any:
        assert prefix == "osd dump"
        return {"flags_set": [], "nearfull_ratio": 0.85, "pools": [{"pool_name": "rbd", "size": 2}],
                "osds": [{"osd": i, "in": 1, "up": 1} for i in range(3)]}

    def mgr(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd df":
            return {"nodes": [{"id": i, "kb": 1000, "kb_used": 10} for i in range(3)]}
        if prefix == "osd ok-to-stop":
            return {"ok_to_stop": True}
        if prefix == "pg dump":
            return {"pg_stats": self.pgs}
        raise AssertionError(prefix)

    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        assert prefix == "osd getmap"
        return b"not an osdmap", ""  # osdmaptool refuses it: the stats check says nothing


def _pgs_check(pgs: list[dict[str, Any]]) -> tuple[str, str]:
    from cephtui.ceph.workflows.removal_checks import preflight

    c = next(c for c in preflight(PreflightCluster(pgs), [2]) if c.name == "pgs")
    return c.level, c.detail


def test_preflight_tells_settling_from_trouble() -> None:
    clean = {"pgid": "1.0", "state": "active+clean", "acting": [0, 1]}
    assert _pgs_check([clean])[0] == "ok"
    # Right after an OSD died elsewhere, PGs peer for seconds: wait, do not block.
    assert _pgs_check([clean, {"pgid": "1.1", "state": "peering", "acting": [0, 1]}])[0] == "wait"
    # Down with the OSD being removed: what the workflow is for, reported, not blocking.
    level, detail = _pgs_check([{"pgid": "1.2", "state": "stale+active+clean", "acting": [2]}])
    assert level == "warn" and "down with these OSDs" in detail
    # Inactive elsewhere: the cluster is already in trouble.
    assert _pgs_check([{"pgid": "1.3", "state": "down", "acting": [0]}])[0] == "block"
    assert _pgs_check([{"pgid": "1.4", "state": "incomplete", "acting": [1]}])[0] == "block"
    # PGs on no OSD: unknown with acting [] (a new pool's for ~2 s, seen on a sandbox; or a pool whose rule
    # finds no OSD). Not "down with these OSDs" (the empty set is a subset of any): a wait, which the engine
    # turns into a blocker after SETTLE_TIMEOUT.
    level, detail = _pgs_check([{"pgid": "4.0", "state": "unknown", "acting": []}])
    assert level == "wait" and "not yet created" in detail and "down with these" not in detail


# ------------------------------------------------------------------ issue 16: stop command, preflight, gate

def test_the_stop_template_is_checked_before_anything_runs() -> None:
    from cephtui.ceph.workflows.removal import StopCommandError
    from cephtui.ceph.workflows.removal_stop import check_stop_template, stop_argv

    with pytest.raises(StopCommandError, match=r"\{hots\}"):
        check_stop_template("ssh {hots} systemctl stop ceph-osd@{id}", False)
    with pytest.raises(StopCommandError, match="shell syntax"):
        check_stop_template("ssh node1 true && systemctl stop ceph-osd@{id}", False)
    with pytest.raises(StopCommandError, match="must name the OSD"):
        check_stop_template("systemctl stop ceph.target", False)
    check_stop_template("ssh {host} true && systemctl stop ceph-osd@{id} | logger", True)  # asked for a shell
    # An unknown host is refused, never turned into the literal word HOST.
    with pytest.raises(StopCommandError, match="host is unknown"):
        stop_argv("ssh {host} systemctl stop ceph-osd@{id}", False, 3, "")
    assert stop_argv("ssh {host} systemctl stop ceph-osd@{id}", False, 3, "node 1") == \
        ["ssh", "node 1", "systemctl", "stop", "ceph-osd@3"]
    # Through the shell the values are quoted; the operator's own syntax stays.
    assert stop_argv("ssh {host} x && kill {name}", True, 3, "a;b") == ["/bin/sh", "-c", "ssh 'a;b' x && kill osd.3"]


class StopCluster:
    """The stop step's view: osd.3 up until it is stopped, the cluster clean."""

    def __init__(self) -> None:
        self.up = True

    def mon(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd dump":
            return {"epoch": 9, "osds": [{"osd": 3, "up": int(self.up), "in": 0, "state": ["exists"]}]}
        if prefix == "status":
            return {"pgmap": {"pgs_by_state": [{"state_name": "active+clean", "count": 8}]}}
        if prefix == "osd metadata":
            return {"hostname": "node1"}
        if prefix == "orch status":
            raise CephError(2, "No orchestrator configured", prefix)
        raise AssertionError(prefix)


def test_a_failing_stop_command_says_what_failed_and_a_resume_can_change_it(tmp_path: Path) -> None:
    ran: list[list[str]] = []

    def shell(argv: list[str]) -> tuple[int, str]:
        ran.append(argv)
        return (1, "") if argv[0] == "/bin/false" else (0, "")

    cluster = StopCluster()
    state = Removal(osds=[3], step="stop", stop_template="/bin/false {id}")
    engine = RemovalEngine(cluster, state, WorkflowStore(tmp_path), shell=shell)
    engine.tick()
    assert state.status == "failed" and ran == [["/bin/false", "3"]]
    assert "`/bin/false 3` exited with status 1 and printed nothing" in state.waiting_for
    assert "errno" not in state.waiting_for
    # Restarted with a correct command: the resume takes it, notes the change, and runs only that.
    engine = RemovalEngine(cluster, Removal.from_json(state.to_json()), WorkflowStore(tmp_path), shell=shell)
    engine.resume("/bin/true {id}", False)
    engine.tick()
    assert ran[-1] == ["/bin/true", "3"] and engine.state.stopped == [3] and engine.state.status == "running"
    assert any("stop method changed" in e["text"] for e in engine.state.log)


def test_the_stop_is_refused_when_the_cluster_is_no_longer_clean(tmp_path: Path) -> None:
    class Unclean(StopCluster):
        def mon(self, prefix: str, **args: Any) -> Any:
            if prefix == "status":
                return {"pgmap": {"pgs_by_state": [{"state_name": "active+clean", "count": 6},
                                                   {"state_name": "peering", "count": 2}]}}
            return super().mon(prefix, **args)

    ran: list[list[str]] = []
    state = Removal(osds=[3], step="stop", stop_template="/bin/true {id}")
    RemovalEngine(Unclean(), state, WorkflowStore(tmp_path), shell=lambda a: (ran.append(a), (0, ""))[1]).tick()
    assert ran == [] and state.step == "wait_safe" and "2 peering" in state.waiting_for


def test_the_gate_must_hold_over_the_stats_period() -> None:
    from cephtui.ceph.workflows.removal import GateReading

    now = [100.0]
    engine = RemovalEngine(StopCluster(), Removal(osds=[3]), clock=lambda: now[0])
    engine._stats_period = 5.0
    yes = GateReading(ok=True, waits=[])
    assert not engine._gate_held(yes)  # a single yes proves nothing
    now[0] += 3
    assert not engine._gate_held(yes)
    now[0] += 1
    assert not engine._gate_held(GateReading(ok=False, waits=["peering"]))  # a no in between starts over
    now[0] += 1
    assert not engine._gate_held(yes)
    now[0] += 5.5
    assert engine._gate_held(yes)


class HoldCluster:
    """osd.2 (not being removed) is down and in; the drain's status read waits until the test lets it answer."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.answer = threading.Event()

    def mon(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd dump":
            return {"epoch": 20, "osds": [{"osd": 1, "up": 1, "in": 0}, {"osd": 2, "up": 0, "in": 1}]}
        if prefix == "status":  # a slow cluster call, with held_by already set by this step
            self.asked.set()
            assert self.answer.wait(10)
            return {"pgmap": {"pgs_by_state": [{"state_name": "active+undersized+degraded", "count": 8}],
                              "degraded_objects": 40}}
        if prefix == "config get":
            raise CephError(errno.ENOENT, "unknown", prefix)
        raise AssertionError(prefix)

    def mgr(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd df":
            return {"nodes": [{"id": 1, "pgs": 0}]}
        if prefix == "osd safe-to-destroy":
            raise CephError(errno.EBUSY, "OSD(s) 1 have 3 pgs currently mapped to them.", prefix)
        raise AssertionError(prefix)


def test_readers_see_the_state_as_last_saved_never_a_step_half_done(tmp_path: Path) -> None:
    """The removal screen read the live state while a tick in its worker changed it: held_by set, then seconds
    of cluster calls before the hold's words, and the screen said HOLDING over the previous wait's words. Readers
    get `published`, a whole copy taken at each save."""
    before = "waiting before the stop: 3 PG(s) still on osd.1 (osd df)"
    state = Removal(osds=[1], replace=True, step="wait_safe", waiting_for=before)
    cluster = HoldCluster()
    engine = RemovalEngine(cluster, state, WorkflowStore(tmp_path))
    assert engine.published == state and engine.published is not state  # a copy from the start
    tick = threading.Thread(target=engine.tick)
    tick.start()
    try:
        assert cluster.asked.wait(10)
        assert state.held_by == [2] and state.waiting_for == before  # the live state, torn mid-step
        shown = engine.published
        assert shown.held_by == [] and shown.waiting_for == before  # what readers get: the last save, whole
    finally:
        cluster.answer.set()
        tick.join(10)
    shown = engine.published
    assert shown.held_by == [2] and shown.waiting_for.startswith("HOLDING: osd.2 went down")
    assert shown == state and shown.log is not state.log  # a deep copy: the next step's notes do not leak in
    state.note("the next step")
    assert engine.published.log == shown.log != state.log


def test_moving_pgs_with_every_copy_warn_and_degraded_ones_block() -> None:
    """The balancer's upmap remaps a few PGs at random moments on a default cluster (a CI run's removal was
    refused by it): every copy is in place, so the plan says so and goes on; a PG short of a copy, or one that
    cannot finish moving, still blocks."""
    clean = {"pgid": "1.0", "state": "active+clean", "acting": [0, 1]}
    for state in ("active+remapped+backfilling", "active+remapped+backfill_wait", "active+clean+remapped"):
        level, detail = _pgs_check([clean, {"pgid": "1.3", "state": state, "acting": [0, 1]}])
        assert level == "warn" and "1 PG(s) are being moved with every copy in place" in detail, (state, detail)
    for state in ("active+undersized+degraded", "active+undersized+degraded+recovering",
                  "active+remapped+backfill_toofull", "active+undersized+degraded+remapped+backfilling"):
        level, detail = _pgs_check([clean, {"pgid": "1.3", "state": state, "acting": [0, 1]}])
        assert level == "block" and "already degraded" in detail, (state, detail)
    level, detail = _pgs_check([{"pgid": "1.3", "state": "active+remapped+backfilling", "acting": [0, 1]},
                                {"pgid": "1.4", "state": "active+undersized+degraded", "acting": [0]}])
    assert level == "block" and "1 PG(s) are already degraded (and 1 moving)" in detail, detail


def test_a_copy_recovering_after_a_remap_is_a_wait_that_blocks_if_it_lasts() -> None:
    """A balancer's upmap with two copies: the PG recovers the moved copy for seconds (active+recovering+degraded,
    every OSD up; a CI run's replacement was refused by it). A wait, as peering is; the engine makes it a `pgs`
    blocker if it lasts SETTLE_TIMEOUT; and with an OSD being removed already down it is what the drain repairs."""
    clean = {"pgid": "1.0", "state": "active+clean", "acting": [0, 1]}
    for state in ("active+recovering+degraded", "active+recovery_wait+degraded", "active+recovering"):
        level, detail = _pgs_check([clean, {"pgid": "1.15", "state": state, "acting": [0, 1]}])
        assert level == "wait" and "bringing one copy up to date right now" in detail and "(1.15)" in detail, detail
    # A PG truly short of a copy beside it: that one decides.
    level, _ = _pgs_check([{"pgid": "1.15", "state": "active+recovering+degraded", "acting": [0, 1]},
                           {"pgid": "1.16", "state": "active+undersized+degraded", "acting": [0]}])
    assert level == "block"
    # What each wait becomes if it lasts: the check says it (the engine no longer reads it from the words).
    from cephtui.ceph.workflows.removal_checks import preflight

    def lasting(pgs: list[dict[str, Any]]) -> str:
        return next(c for c in preflight(PreflightCluster(pgs), [2]) if c.name == "pgs").lasting

    assert lasting([clean, {"pgid": "1.15", "state": "active+recovering+degraded", "acting": [0, 1]}]) == "not clean"
    assert lasting([clean, {"pgid": "1.1", "state": "peering", "acting": [0, 1]}]) == "not active"


def test_pg_is_clean_allows_only_background_work() -> None:
    from cephtui.ceph.workflows.removal_checks import pg_is_clean

    assert pg_is_clean("active+clean") and pg_is_clean("active+clean+scrubbing+deep")
    for s in ("active+clean+remapped", "active+recovering+degraded", "peering", "active+clean+inconsistent",
              "active+undersized+degraded", "unknown"):
        assert not pg_is_clean(s), s


class OverrideCluster(PreflightCluster):
    """ok-to-stop says no, and osd.1 is down already."""

    def mon(self, prefix: str, **args: Any) -> Any:
        d = super().mon(prefix, **args)
        d["osds"][1]["up"] = 0
        return d

    def mgr(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd ok-to-stop":
            raise CephError(16, "unsafe to stop osd(s) at this time (21 PGs are or would become offline)", prefix)
        return super().mgr(prefix, **args)


def test_preflight_blockers_are_lifted_only_by_their_named_override() -> None:
    from cephtui.ceph.workflows.removal_checks import preflight

    clean = [{"pgid": "1.0", "state": "active+clean", "acting": [0, 2]}]
    checks = {c.name: c for c in preflight(OverrideCluster(clean), [2])}
    assert checks["ok-to-stop"].level == "block" and "21 PGs" in checks["ok-to-stop"].detail
    assert checks["ok-to-stop"].override == "ok-to-stop"
    assert checks["osds-down"].level == "block" and "osd.1 is down already" in checks["osds-down"].detail
    lifted = {c.name: c for c in preflight(OverrideCluster(clean), [2], ["ok-to-stop"])}
    assert lifted["ok-to-stop"].level == "override" and "OVERRIDDEN" in lifted["ok-to-stop"].detail
    assert lifted["osds-down"].level == "block"  # one override lifts one blocker, not the others


def test_a_mgr_outage_is_waited_out_not_a_failure(tmp_path: Path) -> None:
    """With no active mgr the client refuses mgr commands at once (CephMgrDown): the workflow says so and keeps
    running, it never turns a dead mgr into a failed removal."""
    from cephtui.ceph.errors import CephMgrDown

    class NoMgr(StopCluster):
        def mgr(self, prefix: str, **args: Any) -> Any:
            raise CephMgrDown(11, "mgr down: the mgrmap has no active mgr; not sent", prefix)

    state = Removal(osds=[3], step="wait_safe")
    engine = RemovalEngine(NoMgr(), state, WorkflowStore(tmp_path))
    engine.tick()
    assert state.status == "running" and "mgr down" in state.waiting_for and "retrying" in state.waiting_for


class PeeringCluster(PreflightCluster):
    """ok-to-stop says no, as Ceph does while any PG is peering (seen in CI 6 s after an osdmap change)."""

    def mgr(self, prefix: str, **args: Any) -> Any:
        if prefix == "osd ok-to-stop":
            raise CephError(16, "unsafe to stop osd(s) at this time (1 PGs are or would become offline)", prefix)
        return super().mgr(prefix, **args)


def test_not_ok_to_stop_while_pgs_peer_is_a_wait_then_a_blocker(tmp_path: Path) -> None:
    from cephtui.ceph.workflows.removal import SETTLE_TIMEOUT
    from cephtui.ceph.workflows.removal_checks import preflight

    clean = {"pgid": "1.0", "state": "active+clean", "acting": [0, 2]}
    peering = {"pgid": "1.7", "state": "remapped+peering", "acting": [0, 1]}
    check = {c.name: c for c in preflight(PeeringCluster([clean, peering]), [2])}["ok-to-stop"]
    assert check.level == "wait" and "1 PGs are or would become offline" in check.detail and "1.7" in check.detail
    # Nothing peering: Ceph's "no" stands, as before.
    assert {c.name: c for c in preflight(PeeringCluster([clean]), [2])}["ok-to-stop"].level == "block"

    state = Removal(osds=[2])  # at preflight
    engine = RemovalEngine(PeeringCluster([clean, peering]), state, WorkflowStore(tmp_path))
    engine.tick()
    assert state.status == "running" and state.step == "preflight" and "peering" in state.waiting_for
    state.progress["settling_since"] -= SETTLE_TIMEOUT + 1  # still refused after the settle timeout
    engine.tick()
    assert state.status == "blocked"
    blocker = next(c for c in state.checks if c["name"] == "ok-to-stop")
    assert blocker["level"] == "block" and blocker["override"] == "ok-to-stop"  # its own override, not "pgs"


def test_not_ok_to_stop_while_pgs_have_not_reported_is_a_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seconds after `ceph osd pool create`: the new PGs are not reported yet, and Ceph says `16 pgs have unknown
    state; cannot draw any conclusions` (seen on a sandbox). Which PGs are unreported comes from the osdmap
    (stale_pgs, osdmaptool on the real map); here it is given."""
    from cephtui.ceph.workflows import removal_checks

    class NewPool(PreflightCluster):
        def mgr(self, prefix: str, **args: Any) -> Any:
            if prefix == "osd ok-to-stop":
                raise CephError(16, "16 pgs have unknown state; cannot draw any conclusions", prefix)
            return super().mgr(prefix, **args)

    clean = {"pgid": "1.0", "state": "active+clean", "acting": [0, 2]}
    monkeypatch.setattr(removal_checks, "stale_pgs", lambda client, pgs: ["3.9", "3.8"])
    check = {c.name: c for c in removal_checks.preflight(NewPool([clean]), [2])}["ok-to-stop"]
    assert check.level == "wait" and "cannot draw any conclusions" in check.detail and "3.8, 3.9" in check.detail
    # Ticked in the plan in advance, the override lifts the wait as it would lift the blocker it may become.
    lifted = {c.name: c for c in removal_checks.preflight(NewPool([clean]), [2], ["ok-to-stop"])}["ok-to-stop"]
    assert lifted.level == "override" and "OVERRIDDEN" in lifted.detail
    monkeypatch.setattr(removal_checks, "stale_pgs", lambda client, pgs: [])
    assert {c.name: c for c in removal_checks.preflight(NewPool([clean]), [2])}["ok-to-stop"].level == "block"


def test_a_timed_out_wait_whose_override_was_ticked_in_advance_does_not_block(tmp_path: Path) -> None:
    """PGs peering elsewhere for longer than the settle timeout become a `pgs` blocker; an operator who ticked
    `pgs` in the plan accepted that risk already, so the engine goes on (and says so) instead of blocking."""
    from cephtui.ceph.workflows.removal import SETTLE_TIMEOUT

    clean = {"pgid": "1.0", "state": "active+clean", "acting": [0, 2]}
    peering = {"pgid": "1.7", "state": "remapped+peering", "acting": [0, 1]}
    class StopsAtTheDrain(PreflightCluster):
        def mon(self, prefix: str, **args: Any) -> Any:
            if prefix != "osd dump":  # `osd tree`, asked once the checks let the removal through
                raise CephError(errno.EAGAIN, f"{prefix}: not in this fake", prefix)
            return super().mon(prefix, **args)

    state = Removal(osds=[2], overrides=["pgs"])
    engine = RemovalEngine(StopsAtTheDrain([clean, peering]), state, WorkflowStore(tmp_path))
    engine.tick()
    assert state.status == "running" and state.step == "preflight" and "peering" in state.waiting_for
    state.progress["settling_since"] -= SETTLE_TIMEOUT + 1
    engine.tick()
    assert state.status == "running" and "osd tree: not in this fake" in state.waiting_for  # past the checks
    lifted = next(c for c in state.checks if c["name"] == "pgs")
    assert lifted["level"] == "override" and "still not active" in lifted["detail"]
