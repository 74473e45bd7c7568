"""Maintenance mode, pure side: what is set, what exit restores, the records (cache side of the store)."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cephtui.ceph.snapshot.models import FlagState
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows import maintenance_banner as mbanner
from cephtui.ceph.workflows import maintenance_plan as mplan
from cephtui.ceph.workflows.flag_origin import FlagOrigin
from cephtui.ceph.workflows.store import WorkflowStore

HOSTS = {"node1": (0, 1, 2), "node2": (3, 4), "empty": ()}
FSID = "aaaaaaaa-0000"
T0 = time.mktime((2024, 3, 5, 14, 2, 0, 0, 0, -1))

DUMP = {
    "flags": "noscrub,sortbitwise,recovery_deletes,purged_snapdirs,pglog_hardlimit",
    "crush_node_flags": {"node2": ["noout"]},
    "device_class_flags": {"ssd": ["noup"]},
    "osds": [{"osd": 0, "state": ["exists", "up"]}, {"osd": 3, "state": ["exists", "noout", "up"]}],
}


def ok(ops_):
    return [(op, True, "") for op in ops_]


def test_flags_from_osd_dump_skips_routine_flags() -> None:
    assert mt.flags_from_osd_dump(DUMP) == {("noscrub", ""), ("noout", "node2"), ("noup", "class ssd"),
                                            ("noout", "osd.3")}
    assert mt.flags_from_osd_dump({"flags_set": ["sortbitwise", "pause"]}) == {("pause", "")}
    assert mt.flags_from_osd_dump(None) == set()


def test_hosts_from_osd_tree() -> None:
    tree = {"nodes": [{"id": -1, "name": "default", "type": "root", "children": [-3]},
                      {"id": -3, "name": "vm", "type": "host", "children": [2, 1, 0]},
                      {"id": 0, "name": "osd.0", "type": "osd", "status": "up"},
                      {"id": 1, "name": "osd.1", "type": "osd", "status": "down"}]}
    assert mt.hosts_from_osd_tree(tree) == {"vm": (0, 1, 2)}
    assert mt.osds_down(tree, [0, 1, 2]) == (1,)


@pytest.mark.parametrize("text,expect", [
    ("node1", mt.Target("node1", (0, 1, 2))),
    ("3 4", mt.Target("", (3, 4))),
    ("osd.4,osd.3", mt.Target("", (3, 4))),
    ("  2, 2 ", mt.Target("", (2,))),
])
def test_parse_target(text: str, expect: mt.Target) -> None:
    assert mt.parse_target(text, HOSTS) == expect


@pytest.mark.parametrize("text,why", [
    ("", "give a host"), ("node9", "neither a host"), ("osd.99", "not under any host"), ("empty", "no OSDs"),
])
def test_parse_target_refuses(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        mt.parse_target(text, HOSTS)


def test_parse_extra_flags() -> None:
    assert mt.parse_extra_flags("nodeep-scrub, noscrub") == ("noscrub", "nodeep-scrub")
    assert mt.parse_extra_flags("none") == ()
    with pytest.raises(ValueError, match="pause"):
        mt.parse_extra_flags("pause")


def test_enter_sets_only_what_is_not_set_and_owns_only_that() -> None:
    target = mt.Target("node1", (0, 1, 2))
    m, ops_ = mplan.plan_enter(target, ("noscrub", "nodeep-scrub"), {("noscrub", "")}, FSID, user="alice", now=T0)
    assert [op.cli for op in ops_] == ["ceph osd set-group noout node1", "ceph osd set nodeep-scrub"]
    assert m.owned == (("noout", "node1"), ("nodeep-scrub", ""))
    assert m.kept == (("noscrub", ""),)
    assert m.state == "entering" and m.user == "alice" and m.fsid == FSID
    assert "Already set by someone else" in mplan.enter_explanation(m) and "noscrub" in mplan.enter_explanation(m)


def test_enter_on_osds_scopes_noout_to_each_osd() -> None:
    m, ops_ = mplan.plan_enter(mt.Target("", (3, 4)), (), {("noout", "osd.3")}, FSID, now=T0)
    assert [op.cli for op in ops_] == ["ceph osd set-group noout osd.4"]
    assert m.owned == (("noout", "osd.4"),) and m.kept == (("noout", "osd.3"),)


def test_exit_restores_exactly_what_enter_set() -> None:
    before = {("nodeep-scrub", "")}  # set by hand before the maintenance
    m, ops_ = mplan.plan_enter(mt.Target("node1", (0, 1, 2)), ("noscrub", "nodeep-scrub"), before, FSID, now=T0)
    m = mplan.finish_enter(m, ok(ops_), ran=True, now=T0 + 1)
    assert m is not None and m.state == "active"
    during = before | {("noout", "node1"), ("noscrub", "")}
    plan = mplan.plan_exit(m, during)
    assert [op.cli for op in plan.operations] == ["ceph osd unset-group noout node1", "ceph osd unset noscrub"]
    assert plan.left_alone == (("nodeep-scrub", ""),)
    assert "Leaves alone (set by someone else): nodeep-scrub" in plan.explanation(m)
    done = mplan.finish_exit(m, plan, ok(plan.operations), now=T0 + 60)
    assert done.state == "done" and done.ended == T0 + 60 and done.owned == ()
    assert any("exit done" in s.what for s in done.steps)


def test_exit_skips_flags_someone_already_unset() -> None:
    m, ops_ = mplan.plan_enter(mt.Target("node1", (0, 1, 2)), ("noscrub",), set(), FSID, now=T0)
    m = mplan.finish_enter(m, ok(ops_), ran=True)
    assert m is not None
    plan = mplan.plan_exit(m, {("noout", "node1")})  # noscrub was unset by hand meanwhile
    assert [op.cli for op in plan.operations] == ["ceph osd unset-group noout node1"]
    assert plan.already_gone == (("noscrub", ""),)
    assert mplan.finish_exit(m, plan, ok(plan.operations)).state == "done"


def test_failed_enter_step_is_not_owned_and_failed_exit_stays_active() -> None:
    m, ops_ = mplan.plan_enter(mt.Target("node1", (0, 1, 2)), ("noscrub", "norebalance"), set(), FSID, now=T0)
    results = [(ops_[0], True, ""), (ops_[1], False, "refused [errno 1]")]  # the third never ran
    m2 = mplan.finish_enter(m, results, ran=True)
    assert m2 is not None and m2.owned == (("noout", "node1"),) and m2.kept == ()
    assert [s.ok for s in m2.steps] == [True, False]
    assert mplan.finish_enter(m, [], ran=False) is None  # cancelled: no record
    assert mplan.finish_enter(m, [(ops_[0], False, "no")], ran=True) is None  # nothing set at all

    plan = mplan.plan_exit(m2, {("noout", "node1")})
    left = mplan.finish_exit(m2, plan, [(plan.operations[0], False, "timeout")])
    assert left.state == "active" and left.owned == (("noout", "node1"),)


def test_a_flag_another_maintenance_needs_is_handed_over_not_unset() -> None:
    a, ops_a = mplan.plan_enter(mt.Target("node1", (0, 1, 2)), ("noscrub",), set(), FSID, now=T0)
    a = mplan.finish_enter(a, ok(ops_a), ran=True)
    b, ops_b = mplan.plan_enter(mt.Target("node2", (3, 4)), ("noscrub",), {("noscrub", ""), ("noout", "node1")}, FSID)
    b = mplan.finish_enter(b, ok(ops_b), ran=True)
    assert a is not None and b is not None and b.kept == (("noscrub", ""),)
    now_set = {("noscrub", ""), ("noout", "node1"), ("noout", "node2")}
    plan = mplan.plan_exit(a, now_set, [a, b])
    assert [op.cli for op in plan.operations] == ["ceph osd unset-group noout node1"]
    assert plan.handed_over == ((("noscrub", ""), b.id),)
    b2 = mplan.hand_over([b], plan)[0]
    assert ("noscrub", "") in b2.owned  # b now unsets it at its own exit
    assert [op.cli for op in mplan.plan_exit(b2, now_set - {("noout", "node1")}, []).operations] == [
        "ceph osd unset-group noout node2", "ceph osd unset noscrub"]


def store_at(root: Path) -> mt.MaintenanceStore:
    """A store on this machine's cache alone (no cluster): the same code path the cluster copy is merged into."""
    return mt.MaintenanceStore(WorkflowStore(root), legacy=root / "maintenance.json")


