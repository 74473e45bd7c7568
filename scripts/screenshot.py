#!/usr/bin/env python3
"""Save an SVG of one cephtui tab on a real cluster (for the README and for looking at panes).

    .venv/bin/python scripts/screenshot.py --conf CONF [--tab health] [--out docs/health.svg] [--wait 3]
    .venv/bin/python scripts/screenshot.py --conf CONF --tab bench --bench-run 12 --osd-bench --out docs/bench.svg

With --bench-run S the Bench tab runs a real S-second write (pool rbd) and the picture is taken
near its end, sparklines filled; --osd-bench first runs a small per-OSD bench on every OSD.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient, ConnectionSpec  # noqa: E402
from cephtui.ui.app import TABS, CephTUI  # noqa: E402


async def shoot(conf: str, tab: str, out: Path, wait: float, size: tuple[int, int], bench_run: float = 0,
                osd_bench: bool = False) -> None:
    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    app = CephTUI(client=client, refresh=1)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.press(str([k for k, _ in TABS].index(tab) + 1))
            await pilot.pause(wait)
            pane = app.bench_pane
            if osd_bench:
                from cephtui.ceph.osdbench import OSDBenchParams
                pane._start_osd_bench(OSDBenchParams(64 << 20, 4 << 20), None)
                while pane.osd_progress or pane.osd_bench is not None:
                    await pilot.pause(0.5)
            if bench_run:
                from cephtui.ceph.bench import BenchParams
                pane._start(BenchParams(pool="rbd", seconds=bench_run), False)
                await pilot.pause(bench_run * 0.85)
            out.parent.mkdir(parents=True, exist_ok=True)
            app.save_screenshot(filename=out.name, path=str(out.parent))
    finally:
        client.close()
    print(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conf", required=True)
    p.add_argument("--tab", default="health", choices=[k for k, _ in TABS])
    p.add_argument("--out", default=str(ROOT / "docs" / "health.svg"))
    p.add_argument("--wait", type=float, default=3.0)
    p.add_argument("--size", default="160x48")
    p.add_argument("--bench-run", type=float, default=0, metavar="S", help="bench tab: run S seconds first")
    p.add_argument("--osd-bench", action="store_true", help="bench tab: run a per-OSD bench first")
    args = p.parse_args()
    w, h = (int(x) for x in args.size.split("x"))
    asyncio.run(shoot(args.conf, args.tab, Path(args.out), args.wait, (w, h), args.bench_run, args.osd_bench))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
