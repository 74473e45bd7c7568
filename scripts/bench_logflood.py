#!/usr/bin/env python3
"""Does the UI keep up with a flooding cluster log, and is every line it cannot show counted?

    .venv/bin/python scripts/bench_logflood.py [--conf CONF] [--seconds 10] [--threads 32]

Runs the real app headless (App.run_test) on the Health tab with a 20 ms heartbeat
timer: first idle (the baseline, same run), then while other clients flood the
cluster log with `ceph log` commands, then a few quiet seconds. Prints lines/s
offered, received by the subscription, written to the Health pane, dropped (the
count the pane shows), and the heartbeat gaps (20 ms = no stall) idle vs flood.
Also times the librados log callback itself, against the previous implementation.

The mon turns each `log` command into one entry (its strings are joined with spaces)
and commits the log through paxos every paxos_propose_interval (1 s): with the
default, a client injects a few dozen lines a second. So for the flood the sandbox
mon gets paxos_propose_interval 0.01 (restored afterwards). Starts its own sandbox
unless --conf is given; loopback only.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402

BEAT = 0.02


class LogFlooder:
    """Threads sending `ceph log` commands through their own librados handle until stopped."""

    def __init__(self, conf: str, threads: int = 32, tag: str = "flood") -> None:
        import rados

        self.rados = rados.Rados(conffile=conf, conf={"log_to_stderr": "false", "err_to_stderr": "false"})
        self.rados.connect(timeout=10)
        self.threads = threads
        self.tag = tag
        self.sent = 0
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._workers: list[threading.Thread] = []
        self._lock = threading.Lock()
        self.started_at = self.stopped_at = 0.0

    def _work(self, k: int) -> None:
        i = 0
        while not self._stop.is_set():
            cmd = json.dumps({"prefix": "log", "logtext": [f"{self.tag} {k}-{i}"]})
            ret, _, outs = self.rados.mon_command(cmd, b"")
            if ret != 0:
                self.errors.append(f"{ret} {outs}")
                return
            with self._lock:
                self.sent += 1
            i += 1

    def start(self) -> LogFlooder:
        self.started_at = time.monotonic()
        self._workers = [threading.Thread(target=self._work, args=(k,), daemon=True) for k in range(self.threads)]
        for t in self._workers:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for t in self._workers:
            t.join(timeout=30)
        self.stopped_at = time.monotonic()
        self.rados.shutdown()


class FloodProcess:
    """The flooder in a process of its own, like the other clients of a real cluster: its threads
    must not compete with the UI for this process's GIL. Prints the lines sent when stopped."""

    def __init__(self, conf: str, threads: int = 32, tag: str = "flood") -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--flood-only", "--conf", conf, "--threads",
                                      str(threads), "--tag", tag], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        self.started_at = time.monotonic()
        self.stopped_at = 0.0
        self.sent = 0
        self.errors = 0

    def stop(self) -> None:
        out, _ = self.proc.communicate("stop\n", timeout=60)  # closes stdin: the child stops sending
        self.stopped_at = time.monotonic()
        sent, errors = (out.split() + ["0", "0"])[:2]
        self.sent, self.errors = int(sent), int(errors)


def _flood_only(conf: str, threads: int, tag: str) -> int:
    f = LogFlooder(conf, threads, tag).start()
    sys.stdin.read()  # until the parent says stop (or dies)
    f.stop()
    print(f.sent, len(f.errors), flush=True)
    return 0


def fast_paxos(conf: str, on: bool) -> None:
    base = ["ceph", "-c", conf, "--connect-timeout", "10", "config"]
    if on:
        subprocess.run(base + ["set", "mon", "paxos_propose_interval", "0.01"], check=True, capture_output=True)
        subprocess.run(base + ["set", "mon", "paxos_min_wait", "0.001"], check=True, capture_output=True)
    else:
        subprocess.run(base + ["rm", "mon", "paxos_propose_interval"], capture_output=True)
        subprocess.run(base + ["rm", "mon", "paxos_min_wait"], capture_output=True)


def gap_stats(gaps: list[float]) -> dict[str, float]:
    g = sorted(gaps)
    if not g:
        return {"beats": 0, "p50 ms": 0, "p99 ms": 0, "max ms": 0}
    return {"beats": len(g), "p50 ms": statistics.median(g) * 1000, "p99 ms": g[max(int(len(g) * 0.99) - 1, 0)] * 1000,
            "max ms": g[-1] * 1000}