def load(root: Path) -> mt.MaintenanceStore:
    store = store_at(root)
    store.load()
    return store


def test_records_round_trip_and_history(tmp_path: Path) -> None:
    store = load(tmp_path)
    assert store.records == [] and store.error == ""
    m, ops_ = mplan.plan_enter(mt.Target("node1", (0, 1, 2)), ("noscrub", "nodeep-scrub"), {("nodeep-scrub", "")},
                            FSID, user="alice", now=T0)
    store.put(m)
    rec = json.loads(store.workflows.path(mt.KIND, m.id).read_text())
    assert rec["target"] == {"host": "node1", "osds": [0, 1, 2]} and rec["state"] == rec["status"] == "entering"
    assert rec["osds"] == [0, 1, 2] and rec["started"] == T0  # what the store's conflict check and pruning read
    assert rec["flags_set"] == [{"flag": "noout", "scope": "node1"}, {"flag": "noscrub", "scope": ""}]
    assert rec["flags_kept"] == [{"flag": "nodeep-scrub", "scope": ""}]
    assert rec["restore"] == rec["flags_set"]  # written before anything runs: may have set all of these
    assert rec["user"] == "alice" and rec["started_at"].startswith("2024-03-05T14:02:00")
    assert rec["_cephtui"]["started_by"] == store.workflows.me and rec["_cephtui"]["kind"] == mt.KIND

    active = mplan.finish_enter(m, ok(ops_), ran=True)
    assert active is not None
    store.put(active)
    again = load(tmp_path)  # a restarted cephtui
    assert [(r.id, r.state, r.owned, r.starter) for r in again.active(FSID)] == [
        (m.id, "active", active.owned, store.workflows.me)]
    assert again.active("other-fsid") == []

    back = again.get(m.id)
    assert back is not None
    plan = mplan.plan_exit(back, {("noout", "node1"), ("noscrub", ""), ("nodeep-scrub", "")})
    again.put(mplan.finish_exit(back, plan, ok(plan.operations)))
    third = load(tmp_path)
    assert third.records == [] and third.history[-1].id == m.id and third.history[-1].state == "done"
    # The history keeps what it set and what it left alone; nothing is left to restore.
    rec = json.loads(store.workflows.path(mt.KIND, m.id).read_text())
    assert rec["flags_set"] == [{"flag": "noout", "scope": "node1"}, {"flag": "noscrub", "scope": ""}]
    assert rec["flags_kept"] == [{"flag": "nodeep-scrub", "scope": ""}] and rec["restore"] == []
    assert rec["ended"] and [s["what"] for s in rec["steps"]][-1] == "exit done"


