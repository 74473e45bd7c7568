#!/usr/bin/env python3
"""Time to first painted health, and the cost of one refresh, against the `ceph` CLI in the same run.

    .venv/bin/python scripts/bench_startup.py [--conf CONF] [--runs 5]

Without --conf it starts (and afterwards stops) its own sandbox cluster.
  first paint   `cephtui` launched in tmux until the screen shows HEALTH_  vs  `ceph -s` wall time
  refresh       one SnapshotBuilder.build() (what every tick costs)        vs  `ceph -s` wall time
                and vs one bare `status` mon command on the same handle (the floor)
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient, ConnectionSpec  # noqa: E402
from cephtui.ceph.snapshot import SnapshotBuilder  # noqa: E402

CEPHTUI = str(ROOT / ".venv" / "bin" / "cephtui")


def ceph_s(conf: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["ceph", "-c", conf, "-s"], check=True, capture_output=True)
    return time.perf_counter() - t0


def first_paint(conf: str) -> float:
    session = f"ctbench{time.monotonic_ns()}"
    t0 = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "48", CEPHTUI, "-c", conf],
                   check=True)
    try:
        while True:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True,
                                    text=True).stdout
            if "HEALTH_" in screen:
                return time.perf_counter() - t0
            if time.perf_counter() - t0 > 20:
                raise SystemExit("cephtui did not paint health within 20 s:\n" + screen)
            time.sleep(0.01)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def bench(conf: str, runs: int) -> None:
    paint = [first_paint(conf) for _ in range(runs)]
    cli = [ceph_s(conf) for _ in range(runs)]
    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    try:
        builder = SnapshotBuilder(client)
        builder.build(pg_table=True)  # warm the epoch caches, as a running app has them
        refresh, refresh_pgs, floor = [], [], []
        for _ in range(30):
            t0 = time.perf_counter()
            builder.build()
            refresh.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            builder.build(pg_table=True)
            refresh_pgs.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            client.mon("status")
            floor.append(time.perf_counter() - t0)
    finally:
        client.close()
    m = statistics.median
    print(f"median of {runs} launches / 30 refreshes; reference measured in this run")
    print(f"  ceph -s (process)                      {ms(m(cli))}")
    print(f"  cephtui start -> health painted        {ms(m(paint))}   ratio to ceph -s {m(paint) / m(cli):.2f}")
    print(f"  refresh (one snapshot)                 {ms(m(refresh))}   ratio to ceph -s {m(refresh) / m(cli):.3f}"
          f"   to one status command {m(refresh) / m(floor):.1f}")
    print(f"  refresh with the PG table              {ms(m(refresh_pgs))}   ratio to ceph -s "
          f"{m(refresh_pgs) / m(cli):.3f}")
    print(f"  one status mon command (same handle)   {ms(m(floor))}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conf")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    if args.conf:
        bench(args.conf, args.runs)
        return 0
    d = tempfile.mkdtemp(prefix="ctbench-", dir="/tmp")
    sandbox = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]
    conf = subprocess.run([*sandbox, "start", d, "--pool", "rbd:32"], check=True, capture_output=True,
                          text=True).stdout.strip()
    try:
        bench(conf, args.runs)
    finally:
        subprocess.run([*sandbox, "stop", d, "--purge"], capture_output=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
