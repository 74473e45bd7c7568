"""The removal workflow's safety logic, without a cluster (the real runs are in tests/ui/test_removal.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph import ops
from cephtui.ceph.client import CephError
from cephtui.ceph.workflows.removal import Removal, RemovalEngine, stop_command, unfinished
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


def _pgs_check(pgs: list[dict[str, Any]]) -> tuple[str, str]:
    from cephtui.ceph.workflows.removal import preflight

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
