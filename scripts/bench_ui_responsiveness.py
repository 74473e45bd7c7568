#!/usr/bin/env python3
"""Does the UI stay responsive while the Bench tab runs 4 KiB ops? A benchmark, not a test.

    .venv/bin/python scripts/bench_ui_responsiveness.py [--conf CONF] [--pool rbd] [--seconds 10]
        [--rounds 1] [--engine worker|thread|both]

Runs the real app headless (App.run_test) on the Bench tab with a 20 ms heartbeat
timer, first idle, then during a bench run (4 KiB and 4 MiB ops, 16 in flight), and
prints the heartbeat gaps (a gap of 20 ms means no stall) and, for reference, the
same bench's throughput when run headless without the UI. Starts its own sandbox
cluster unless --conf is given.

--engine: where the engine runs. `worker` (what cephtui does: its own process, bench/worker.py),
`thread` (as before the worker: a thread of the UI's own process, sharing its GIL), or `both`,
alternating within each round, so that the two are measured in the same run on the same cluster.
"""
from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from capturelib import conf_or_sandbox  # noqa: E402  (scripts/, on the path when run as a script)

from cephtui.ceph.bench.blockparams import BlockParams  # noqa: E402
from cephtui.ceph.bench.engine import run_bench  # noqa: E402
from cephtui.ceph.bench.params import BenchParams  # noqa: E402
from cephtui.ceph.bench.remote import run_remote  # noqa: E402
from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ui.panes.bench import BenchPane  # noqa: E402

BEAT = 0.02
BLOCK_REF_IOPS = 1500  # sizes native rbd bench's --io-total to last about as long as the run (cache off, here)


