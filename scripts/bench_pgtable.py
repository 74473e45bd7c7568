#!/usr/bin/env python3
"""How fast the PGs pane handles 100k PGs, against plain DataTable work measured in the same run.

    .venv/bin/python scripts/bench_pgtable.py [--osds 100] [--pg-bits 10]

The PGs come from Ceph's own tools: `osdmaptool --createsimple N --pg-bits B`
builds an osdmap and `--test-map-pgs-dump` maps every PG through CRUSH. No
cluster is needed. Prints milliseconds and ratios:
  first fill   PGsPane.show() vs DataTable.add_rows() of the same cells
  refresh      PGsPane.show() with 1% of PGs changed vs clear()+add_rows() (a naive rebuild)
  filter       applying a filter vs clear()+add_rows() of the matching rows
"""
from __future__ import annotations

import argparse
import asyncio
import msgspec
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import DataTable  # noqa: E402

from cephtui.ceph.models import (  # noqa: E402
    Capacity, ClusterSnapshot, Health, IORates, MgrSummary, MonSummary, OSDStat, PGBrief, PGSummary, PoolUsage,
    Ratios, Recovery, StateCount,
)
from cephtui.ui.panes.pgs import PGsPane, osds  # noqa: E402
from cephtui.ui.widgets.virtualtable import VirtualTable  # noqa: E402
from cephtui.ceph.pgdump import per_pool_states  # noqa: E402
from cephtui.ceph.pgfilter import pgid_key  # noqa: E402


def pgs_from_osdmaptool(num_osds: int, pg_bits: int) -> list[PGBrief]:
    with tempfile.TemporaryDirectory() as d:
        om = f"{d}/om"
        subprocess.run(["osdmaptool", om, "--createsimple", str(num_osds), "--pg-bits", str(pg_bits),
                        "--with-default-pool", "--clobber"], check=True, capture_output=True)
        out = subprocess.run(["osdmaptool", om, "--mark-up-in", "--test-map-pgs-dump"], check=True,
                             capture_output=True, text=True).stdout
    pgs = []
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and "." in parts[0] and parts[1].startswith("["):
            up = tuple(int(x) for x in parts[1].strip("[]").split(",") if x)
            pgs.append(PGBrief(parts[0], "active+clean", up, up, int(parts[2]), int(parts[2])))
    pgs.sort(key=lambda pg: pgid_key(pg.pgid))  # as the poller thread hands them over
    return pgs


def snapshot(pgs: list[PGBrief]) -> ClusterSnapshot:
    states: dict[str, int] = {}
    for pg in pgs:
        states[pg.state] = states.get(pg.state, 0) + 1
    return ClusterSnapshot(
        fsid="bench", taken_at=time.time(), poll_ms=0, health=Health("HEALTH_OK"),
        mons=MonSummary(("a",), ("a",)), mgr=MgrSummary(True, "x"), osds=OSDStat(1, 100, 100, 100),
        ratios=Ratios(), capacity=Capacity(1, 0, 1, (PoolUsage(1, "rbd", 0, 0, 0.0, 0, 0),)), io=IORates(),
        pgs=PGSummary(len(pgs), tuple(StateCount(s, n) for s, n in states.items())), recovery=Recovery(),
        pg_table=tuple(pgs), pool_pg_states=per_pool_states(tuple(pgs)))


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PGsPane()
        yield DataTable(id="reference")


def cells(pg: PGBrief) -> tuple:
    return (pg.pgid, pg.state, osds(pg.up), osds(pg.acting), str(pg.acting_primary))


async def run(pgs: list[PGBrief], repeat: int) -> None:
    changed = [msgspec.structs.replace(pg, state="active+undersized+degraded") if i % 100 == 0 else pg
               for i, pg in enumerate(pgs)]
    app = BenchApp()
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(PGsPane)
        ref = app.query_one("#reference", DataTable)
        for name in ("pgid", "state", "up", "acting", "primary"):
            ref.add_column(name, key=name)

        async def timed(fn) -> float:
            t0 = time.perf_counter()
            fn()
            await pilot.pause()
            return (time.perf_counter() - t0) * 1000

        rows = [cells(pg) for pg in pgs]
        results: dict[str, list[float]] = {k: [] for k in
                                           ("fill", "fill_ref", "refresh", "refresh_ref", "filter", "filter_ref")}
        for _ in range(repeat):
            pane.query_one("#pgs-table", VirtualTable).set_rows(())
            results["fill"].append(await timed(lambda: pane.show(snapshot(pgs))))
            ref.clear()
            results["fill_ref"].append(await timed(lambda: ref.add_rows(rows)))
            results["refresh"].append(await timed(lambda: pane.show(snapshot(changed))))
            results["refresh_ref"].append(await timed(lambda: (ref.clear(), ref.add_rows([cells(p) for p in changed]))))
            matching = [cells(p) for p in changed if "degraded" in p.state]
            table = pane.query_one("#pgs-table", VirtualTable)
            t0 = time.perf_counter()
            pane._apply_filter("degraded")  # filters in a thread: wait until the rows are shown
            while table.row_count != len(matching):
                await pilot.pause(0.005)
            results["filter"].append((time.perf_counter() - t0) * 1000)
            results["filter_ref"].append(await timed(lambda: (ref.clear(), ref.add_rows(matching))))
            pane._apply_filter("")
            await pilot.pause()
            pane.show(snapshot(pgs))
            await pilot.pause()
        med = {k: statistics.median(v) for k, v in results.items()}
        print(f"PGs: {len(pgs)} (osdmaptool --createsimple, mapped through CRUSH); median of {repeat}")
        for what, ref_what, label in (("fill", "fill_ref", "first fill (vs DataTable.add_rows)"),
                                      ("refresh", "refresh_ref", "refresh, 1% changed (vs clear+add_rows)"),
                                      ("filter", "filter_ref", "filter 'degraded' (vs clear+add_rows)")):
            print(f"  {label:48} {med[what]:8.0f} ms  ref {med[ref_what]:8.0f} ms  ratio {med[what] / med[ref_what]:.2f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--osds", type=int, default=100)
    p.add_argument("--pg-bits", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    pgs = pgs_from_osdmaptool(args.osds, args.pg_bits)
    asyncio.run(run(pgs, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
