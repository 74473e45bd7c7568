"""The app on a 2,000-OSD, 40,000-PG recording made by crushtool/osdmaptool (scripts/gen_scale_fixtures.py).

Not timed (scripts/bench_scale.py measures): these check that at scale every figure on screen is the
recording's, and that the fast paths (pieces decoded only where changed, filters over columns) give
exactly what the plain parsers give.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from cephtui.ceph.recording import ReplayClient, command_key
from cephtui.ceph.snapshot import parse
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.pgfilter import PGFilter
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.pgs import PGsPane
from cephtui.ui.widgets.virtualtable import VirtualTable
from tests.ui.helpers import SIZE, wait_for

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
OSDS, PGS = 2000, 40_000


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sys.path.insert(0, str(ROOT / "scripts"))
    from gen_scale_fixtures import generate
    return generate(OSDS, PGS, tmp_path_factory.mktemp("scale"))


def answer(directory: Path, target: str, prefix: str, **args: object) -> object:
    index = json.loads((directory / "index.json").read_text())["files"]
    return json.loads((directory / index[command_key(target, prefix, {"format": "json", **args})]).read_text())


def test_snapshot_equals_the_recording(recording: Path) -> None:
    snap = SnapshotBuilder(ReplayClient.from_dir(recording)).build(pg_table=True, osd_tree=True)
    brief = answer(recording, "mgr", "pg dump", dumpcontents=["pgs_brief"])
    generic = parse.parse_pg_brief(brief)
    assert snap.pg_table is not None and len(snap.pg_table) == PGS
    assert sorted(snap.pg_table, key=lambda pg: pg.pgid) == sorted(generic, key=lambda pg: pg.pgid)
    states = Counter(pg.state for pg in generic)
    assert {s.state: s.count for s in snap.pgs.by_state} == dict(states)
    assert snap.pool_pg_states is not None
    assert {s.state: s.count for s in snap.pool_pg_states[0].states} == dict(states)

    tree = answer(recording, "mon", "osd tree")
    down = {n["id"] for n in tree["nodes"] if n["id"] >= 0 and n["status"] == "down"}
    assert snap.osd_table is not None and len(snap.osd_table.osds) == OSDS == snap.osds.total
    assert {o.id for o in snap.osd_table.osds if not o.up} == down and snap.osd_table.num_up == OSDS - len(down)
    assert len(snap.osd_table.rows) == len(tree["nodes"])
    df = {n["id"]: n for n in answer(recording, "mgr", "osd df")["nodes"]}
    assert all(o.pgs == df[o.id]["pgs"] and o.kb_used == df[o.id]["kb_used"] for o in snap.osd_table.osds)

    degraded = {pg.pgid for pg in generic if "degraded" in pg.state}
    assert snap.stuck is not None and {s.pgid for s in snap.stuck} == degraded
    assert all(s.kind == "unclean,undersized,degraded" for s in snap.stuck)
    assert {c.code for c in snap.health.checks} == {"OSD_DOWN", "OSD_HOST_DOWN", "PG_DEGRADED"}


def test_filters_over_columns_match_the_plain_filter(recording: Path) -> None:
    snap = SnapshotBuilder(ReplayClient.from_dir(recording)).build(pg_table=True)
    assert snap.pg_table is not None and snap.pg_columns is not None
    names = {1: "rbd"}
    for text in ("degraded", "d", "1.", "1.a", ".a3", "a3", "rbd", "osd=7", "osd=21 undersized", "clean 1.1",
                 "x", "2.", "remapped"):
        flt = PGFilter(text)
        plain = [pg for pg in snap.pg_table if flt.matches(pg, names)]
        assert flt.select(snap.pg_table, names, snap.pg_columns) == plain, text


async def test_the_app_at_scale(recording: Path) -> None:
    app = CephTUI(ReplayClient.from_dir(recording), refresh=3600)
    degraded = sum(1 for pg in parse.parse_pg_brief(answer(recording, "mgr", "pg dump", dumpcontents=["pgs_brief"]))
                   if "degraded" in pg.state)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 30, "the first snapshot")
        await pilot.press("2")
        table = app.query_one("#pgs-table", VirtualTable)
        await wait_for(pilot, lambda: table.row_count == PGS, 30, "all PGs")
        assert str(app.query_one("#pgs-table-box").border_subtitle).startswith(f"{PGS} of {PGS} PGs")

        await pilot.press("slash", *"degraded")
        await wait_for(pilot, lambda: table.row_count == degraded, 10, "the degraded PGs")
        assert all("degraded" in table.get_row_at(i)[1] for i in range(table.row_count))
        app.pane(PGsPane).action_clear_filter()  # back to the table, as escape does
        await wait_for(pilot, lambda: table.row_count == PGS, 10, "all PGs again")

        await pilot.press("3")
        osd_table = app.query_one("#osds-table", VirtualTable)
        await wait_for(pilot, lambda: osd_table.row_count > OSDS, 30, "the OSD tree")
        down = sum(not o.up for o in app.snapshot.osd_table.osds)  # type: ignore[union-attr]
        await pilot.press("slash", *"down")
        await wait_for(pilot, lambda: str(app.query_one("#osds-box").border_subtitle).startswith(
            f"{down} of {OSDS} OSDs"), 10, "the down OSDs")
        assert app.is_running