async def measure(conf: str, pool: str, seconds: float, op_size: int, engine: str = "worker",
                  block: bool = False) -> dict[str, float]:
    from cephtui.ceph.bench import service
    from cephtui.ui.app import CephTUI

    # "thread": the engine in this process, as before the worker existed (service.BenchRun's one line)
    service.run_remote = run_bench if engine == "thread" else run_remote  # type: ignore[assignment]
    os.environ["CEPHTUI_BENCH_NICE"] = "10" if engine == "nice" else ""

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
        if block:  # native rbd bench on an image of its own, cache off, for about as long
            image = f"{pool}/resp-{os.getpid()}"
            await (await asyncio.create_subprocess_exec("rbd", "-c", conf, "create", "--size", "256M", image)).wait()
            proc = await asyncio.create_subprocess_exec(
                "rbd", "-c", conf, "bench", "--io-type", "write", "--io-pattern", "rand", "--io-size", str(op_size),
                "--io-threads", "16", "--io-total", str(int(BLOCK_REF_IOPS * seconds * op_size)), image,
                env={**os.environ, "CEPH_ARGS": "--rbd_cache=false"},
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            await proc.wait()
            await (await asyncio.create_subprocess_exec("rbd", "-c", conf, "rm", "--no-progress", image,
                                                        stderr=asyncio.subprocess.DEVNULL)).wait()
        else:
            proc = await asyncio.create_subprocess_exec(
                "rados", "-c", conf, "-p", pool, "bench", str(int(seconds)), "write", "-t", "16", "-b", str(op_size),
                "--no-hints", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            await proc.wait()
        phase[0] = "idle2"
        await pilot.pause(2)
        pane = app.pane(BenchPane)
        phase[0] = "bench"
        cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
        if block:  # a temporary image, random writes, cache off, for `seconds`
            pane._start(BlockParams(pool=pool, temp_image_size=256 << 20, io_type="write", io_pattern="rand",
                                    io_size=op_size, io_threads=16, io_total=1 << 40, seconds=seconds), True)
        else:
            pane._start(BenchParams(pool=pool, seconds=seconds, op_size=op_size), False)
        t0 = time.monotonic()
        busy = lambda: pane.engine is not None or pane.phase or pane.last_result is None  # noqa: E731
        # A plain sleep, not pilot.pause(): a pause walks the whole DOM and messages every widget, work
        # the real app never does, which the idle phase did not pay (it inflated the bench's p99 by ~15 ms).
        while busy() and time.monotonic() - t0 < seconds + 60:
            await asyncio.sleep(0.2)
        result = pane.last_result
        cpu1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    client.close()
    out: dict[str, float] = {}
    for name in ("idle", "native", "bench"):
        g = sorted(x for x, p in gaps[5:] if p == name)
        out[f"{name} beats"] = len(g)
        out[f"{name} p50 gap ms"] = statistics.median(g) * 1000 if g else 0
        out[f"{name} p99 gap ms"] = g[int(len(g) * 0.99) - 1] * 1000 if g else 0
        out[f"{name} max gap ms"] = g[-1] * 1000 if g else 0
    out["bench IOPS in the app"] = result.average_iops if result else 0
    # The UI's own process (its threads, not the worker's): what the engine no longer adds to the UI's GIL
    used = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    out["UI process CPU % of a core"] = 100 * used / (wall1 - wall0)
    return out


def headless_iops(conf: str, pool: str, seconds: float, op_size: int) -> float:
    r = run_bench(ConnectionSpec(conffile=conf), BenchParams(pool=pool, seconds=seconds, op_size=op_size))
    return r.average_iops


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conf")
    ap.add_argument("--pool", default="rbd")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--engine", default="worker", help="worker, thread, nice, both (worker and thread), "
                    "or several, comma-separated")
    ap.add_argument("--sizes", default="4K,4M,rbd4K",
                    help="runs, comma-separated: 4K, 4M (RADOS writes), rbd4K (block: 4 KiB random writes to a "
                         "temporary image, cache off)")
    args = ap.parse_args()
    # The app under test saves each run to its bench history, its audit log and its state: into a directory
    # of this script's, not the user's (a dozen rows of measurement runs showed up in a real Bench tab).
    scratch = tempfile.mkdtemp(prefix="ctui-resp-home-")
    atexit.register(shutil.rmtree, scratch, True)
    for var, sub in (("CEPHTUI_STATE_DIR", "state"), ("CEPHTUI_DATA_DIR", "data"), ("CEPHTUI_AUDIT_LOG", "audit.log")):
        os.environ[var] = os.path.join(scratch, sub)
    engines = {"both": ["worker", "thread"]}.get(args.engine, args.engine.split(","))
    if set(engines) - {"worker", "thread", "nice"}:
        ap.error(f"unknown engine(s) {sorted(set(engines) - {'worker', 'thread', 'nice'})}")
    names = {"4K": "4 KiB", "4M": "4 MiB", "rbd4K": "rbd 4 KiB rand"}
    sizes = [(names[s], {"4K": 4096, "4M": 4 << 20, "rbd4K": 4096}[s]) for s in args.sizes.split(",")]
    with conf_or_sandbox(args.conf, "ctui-resp-", "--port", "7040", "--pool", f"{args.pool}:32") as conf:
        print(f"machine: {os.cpu_count()} cores; heartbeat every {BEAT * 1000:.0f} ms; {args.seconds:g} s runs, "
              f"16 ops in flight; engine {', '.join(engines)}; {args.rounds} round(s)")
        table: dict[tuple[str, str], list[dict[str, float]]] = {}
        for rnd in range(args.rounds):
            order = engines if rnd % 2 == 0 else engines[::-1]  # alternate which goes first
            for label, size in sizes:
                block = label.startswith("rbd")
                ref = 0.0 if block else headless_iops(conf, args.pool, args.seconds, size)
                for engine in order:
                    m = asyncio.run(measure(conf, args.pool, args.seconds, size, engine, block))
                    m["headless IOPS (reference)"] = ref
                    m["in-app / headless IOPS"] = m["bench IOPS in the app"] / ref if ref else 0
                    m["bench p99 - idle p99 ms"] = m["bench p99 gap ms"] - m["idle p99 gap ms"]
                    table.setdefault((label, engine), []).append(m)
                    print(f"\nround {rnd + 1}, {label} ops, engine {engine}")
                    for k, v in m.items():
                        print(f"  {k:<28} {v:10.1f}")
        if args.rounds > 1 or len(engines) > 1:
            print("\nmedians over the rounds: idle p99, native p99, bench p99, bench - idle (ms), in-app/headless, "
                  "UI process CPU %")
            for (label, engine), ms in table.items():
                med = {k: statistics.median(m[k] for m in ms) for k in ms[0]}
                print(f"  {label} {engine:<6} {med['idle p99 gap ms']:7.1f} {med['native p99 gap ms']:7.1f} "
                      f"{med['bench p99 gap ms']:7.1f} {med['bench p99 - idle p99 ms']:+7.1f} "
                      f"{med['in-app / headless IOPS']:7.2f} {med['UI process CPU % of a core']:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
