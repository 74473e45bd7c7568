"""The snapshot builder on output captured from real clusters of each release (scripts/capture_fixtures.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephtui.ceph.answers import loads
from cephtui.ceph.recording import ReplayClient, command_key
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from tests.releases import FIXTURES, RELEASES, num_pgs, release_dirs, release_params


def replay(path: Path) -> tuple[ReplayClient, dict]:
    client = ReplayClient.load(path)
    return client, client.records


def raw(records: dict, target: str, prefix: str, **args) -> dict:
    return loads(records[command_key(target, prefix, {"format": "json", **args})]["out"])


def unmuted(snap) -> tuple:
    """The checks that count: a distro quirk muted for the capture (Reef's MGR_MODULE_DEPENDENCY,
    see tests/fixtures/<release>/RELEASE.json) stays listed by the mon, marked muted."""
    return tuple(c for c in snap.health.checks if not c.muted)


@pytest.mark.parametrize("fx", release_params("healthy", supported_only=True))
def test_healthy_cluster(fx: Path) -> None:
    client, rec = replay(fx)
    snap = SnapshotBuilder(client).build(pg_table=True)
    assert snap.health.status == "HEALTH_OK" and unmuted(snap) == ()
    assert (snap.osds.total, snap.osds.up, snap.osds.in_) == (3, 3, 3)
    assert snap.pgs.clean == snap.pgs.num_pgs == len(snap.pg_table) == num_pgs(fx)
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


@pytest.mark.parametrize("fx", release_params("osd_down", supported_only=True))
def test_one_osd_down(fx: Path) -> None:
    client, rec = replay(fx)
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


@pytest.mark.parametrize("fx", release_params("nearfull"))
def test_nearfull(fx: Path) -> None:
    client, _ = replay(fx)
    snap = SnapshotBuilder(client).build()
    codes = {c.code for c in snap.health.checks}
    assert {"OSD_NEARFULL", "POOL_NEARFULL"} <= codes
    ratio = raw(client.records, "mon", "osd dump")["nearfull_ratio"]
    assert snap.ratios.nearfull == pytest.approx(ratio) and ratio < 0.05
    assert snap.capacity.ratio > snap.ratios.nearfull


@pytest.mark.parametrize("fx", release_params("osd_down"))
def test_health_checks_sorted_errors_first_and_detail_kept(fx: Path) -> None:
    client, rec = replay(fx)
    detail = raw(rec, "mon", "health", detail="detail")
    snap = SnapshotBuilder(client).build()
    for check in snap.health.checks:
        src = detail["checks"][check.code]
        assert check.summary == src["summary"]["message"]
        assert check.detail == tuple(d["message"] for d in src["detail"])
    sev = [c.severity for c in snap.health.checks]
    assert sev == sorted(sev, key=lambda s: s != "HEALTH_ERR")


def test_unrecorded_command_fails_loudly() -> None:
    client, _ = replay(FIXTURES / "pacific" / "healthy.json")
    with pytest.raises(KeyError):
        client.mon("osd pool autoscale-status")


def test_fixtures_are_real_captures() -> None:
    """Every release directory holds what the capture scripts made, from a cluster of that release."""
    assert {"pacific", "reef", "tentacle"} <= set(RELEASES), RELEASES
    for d in release_dirs():
        release = json.loads((d / "RELEASE.json").read_text())
        assert release["release"] == d.name and f") {d.name} (stable" in release["ceph_version"], d
        files = {p.name for p in d.glob("*.json")} - {"RELEASE.json"}
        files |= {f"crush/{p.name}" for p in d.glob("crush/*")}
        assert files == set(release["captures"]), d  # each file said where it came from
        for name in files:
            if name.startswith("crush/"):  # the CRUSH capture's own record of the version
                name = "crush/VERSION"
            doc = json.loads((d / name).read_text())
            meta = doc.get("meta", doc)
            assert meta.get("ceph_version", meta.get("version")) == release["ceph_version"], (d, name)


@pytest.mark.parametrize("fx", release_params("osd_down", supported_only=True))
def test_snapshot_json_holds_tables_of_structs(fx: Path) -> None:
    """`cephtui snapshot --json` with the PG table: PGs and stuck PGs are msgspec Structs."""
    client, _ = replay(fx)
    snap = SnapshotBuilder(client).build(pg_table=True, osd_tree=True)
    data = json.loads(json.dumps(snap.to_json()))
    assert len(data["pg_table"]) == num_pgs(fx) and set(data["pg_table"][0]) >= {"pgid", "state", "up", "acting"}
    assert data["stuck"] and data["stuck"][0]["kind"]
    assert "pg_columns" not in data and data["osds"]["in"] == 3
    assert len(data["osd_table"]["osds"]) == 3


@pytest.mark.parametrize("fx", release_params("osd_down"))
def test_an_answer_that_is_not_json_is_a_note_not_a_failed_poll(fx: Path) -> None:
    """A mangled `osd df`, `pg dump` or `osd dump` (another release, a proxy, a bug) costs its pane
    only: the snapshot stands, and the pane can say which answer and why."""
    client, rec = replay(fx)
    for key in list(client._raw):
        if '"prefix": "osd df"' in key or '"prefix": "pg dump"' in key or '"prefix": "osd dump"' in key:
            client._raw[key] = b'{"nodes": [\xff\xfe truncated'
    snap = SnapshotBuilder(client).build(pg_table=True, osd_tree=True)
    assert snap.health.status == "HEALTH_WARN" and snap.osds.up == 2  # the rest of the poll stands
    for prefix in ("osd dump", "pg dump", "osd df"):
        why = snap.missing(prefix)
        assert why is not None and why.startswith(f"{prefix}: the answer is not JSON"), (prefix, why)
    assert snap.pg_table is None and snap.osd_table is None


@pytest.mark.parametrize("fx", release_params("healthy"))
def test_the_mgr_is_named_on_every_release(fx: Path) -> None:
    """Nautilus has no `mgr stat`: its `status` carries the whole mgrmap, which names the active mgr."""
    client, _ = replay(fx)
    snap = SnapshotBuilder(client).build()
    assert snap.mgr.available and snap.mgr.active == "x"
    assert snap.osds.total == 3 and snap.osds.up == 3
