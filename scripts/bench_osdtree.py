#!/usr/bin/env python3
"""How the OSD tree scales: a 5,000-OSD map built by Ceph's own tools, through cephtui's pipeline.

    .venv/bin/python scripts/bench_osdtree.py [--osds 5000] [--per-host 20] [--hosts-per-rack 10]

The map comes from `crushtool --build` (hosts in racks under one root) imported
into `osdmaptool --createsimple`; `osdmaptool --tree=json` prints exactly what
`ceph osd tree -f json` would. Usage figures (`osd df`) cannot come from a tool
without a cluster, so they are synthesized deterministically per OSD.

Reference measured in the same run: `osdmaptool --tree=plain` on the same map
(Ceph's own code formatting the same tree) and json.loads of the tree (the
floor any client pays). Then, in a real Textual app (headless), the time from
a snapshot to rows on screen, a filter round trip, and the longest stall of the
UI thread while all of that happens.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.osdtree import OSDFilter, build_table, view  # noqa: E402


def run(argv: list[str], cwd: Path) -> str:
    return subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_maps(osds: int, per_host: int, hosts_per_rack: int, d: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """`osd tree` and `osd dump` JSON for the map; the binary crush map stays in d/crush."""
    run(["crushtool", "--build", "--num_osds", str(osds), "host", "straw2", str(per_host), "rack", "straw2",
         str(hosts_per_rack), "root", "straw2", "0", "-o", "crush"], d)
    run(["osdmaptool", "--createsimple", str(osds), "--with-default-pool", "--clobber", "om"], d)
    run(["osdmaptool", "om", "--import-crush", "crush"], d)
    tree = json.loads(run(["osdmaptool", "om", "--mark-up-in", "--tree=json"], d).split("\n", 1)[1])
    dump = json.loads(run(["osdmaptool", "om", "--mark-up-in", "--dump", "json"], d).split("\n", 1)[1])
    return tree, dump


def synthetic_df(tree: dict[str, Any]) -> dict[str, Any]:
    nodes = []
    for n in tree["nodes"]:
        if n["id"] < 0:
            continue
        kb = 4 * 1024 ** 3  # 4 TiB
        used = kb * ((n["id"] * 7919) % 900 + 50) // 1000  # 5 % .. 95 %, spread by id
        nodes.append({"id": n["id"], "name": n["name"], "kb": kb, "kb_used": used, "kb_avail": kb - used,
                      "utilization": used * 100 / kb, "var": 1.0, "pgs": 100 + n["id"] % 50})
    return {"nodes": nodes}


def timed(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, result


async def ui_run(table: Any) -> dict[str, float]:
    """Mount the real OSDs pane headless, hand it the table, measure paint and filter, watch the loop."""
    from textual.app import App, ComposeResult

    from cephtui.ui.panes.osds import OSDsPane

    class Snap:  # only what OSDsPane.show reads
        osd_table = table

    class Bench(App[None]):
        CSS_PATH = ROOT / "cephtui" / "ui" / "app.tcss"

        def compose(self) -> ComposeResult:
            yield OSDsPane(id="osds-pane")

    app = Bench()
    gaps: list[tuple[float, str]] = []
    phase = ["idle"]
    out: dict[str, float] = {}
    async with app.run_test(size=(180, 50)) as pilot:
        pane = app.query_one(OSDsPane)
        last = [time.perf_counter()]

        def beat() -> None:
            now = time.perf_counter()
            gaps.append((now - last[0], phase[0]))
            last[0] = now

        app.set_interval(0.01, beat)
        await pilot.pause(0.2)
        t0 = time.perf_counter()
        phase[0] = "paint"
        pane.show(Snap())  # type: ignore[arg-type]
        while pane.vtable.row_count != len(table.rows):
            await pilot.pause(0.005)
        await pilot.pause()
        out["first paint ms"] = (time.perf_counter() - t0) * 1000
        for text, label in (("host123", "filter host123"), ("rack7 up", "filter 'rack7 up'"),
                            ("osd.4999", "filter osd.4999")):
            t0 = time.perf_counter()
            phase[0] = "filter"
            pane.action_focus_filter()
            pane.query_one("#osds-filter").value = text  # type: ignore[attr-defined]
            want = len(view(table, OSDFilter(text), "tree"))
            while pane.vtable.row_count != want:
                await pilot.pause(0.005)
            # includes the 0.2 s typing debounce, reported separately below
            out[f"{label} ms (incl. 200 ms debounce)"] = (time.perf_counter() - t0) * 1000
        phase[0] = "sort"
        pane.action_clear_filter()
        for _ in range(3):
            pane.action_sort()
            await pilot.pause(0.3)
        phase[0] = "scroll"
        pane.vtable.focus()
        await pilot.press("pagedown", "pagedown", "end", "home")
        await pilot.pause(0.2)
        phase[0] = "idle"
        await pilot.pause(0.3)
    for name in ("paint", "filter", "sort", "scroll", "idle"):
        out[f"longest UI stall during {name} ms"] = max((g for g, p in gaps[5:] if p == name), default=0) * 1000
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--osds", type=int, default=5000)
    ap.add_argument("--per-host", type=int, default=20)
    ap.add_argument("--hosts-per-rack", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctbench-") as tmp:
        d = Path(tmp)
        t0 = time.perf_counter()
        tree, dump = make_maps(args.osds, args.per_host, args.hosts_per_rack, d)
        print(f"maps built by crushtool/osdmaptool in {time.perf_counter() - t0:.1f}s: "
              f"{len(tree['nodes'])} tree nodes", file=sys.stderr)
        native_ms, _ = timed(lambda: run(["osdmaptool", "om", "--mark-up-in", "--tree=plain"], d), 3)
        raw = json.dumps(tree)
        loads_ms, _ = timed(lambda: json.loads(raw))
        crush_dump = json.loads(run(["crushtool", "-i", "crush", "--dump", "-f", "json"], d))
    df = synthetic_df(tree)
    build_ms, table = timed(lambda: build_table(tree, df, None, dump))
    rows = {
        "reference: osdmaptool --tree=plain (process)": native_ms,
        "reference: json.loads of the tree": loads_ms,
        "build_table (tree + df + dump joined)": build_ms,
        "view: whole tree": timed(lambda: view(table, OSDFilter(""), "tree"))[0],
        "view: filter 'host123'": timed(lambda: view(table, OSDFilter("host123"), "tree"))[0],
        "view: filter 'rack7 up'": timed(lambda: view(table, OSDFilter("rack7 up"), "tree"))[0],
        "view: sort by utilisation": timed(lambda: view(table, OSDFilter(""), "util"))[0],
    }
    from cephtui.ceph.crush import parse_crush
    from cephtui.ui.panes.crush import hierarchy_rows

    rows["CRUSH pane: parse_crush (osd crush dump)"], cmap = timed(lambda: parse_crush(crush_dump, dump))
    rows["CRUSH pane: hierarchy rows"] = timed(lambda: hierarchy_rows(cmap))[0]
    ui = asyncio.run(ui_run(table))
    print(f"\n{args.osds} OSDs, {len(table.rows)} rows ({len(table.rows) - len(table.osds)} buckets)")
    width = max(map(len, list(rows) + list(ui)))
    for k, v in rows.items():
        print(f"  {k:<{width}}  {v:8.1f} ms")
    print(f"  {'ratio build_table / osdmaptool --tree':<{width}}  {build_ms / native_ms:8.2f}")
    print(f"  {'ratio build_table / json.loads':<{width}}  {build_ms / loads_ms:8.2f}")
    print("  in the Textual app (headless):")
    for k, v in ui.items():
        print(f"  {k:<{width}}  {v:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