async def measure(conf: str, seconds: float, threads: int, idle: float) -> dict[str, Any]:
    from cephtui.ui.app import CephTUI

    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    app = CephTUI(client=client, refresh=1.0)
    gaps: dict[str, list[float]] = {"idle": [], "flood": [], "after": []}
    phase = ["warmup"]
    out: dict[str, Any] = {}
    async with app.run_test(size=(160, 48)) as pilot:
        last = [time.monotonic()]

        def beat() -> None:
            now = time.monotonic()
            if phase[0] in gaps:
                gaps[phase[0]].append(now - last[0])
            last[0] = now
        app.set_interval(BEAT, beat)
        while app.snapshot is None:
            await pilot.pause(0.2)
        await asyncio.sleep(2)
        phase[0] = "idle"
        await asyncio.sleep(idle)
        from cephtui.ui.panes.health import HealthPane

        pane = app.query_one(HealthPane)
        log = app.cluster_log
        r0, w0 = log.received, pane.log_written
        flooder = FloodProcess(conf, threads)
        cost: list[float] = []
        append = pane._append_log

        def timed(snap: Any) -> None:
            t0 = time.perf_counter()
            append(snap)
            cost.append(time.perf_counter() - t0)
        pane._append_log = timed  # type: ignore[method-assign]
        phase[0] = "flood"
        await asyncio.sleep(seconds)
        flooder.stop()
        r1, w1 = log.received, pane.log_written
        snap1 = app.snapshot
        phase[0] = "after"
        await asyncio.sleep(3)  # the last lines drained and shown
        flood_s = flooder.stopped_at - flooder.started_at
        snap = app.snapshot
        assert snap is not None and snap1 is not None
        dropped = snap.log_dropped + pane._log_missed
        out = {
            "flood seconds": flood_s,
            "lines offered/s (log commands acked)": flooder.sent / flood_s,
            "lines received/s (subscription)": (r1 - r0) / flood_s,
            "lines shown/s (written to the pane)": (w1 - w0) / flood_s,
            "dropped (the pane's count)": dropped,
            "  of which pushed out of ClusterLog's queue": log.dropped,
            "  of which over LOG_KEEP in one poll": snap.log_dropped - log.dropped,
            "  of which over the pane's per-refresh cap": pane._log_missed,
            "received - shown - dropped (0 = all counted)": log.received - pane.log_written - dropped,
            "flood errors": flooder.errors,
            "pane: log lines rendered per refresh, ms mean": statistics.mean(cost) * 1000 if cost else 0,
            "pane: log lines rendered per refresh, ms max": max(cost) * 1000 if cost else 0,
            "border title": str(pane.query_one("#health-log").border_title),
        }
    client.close()
    for name, g in gaps.items():
        for k, v in gap_stats(g[3:]).items():
            out[f"UI heartbeat {name} {k}"] = v
    return out


def callback_cost(n: int = 200_000) -> dict[str, float]:
    """µs per librados log callback: the previous one (decode, datetime, LogEntry, lock) and the current one."""
    from cephtui.ceph.snapshot.clusterlog import ClusterLog
    from cephtui.ceph.snapshot.models import LogEntry

    pending: Any = __import__("collections").deque(maxlen=1000)
    lock = threading.Lock()

    def _s(v: Any) -> str:
        return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)

    def old(_a: Any, _l: Any, channel: Any, name: Any, _w: Any, sec: int, nsec: int, seq: int, level: Any,
            msg: Any) -> None:
        channel = _s(channel)
        if channel != "cluster":
            return
        stamp = datetime.fromtimestamp(sec + nsec / 1e9, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+0000")
        e = LogEntry(stamp=stamp, name=_s(name), channel=channel, priority=_s(level), message=_s(msg), seq=seq)
        with lock:
            pending.append(e)

    new = ClusterLog(None, keep=1000)._on_entry  # type: ignore[arg-type]
    args = (None, b"x", b"cluster", b"client.admin", b"client.? 127.0.0.1:0/1", 1_700_000_000, 5, 0, b"[INF]",
            b"flood 12-3456")
    audit = args[:2] + (b"audit",) + args[3:]
    res = {}
    for label, fn in (("previous", old), ("current", new)):
        for chan, a in (("cluster", args), ("audit", audit)):
            t0 = time.perf_counter()
            for _ in range(n):
                fn(*a)
            res[f"callback µs/entry, {label}, {chan} channel"] = (time.perf_counter() - t0) / n * 1e6
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conf")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--idle", type=float, default=5)
    ap.add_argument("--threads", type=int, default=32)
    ap.add_argument("--flood-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tag", default="flood", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.flood_only:
        return _flood_only(args.conf, args.threads, args.tag)
    from capturelib import conf_or_sandbox  # scripts/: on the path when run as a script (tests import this module)

    with conf_or_sandbox(args.conf, "ctui-flood-", "--pool", "rbd:32") as conf:
        print(f"machine: {os.cpu_count()} cores; heartbeat every {BEAT * 1000:.0f} ms; idle {args.idle:g} s, "
              f"then {args.threads} threads send `ceph log` for {args.seconds:g} s")
        for k, v in callback_cost().items():
            print(f"  {k:<52} {v:10.2f}")
        fast_paxos(conf, True)
        try:
            m = asyncio.run(measure(conf, args.seconds, args.threads, args.idle))
        finally:
            fast_paxos(conf, False)
        for k, v in m.items():
            print(f"  {k:<52} {v:10.1f}" if isinstance(v, (int, float)) else f"  {k:<52} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