def test_an_older_cephtuis_state_file_is_migrated_once(tmp_path: Path) -> None:
    active, ops_ = mplan.plan_enter(mt.Target("node1", (0, 1, 2)), ("noscrub",), set(), FSID, user="bob", now=T0)
    active = mplan.finish_enter(active, ok(ops_), ran=True)
    old, _ = mplan.plan_enter(mt.Target("node2", (3, 4)), (), set(), FSID, now=T0 - 60)
    assert active is not None
    legacy = {"version": 1, "maintenances": [active.to_json()],
              "history": [{**old.to_json(), "state": "done", "ended_ts": T0 - 30}]}
    for rec in legacy["maintenances"] + legacy["history"]:  # as the older cephtui wrote them
        rec["started"] = rec.pop("started_at")
        rec.pop("osds"), rec.pop("status"), rec.pop("updated")
    (tmp_path / "maintenance.json").write_text(json.dumps(legacy))

    store = load(tmp_path)
    assert store.error == ""
    assert [(r.id, r.owned, r.user) for r in store.records] == [(active.id, active.owned, "bob")]
    assert store.records[0].starter.startswith("bob@")
    assert [r.id for r in store.history] == [old.id]
    assert not (tmp_path / "maintenance.json").exists() and (tmp_path / "maintenance.json.migrated").exists()
    again = load(tmp_path)  # once: nothing doubled, nothing lost
    assert [r.id for r in again.records] == [active.id] and [r.id for r in again.history] == [old.id]


def test_a_damaged_state_file_is_reported_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "maintenance.json"
    path.write_text("{not json")
    store = load(tmp_path)
    assert "not a cephtui state file" in store.error and store.records == []
    assert path.read_text() == "{not json"


