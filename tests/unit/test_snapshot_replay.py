"""The snapshot builder on output captured from a real Pacific cluster (scripts/capture_fixtures.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephtui.ceph.client import loads
from cephtui.ceph.recording import ReplayClient, command_key
from cephtui.ceph.snapshot import SnapshotBuilder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"


def replay(name: str) -> tuple[ReplayClient, dict]:
    client = ReplayClient.load(FIXTURES / f"{name}.json")
    return client, client.records


def raw(records: dict, target: str, prefix: str, **args) -> dict:
    return loads(records[command_key(target, prefix, {"format": "json", **args})]["out"])


def test_healthy_cluster() -> None:
    client, rec = replay("healthy")
    snap = SnapshotBuilder(client).build(pg_table=True)
    assert snap.health.status == "HEALTH_OK" and snap.health.checks == ()
    assert (snap.osds.total, snap.osds.up, snap.osds.in_) == (3, 3, 3)
    assert snap.pgs.clean == snap.pgs.num_pgs == len(snap.pg_table) == 49
    assert snap.stuck == ()
    assert snap.mgr.available and snap.mgr.active == "x"
    assert snap.mons.quorum == ("a",) and snap.mons.out_of_quorum == ()
    df = raw(rec, "mon", "df", detail="detail")
    assert snap.capacity.total == df["stats"]["total_bytes"]
    rbd = next(p for p in snap.capacity.pools if p.name == "rbd")
    assert rbd.objects == 200
    assert rbd.stored == next(p for p in df["pools"] if p["name"] == "rbd")["stats"]["stored"]
    assert snap.ratios.nearfull == pytest.approx(0.85)
    assert snap.notes == ()


def test_one_osd_down() -> None:
    client, rec = replay("osd_down")
    snap = SnapshotBuilder(client).build(pg_table=True)
    assert snap.health.status == "HEALTH_WARN"
    codes = {c.code: c for c in snap.health.checks}
    assert {"OSD_DOWN", "PG_DEGRADED"} <= set(codes)
    assert any("osd.2" in line and "is down" in line for line in codes["OSD_DOWN"].detail)
    assert (snap.osds.up, snap.osds.total) == (2, 3)
    assert snap.pgs.count_with("degraded") > 0 and snap.pgs.count_with("undersized") > 0
    pgmap = raw(rec, "mon", "status")["pgmap"]
    assert snap.recovery.degraded_objects == pgmap["degraded_objects"] > 0
    assert snap.recovery.degraded_ratio == pytest.approx(pgmap["degraded_ratio"])
    # Every PG of the table that is degraded is missing osd.2 from its acting set.
    degraded = [pg for pg in snap.pg_table if "degraded" in pg.state]
    assert degraded and all(2 not in pg.acting for pg in degraded)
    # The same counts as `pg stat`
    pg_stat = raw(rec, "mgr", "pg stat")["pg_summary"]
    assert {s.state: s.count for s in snap.pgs.by_state} == {s["name"]: s["num"] for s in pg_stat["num_pg_by_state"]}


def test_nearfull() -> None:
    client, _ = replay("nearfull")
    snap = SnapshotBuilder(client).build()
    codes = {c.code for c in snap.health.checks}
    assert {"OSD_NEARFULL", "POOL_NEARFULL"} <= codes
    assert snap.ratios.nearfull == pytest.approx(0.02)
    assert snap.capacity.ratio > snap.ratios.nearfull


def test_health_checks_sorted_errors_first_and_detail_kept() -> None:
    client, rec = replay("osd_down")
    detail = raw(rec, "mon", "health", detail="detail")
    snap = SnapshotBuilder(client).build()
    for check in snap.health.checks:
        src = detail["checks"][check.code]
        assert check.summary == src["summary"]["message"]
        assert check.detail == tuple(d["message"] for d in src["detail"])
    sev = [c.severity for c in snap.health.checks]
    assert sev == sorted(sev, key=lambda s: s != "HEALTH_ERR")


def test_unrecorded_command_fails_loudly() -> None:
    client, _ = replay("healthy")
    with pytest.raises(KeyError):
        client.mon("osd pool autoscale-status")


def test_fixtures_are_real_captures() -> None:
    for path in FIXTURES.glob("*.json"):
        meta = json.loads(path.read_text())["meta"]
        assert meta["ceph_version"].startswith("ceph version 16."), path


def test_snapshot_json_holds_tables_of_structs() -> None:
    """`cephtui snapshot --json` with the PG table: PGs and stuck PGs are msgspec Structs."""
    client, _ = replay("osd_down")
    snap = SnapshotBuilder(client).build(pg_table=True, osd_tree=True)
    data = json.loads(json.dumps(snap.to_json()))
    assert len(data["pg_table"]) == 49 and set(data["pg_table"][0]) >= {"pgid", "state", "up", "acting"}
    assert data["stuck"] and data["stuck"][0]["kind"]
    assert "pg_columns" not in data and data["osds"]["in"] == 3
    assert len(data["osd_table"]["osds"]) == 3


def test_an_answer_that_is_not_json_is_a_note_not_a_failed_poll() -> None:
    """A mangled `osd df`, `pg dump` or `osd dump` (another release, a proxy, a bug) costs its pane
    only: the snapshot stands, and the pane can say which answer and why."""
    client, rec = replay("osd_down")
    for key in list(client._raw):
        if '"prefix": "osd df"' in key or '"prefix": "pg dump"' in key or '"prefix": "osd dump"' in key:
            client._raw[key] = b'{"nodes": [\xff\xfe truncated'
    snap = SnapshotBuilder(client).build(pg_table=True, osd_tree=True)
    assert snap.health.status == "HEALTH_WARN" and snap.osds.up == 2  # the rest of the poll stands
    for prefix in ("osd dump", "pg dump", "osd df"):
        why = snap.missing(prefix)
        assert why is not None and why.startswith(f"{prefix}: the answer is not JSON"), (prefix, why)
    assert snap.pg_table is None and snap.osd_table is None
