#!/usr/bin/env python3
"""Does the UI stay responsive while the Bench tab runs 4 KiB ops? A benchmark, not a test.

    .venv/bin/python scripts/bench_ui_responsiveness.py [--conf CONF] [--pool rbd] [--seconds 10]

Runs the real app headless (App.run_test) on the Bench tab with a 20 ms heartbeat
timer, first idle, then during a bench run (4 KiB and 4 MiB ops, 16 in flight), and
prints the heartbeat gaps (a gap of 20 ms means no stall) and, for reference, the
same bench's throughput when run headless without the UI. Starts its own sandbox
cluster unless --conf is given.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from capturelib import conf_or_sandbox  # noqa: E402  (scripts/, on the path when run as a script)

from cephtui.ceph.bench.engine import run_bench  # noqa: E402
from cephtui.ceph.bench.params import BenchParams  # noqa: E402
from cephtui.ceph.client import CephClient, ConnectionSpec  # noqa: E402

BEAT = 0.02


async def measure(conf: str, pool: str, seconds: float, op_size: int) -> dict[str, float]:
    from cephtui.ui.app import CephTUI

    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    app = CephTUI(client=client, refresh=2.0)
    gaps: list[tuple[float, str]] = []
    phase = ["idle"]
    async with app.run_test(size=(160, 48)) as pilot:
        last = [time.monotonic()]

        def beat() -> None:
            now = time.monotonic()
            gaps.append((now - last[0], phase[0]))
            last[0] = now
        app.set_interval(BEAT, beat)
        await pilot.press("8")
        await pilot.pause(3)  # idle, with polls going on
        # Reference: the same load from native rados bench in another process, so what remains
        # is the host's own scheduling noise (2 cores shared with the OSDs), not our engine.
        phase[0] = "native"
        proc = await asyncio.create_subprocess_exec(
            "rados", "-c", conf, "-p", pool, "bench", str(int(seconds)), "write", "-t", "16", "-b", str(op_size),
            "--no-hints", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await proc.wait()
        phase[0] = "idle2"
        await pilot.pause(2)
        pane = app.bench_pane
        phase[0] = "bench"
        pane._start(BenchParams(pool=pool, seconds=seconds, op_size=op_size), False)
        t0 = time.monotonic()
        busy = lambda: pane.engine is not None or pane.phase or pane.last_result is None  # noqa: E731
        while busy() and time.monotonic() - t0 < seconds + 60:
            await pilot.pause(0.2)
        result = pane.last_result
    client.close()
    out: dict[str, float] = {}
    for name in ("idle", "native", "bench"):
        g = sorted(x for x, p in gaps[5:] if p == name)
        out[f"{name} beats"] = len(g)
        out[f"{name} p50 gap ms"] = statistics.median(g) * 1000 if g else 0
        out[f"{name} p99 gap ms"] = g[int(len(g) * 0.99) - 1] * 1000 if g else 0
        out[f"{name} max gap ms"] = g[-1] * 1000 if g else 0
    out["bench IOPS in the app"] = result.average_iops if result else 0
    return out


def headless_iops(conf: str, pool: str, seconds: float, op_size: int) -> float:
    r = run_bench(ConnectionSpec(conffile=conf), BenchParams(pool=pool, seconds=seconds, op_size=op_size))
    return r.average_iops


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conf")
    ap.add_argument("--pool", default="rbd")
    ap.add_argument("--seconds", type=float, default=10)
    args = ap.parse_args()
    with conf_or_sandbox(args.conf, "ctui-resp-", "--port", "7040", "--pool", f"{args.pool}:32") as conf:
        print(f"machine: {os.cpu_count()} cores; heartbeat every {BEAT * 1000:.0f} ms; {args.seconds:g} s runs, "
              f"16 ops in flight")
        for label, size in (("4 KiB", 4096), ("4 MiB", 4 << 20)):
            ref = headless_iops(conf, args.pool, args.seconds, size)
            m = asyncio.run(measure(conf, args.pool, args.seconds, size))
            print(f"\n{label} ops")
            for k, v in m.items():
                print(f"  {k:<28} {v:10.1f}")
            print(f"  {'headless IOPS (reference)':<28} {ref:10.1f}")
            print(f"  {'in-app / headless IOPS':<28} {m['bench IOPS in the app'] / ref if ref else 0:10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
