"""Fullness on output captured from a real sandbox of each release (scripts/capture_full_fixtures.py).

The removal projection, the removal preflight's capacity check, the bench's write refusal and
the Health pane's reading of a full cluster, each on what Ceph answered, never on typed JSON.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.bench.diagnosis import diagnose_osdmap, write_refusal
from cephtui.ceph.bench.results import Sample, longest_stall
from cephtui.ceph.ops.fillcalc import pct, project_removal
from cephtui.ceph.recording import ReplayClient
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.workflows.removal_checks import preflight
from tests.releases import release_dirs

STATES = ("removal_ok", "removal_nearfull", "removal_backfillfull", "full")
# Each release that holds the fullness captures: every test below runs once per release.
RELEASE = [pytest.param(d, id=d.name) for d in release_dirs() if (d / "full.json").is_file()]


def load(rel: Path, name: str) -> tuple[ReplayClient, dict[str, Any], dict[str, Any], list[int]]:
    client = ReplayClient.load(rel / f"{name}.json")
    meta = json.loads((rel / f"{name}.json").read_text())["meta"]
    return client, client.mgr("osd df"), client.mon("osd dump"), meta["removing"]


@pytest.mark.parametrize("name", STATES)
@pytest.mark.parametrize("rel", RELEASE)
def test_projection_moves_exactly_the_removed_osds_data_by_weight(rel: Path, name: str) -> None:
    _, df, dump, removing = load(rel, name)
    p = project_removal(df, dump, removing)
    nodes = {n["id"]: n for n in df["nodes"]}
    assert p.moved_kb == sum(nodes[i]["kb_used_data"] for i in removing) > 0
    assert {f.osd for f in p.remaining} == set(nodes) - set(removing)
    added = [f.kb_after - f.kb_used for f in p.remaining]
    assert abs(sum(added) - p.moved_kb) <= len(added)  # all of it lands somewhere (rounding aside)
    weights = {f.osd: nodes[f.osd]["crush_weight"] * nodes[f.osd]["reweight"] for f in p.remaining}
    for f in p.remaining:
        assert f.kb_used == nodes[f.osd]["kb_used"] and f.kb == nodes[f.osd]["kb"]
        assert f.kb_after - f.kb_used == pytest.approx(p.moved_kb * weights[f.osd] / sum(weights.values()), abs=1)
    assert [f.after for f in p.remaining] == sorted((f.after for f in p.remaining), reverse=True)
    # the cluster's own ratios, not Ceph's defaults
    assert (p.nearfull, p.backfillfull, p.full) == (dump["nearfull_ratio"], dump["backfillfull_ratio"],
                                                    dump["full_ratio"])


@pytest.mark.parametrize("rel", RELEASE)
def test_default_ratios_and_room_to_spare_is_ok(rel: Path) -> None:
    _, df, dump, removing = load(rel, "removal_ok")
    p = project_removal(df, dump, removing)
    level, detail = p.verdict()
    top = p.fullest
    assert top is not None and top.after < p.nearfull
    assert level == "ok" and f"osd.{top.osd}, would be at about {pct(top.after)}" in detail
    assert "nearfull 85%, backfillfull 90%, full 95%" in detail


@pytest.mark.parametrize("rel", RELEASE)
def test_past_nearfull_after_the_move_warns(rel: Path) -> None:
    _, df, dump, removing = load(rel, "removal_nearfull")
    p = project_removal(df, dump, removing)
    top = p.fullest
    assert top is not None and p.nearfull <= top.after < p.backfillfull  # what the capture set up
    assert not p.full_now and not p.backfillfull_now
    level, detail = p.verdict()
    assert level == "warn" and f"past the nearfull ratio {pct(p.nearfull)}" in detail


@pytest.mark.parametrize("rel", RELEASE)
def test_past_backfillfull_after_the_move_refuses(rel: Path) -> None:
    _, df, dump, removing = load(rel, "removal_backfillfull")
    p = project_removal(df, dump, removing)
    top = p.fullest
    assert top is not None and p.backfillfull <= top.after < p.full and top.now < p.nearfull
    level, detail = p.verdict()
    assert level == "block" and f"past the backfillfull ratio {pct(p.backfillfull)}" in detail
    assert "backfill_toofull" in detail and f"osd.{top.osd}" in detail


@pytest.mark.parametrize("rel", RELEASE)
def test_a_full_cluster_refuses_whatever_the_projection(rel: Path) -> None:
    _, df, dump, removing = load(rel, "full")
    p = project_removal(df, dump, removing)
    full_in_map = sorted(o["osd"] for o in dump["osds"] if "full" in o["state"])
    assert full_in_map and set(full_in_map) <= set(p.full_now)
    assert "full" in p.pool_full
    level, detail = p.verdict()
    assert level == "block" and detail.startswith("the cluster is full now: ")
    assert f"past the full ratio {pct(dump['full_ratio'])}" in detail and "pools flagged full: full" in detail
    for i in full_in_map:
        assert f"osd.{i}" in detail


@pytest.mark.parametrize("name,level", [("removal_ok", "ok"), ("removal_nearfull", "warn"),
                                        ("removal_backfillfull", "block"), ("full", "block")])
@pytest.mark.parametrize("rel", RELEASE)
def test_the_removal_preflight_uses_the_projection(rel: Path, name: str, level: str) -> None:
    client, df, dump, removing = load(rel, name)
    capacity = next(c for c in preflight(client, removing, stats_check=False) if c.name == "capacity")
    assert (capacity.level, capacity.detail) == (level, project_removal(df, dump, removing).verdict()[1])


@pytest.mark.parametrize("rel", RELEASE)
def test_bench_refuses_writes_on_the_full_pool_and_a_new_pool(rel: Path) -> None:
    _, _, dump, _ = load(rel, "full")
    full_osds = [f"osd.{o['osd']}" for o in dump["osds"] if "full" in o["state"]]
    why = write_refusal(dump, "full")
    assert why is not None and why.startswith("not starting a write run: pool full is full: ")
    assert f"past the full ratio ({pct(dump['full_ratio'])})" in why and all(o in why for o in full_osds)
    new_pool = write_refusal(dump, None)  # a temporary pool would map PGs to the full OSDs too
    assert new_pool is not None and "the cluster is full: " in new_pool
    d = diagnose_osdmap(dump, "full")
    assert d.full and not d.down and d.text is not None and "pool full is full" in d.text


@pytest.mark.parametrize("name", ["removal_ok", "removal_nearfull", "removal_backfillfull"])
@pytest.mark.parametrize("rel", RELEASE)
def test_bench_writes_are_not_refused_below_full(rel: Path, name: str) -> None:
    _, _, dump, _ = load(rel, name)
    assert write_refusal(dump, "full") is None and write_refusal(dump, None) is None
    assert not diagnose_osdmap(dump, "full").full


@pytest.mark.parametrize("rel", RELEASE)
def test_health_pane_spells_out_a_full_cluster(rel: Path) -> None:
    """`osd.1 is full` alone says neither at what level nor that writes stopped: the pane says both."""
    from cephtui.ui.panes.health import fullness, render_raw

    client, _, dump, _ = load(rel, "full")
    snap = SnapshotBuilder(client).build(pg_table=True, osd_tree=True)
    codes = {c.code for c in snap.health.checks}
    assert {"OSD_FULL", "POOL_FULL"} <= codes and snap.health.status == "HEALTH_ERR"
    text = fullness(snap)
    assert text is not None
    full_osds = [f"osd.{o['osd']}" for o in dump["osds"] if "full" in o["state"]]
    first, *rest = text.plain.splitlines()
    assert first == "⛔ FULL: writes are blocked"
    assert f"{', '.join(full_osds)} past the full ratio ({snap.ratios.full * 100:.1f}%)" in rest
    # POOL_FULL names every pool (device_health_metrics on Pacific, `.mgr` where the mgr made it)
    full_pools = [d[len("pool '"):d.index("' is full")] for d in next(c for c in snap.health.checks
                                                                    if c.code == "POOL_FULL").detail]
    assert "full" in full_pools and f"pools that refuse writes: {', '.join(full_pools)}" in rest
    raw = render_raw(snap).plain
    assert "past the full ratio" in raw and f"full {snap.ratios.full * 100:.1f}%" in raw


@pytest.mark.parametrize("rel", RELEASE)
def test_a_cluster_below_its_ratios_gets_no_fullness_banner(rel: Path) -> None:
    from cephtui.ui.panes.health import fullness

    client, _, _, _ = load(rel, "removal_ok")
    assert "OSD_FULL" not in client.mon("health", detail="detail").get("checks", {})
    assert fullness(SnapshotBuilder(ReplayClient.load(rel / "healthy.json")).build()) is None


def test_longest_stall_finds_the_seconds_with_ops_stuck() -> None:
    def s(sec: int, ops: int, in_flight: int) -> Sample:
        return Sample(sec=sec, finished=0, ops=ops, mib_s=0.0, avg_lat=0.0, max_lat=0.0, in_flight=in_flight)

    assert longest_stall([s(1, 10, 16), s(2, 12, 16)]) is None
    assert longest_stall([s(1, 10, 16), s(2, 0, 16), s(3, 0, 16), s(4, 5, 16), s(5, 0, 16)]) == (2, 2)
    assert longest_stall([s(1, 0, 0), s(2, 0, 0)]) is None  # idle (nothing in flight) is not a stall


@pytest.mark.parametrize("rel", RELEASE)
def test_a_dead_osds_data_still_moves_and_a_dead_osd_takes_none(rel: Path) -> None:
    """osd_down.json (osd.2 stopped): `osd df` keeps the dead OSD's last report; its copies are rebuilt elsewhere."""
    client = ReplayClient.load(rel / "osd_down.json")
    df, dump = client.mgr("osd df"), client.mon("osd dump")
    down = [o["osd"] for o in dump["osds"] if not o["up"]]
    assert down == [2]
    dead = project_removal(df, dump, [2])
    assert dead.moved_kb == next(n["kb_used_data"] for n in df["nodes"] if n["id"] == 2) > 0
    assert sorted(f.osd for f in dead.remaining) == [0, 1]
    other = project_removal(df, dump, [0])
    assert [f.osd for f in other.remaining] == [1]  # the dead osd.2 cannot take osd.0's data
    assert other.remaining[0].kb_after - other.remaining[0].kb_used == other.moved_kb