def test_state_dir_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CEPHTUI_STATE_DIR", str(tmp_path))
    assert mt.default_state_path() == tmp_path / "maintenance.json"
    monkeypatch.delenv("CEPHTUI_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert mt.default_state_path() == tmp_path / "xdg" / "cephtui" / "maintenance.json"


def test_banner_groups_owned_flags_under_the_maintenance() -> None:
    m, ops_ = mplan.plan_enter(mt.Target("node2", (3, 4)), ("noscrub",), {("nodeep-scrub", "")}, FSID, now=T0)
    m = mplan.finish_enter(m, ok(ops_), ran=True)
    assert m is not None
    flags = [FlagState("nodeep-scrub", "", T0 - 420), FlagState("noout", "node2", T0 + 2),
             FlagState("noscrub", "", T0 + 2)]
    # Who set a flag and when come from the durable sources (flag_origin), never from when cephtui first saw it.
    assert mbanner.banner_items([m], flags, now=T0 + 10) == [
        "maintenance: host node2 since 14:02 +noscrub", "nodeep-scrub since … (not by a maintenance)"]
    origins = {("nodeep-scrub", ""): FlagOrigin(since=T0 - 420, who="bob@mon2 (cephtui)")}
    items = mbanner.banner_items([m], flags, origins, now=T0 + 10)
    assert items == ["maintenance: host node2 since 14:02 +noscrub", "nodeep-scrub since 13:55 (by bob@mon2)"]
    older = {("nodeep-scrub", ""): FlagOrigin(before=T0 - 420, why_unknown="…")}
    assert mbanner.banner_items([], flags[:1], older, now=T0) == ["nodeep-scrub set before 13:55"]
    assert mbanner.banner_short([m], flags) == "1 maintenance, 1 flag (tab 7)"
    assert mbanner.banner_items([], []) == [] and mbanner.banner_short([], []) == ""


def test_instructions_name_every_daemon() -> None:
    text = "\n".join(mplan.instructions(mt.Target("vm", (0, 1, 2))))
    assert "systemctl stop ceph-osd@0 ceph-osd@1 ceph-osd@2" in text
    assert "ceph orch host maintenance enter vm" in text and "ceph orch host maintenance exit vm" in text
    assert "ceph orch daemon stop osd.3" in "\n".join(mplan.instructions(mt.Target("", (3,))))


def test_every_cluster_flag_is_explained() -> None:
    from cephtui.ceph.ops import CLUSTER_FLAGS

    assert set(mt.FLAG_HELP) == set(CLUSTER_FLAGS)
    assert "ok-to-stop: yes for osd.0" in mplan.ok_to_stop_summary({"ok_to_stop": True, "osds": [0],
                                                                 "ok_become_degraded": ["1.0"]})


def test_fit_banner_keeps_whole_items_then_counts() -> None:
    items = ["maintenance: host node2 since 14:02 +noscrub", "nodeep-scrub since 13:55 (by someone else)"]
    full = "⚑ " + " · ".join(items)
    assert mbanner.fit_banner(items, "1 maintenance, 1 flag (tab 7)", len(full)) == full
    assert mbanner.fit_banner(items, "x", len(full) - 1) == "⚑ " + items[0] + " · +1 more (tab 7)"
    assert mbanner.fit_banner(items, "1 maintenance, 1 flag (tab 7)", 20) == "⚑ 1 maintenance, 1 flag (tab 7)"


def test_two_cephtuis_keep_each_others_records(tmp_path: Path) -> None:
    one, two = load(tmp_path), load(tmp_path)
    a, _ = mplan.plan_enter(mt.Target("node1", (0, 1, 2)), (), set(), FSID)
    b, _ = mplan.plan_enter(mt.Target("node2", (3, 4)), (), set(), FSID)
    one.put(a)
    two.put(b)  # two never saw a in memory
    assert sorted(r.id for r in load(tmp_path).records) == sorted([a.id, b.id])
    one.drop(a.id)
    assert [r.id for r in load(tmp_path).records] == [b.id]


def test_a_maintenance_and_a_removal_of_the_same_osd_conflict_both_ways(tmp_path: Path) -> None:
    """The store refuses the second, naming the first: which workflow, started by whom, since when."""
    from cephtui.ceph.workflows.removal import KIND as REMOVAL
    from cephtui.ceph.workflows.removal import Removal
    from cephtui.ceph.workflows.store import WorkflowConflict

    cluster: dict[str, dict] = {}

    class Queue(WorkflowStore):  # the conflict check runs where the queue is the cluster's: a dict stands in
        in_cluster = True  # type: ignore[assignment]

        def _cluster_dump(self, kind: str) -> dict:
            return {k.split("/")[-1]: json.loads(v) for k, v in cluster.items() if k.split("/")[-2] == kind}

        def _cluster_put(self, kind: str, wf_id: str, data: dict) -> None:
            cluster[self.key(kind, wf_id)] = json.dumps(data)

        def _cluster_rm(self, kind: str, wf_id: str) -> None:
            cluster.pop(self.key(kind, wf_id), None)

    m, _ = mplan.plan_enter(mt.Target("", (3,)), (), set(), FSID, now=time.time())
    maint = mt.MaintenanceStore(Queue(tmp_path), legacy=tmp_path / "none.json")
    maint.put(m)
    r = Removal(osds=[2, 3])
    with pytest.raises(WorkflowConflict, match=rf"osd\.3 already in workflow {m.id} \(maintenance of osd\.3, "
                       rf"entering, started by {maint.workflows.me} at (?:\d{{4}}-\d\d-\d\d )?\d\d:\d\d\): "
                       rf"end that maintenance first"):
        Queue(tmp_path).save(REMOVAL, r.id, r.to_json())

    maint.drop(m.id)
    Queue(tmp_path).save(REMOVAL, r.id, r.to_json())
    m2, _ = mplan.plan_enter(mt.Target("node2", (3, 4)), (), set(), FSID)
    with pytest.raises(WorkflowConflict, match=rf"osd\.3 already in workflow {r.id} \(removal at preflight, "
                       r".*resume or abort that removal first"):
        mt.MaintenanceStore(Queue(tmp_path)).put(m2)
