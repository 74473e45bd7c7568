"""Checksummed objects and a drain timeline: what the removal tests and scripts/drain_timeline.py share.

The objects are written with random content and their SHA-256 kept, so a test can prove that every object
reads back intact after a removal or replacement.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

CEPH_QUIET = {"log_to_stderr": "false", "err_to_stderr": "false"}
INACTIVE = ("peering", "activating", "unknown", "down", "incomplete", "stale", "inactive")


def fill(conf: Path, pool: str, count: int, size: int = 4096, prefix: str = "ck") -> dict[str, str]:
    """Write `count` objects of random bytes (16 in flight); return name -> sha256."""
    import rados

    sums: dict[str, str] = {}
    r = rados.Rados(conffile=str(conf), conf=CEPH_QUIET)
    r.connect(timeout=10)
    try:
        with r.open_ioctx(pool) as io:
            pending = []
            for i in range(count):
                data = os.urandom(size)
                name = f"{prefix}-{i}"
                sums[name] = hashlib.sha256(data).hexdigest()
                pending.append(io.aio_write_full(name, data))
                if len(pending) >= 16:
                    for c in pending:
                        c.wait_for_complete()
                    pending.clear()
            for c in pending:
                c.wait_for_complete()
    finally:
        r.shutdown()
    return sums


def verify(conf: Path, pool: str, sums: dict[str, str], size: int = 4096) -> list[str]:
    """The objects that do not read back with their checksum (empty when all are intact)."""
    import rados

    bad = []
    r = rados.Rados(conffile=str(conf), conf={**CEPH_QUIET, "rados_osd_op_timeout": "30"})
    r.connect(timeout=10)
    try:
        with r.open_ioctx(pool) as io:
            for name, want in sums.items():
                try:
                    got = hashlib.sha256(io.read(name, size + 1)).hexdigest()
                except rados.Error:
                    got = "unreadable"
                if got != want:
                    bad.append(name)
    finally:
        r.shutdown()
    return bad


def stops(box: Path) -> list[dict[str, Any]]:
    """What tests/cluster/stop_recorder.py saw at each stop."""
    p = box / "stops.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []


def clean(pg_stat: dict[str, Any]) -> bool:
    """`ceph pg stat -f json`: every PG active+clean, nothing degraded or misplaced."""
    summary = pg_stat.get("pg_summary", pg_stat)
    states = {s["name"]: s["num"] for s in summary.get("num_pg_by_state", [])}
    return (set(states) == {"active+clean"} and not summary.get("degraded_objects")
            and not summary.get("misplaced_objects"))


def timeline(log: list[dict[str, Any]], t0: float | None = None) -> str:
    """A removal's log as `+SS.s  step  text  $ cli` lines."""
    t0 = t0 if t0 is not None else (log[0]["time"] if log else time.time())
    return "\n".join(f"+{e['time'] - t0:6.1f}s  {e['step']:<9} {e['text']}" + (f"   $ {e['cli']}" if e.get("cli")
                                                                                 else "") for e in log)


class ClusterWatch:
    """`ceph -w` lines and `pg dump pgs_brief` samples, each with its time, until stopped."""

    def __init__(self, conf: Path) -> None:
        self.log: list[tuple[float, str]] = []
        self.inactive: list[tuple[float, dict[str, int]]] = []  # samples with any PG not active
        self.samples = 0
        self.ups: list[tuple[float, dict[str, tuple[int, ...]]]] = []  # each sample's up set per PG
        self._stop = threading.Event()
        self._proc = subprocess.Popen(["ceph", "-c", str(conf), "-w"], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True,
                                      env={**os.environ, "PYTHONUNBUFFERED": "1"})  # each line as it comes
        from cephtui.ceph.client import CephClient
        from cephtui.ceph.connection import ConnectionSpec

        self._client = CephClient(ConnectionSpec(conffile=str(conf), op_timeout=10)).connect()
        self._threads = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._sample, daemon=True)]
        for t in self._threads:
            t.start()

    def _read(self) -> None:
        for line in self._proc.stdout or ():
            self.log.append((time.time(), line.rstrip()))

    def _sample(self) -> None:
        while not self._stop.is_set():
            try:
                dump = self._client.mgr("pg dump", dumpcontents=["pgs_brief"])
            except Exception:  # a sample the mgr could not answer: no reading, not a failure
                dump = None
            stats = dump.get("pg_stats", dump.get("pg_map", {}).get("pg_stats", [])) if isinstance(dump, dict) \
                else dump or []
            if stats:
                self.samples += 1
                self.ups.append((time.time(), {str(pg.get("pgid")): tuple(pg.get("up") or ()) for pg in stats}))
                bad: dict[str, int] = {}
                for pg in stats:
                    if any(s in INACTIVE for s in str(pg.get("state", "")).split("+")):
                        bad[pg["state"]] = bad.get(pg["state"], 0) + 1
                if bad:
                    self.inactive.append((time.time(), bad))
            self._stop.wait(0.5)

    def stop(self) -> None:
        self._stop.set()
        self._proc.terminate()  # the `ceph -w` this test started, by its pid
        self._proc.wait(timeout=30)
        for t in self._threads:
            t.join(timeout=30)
        self._client.close()

    def remapped(self, before: float, after: float) -> list[str]:
        """PGs whose up set differs between the last sample before `before` and the last one before `after`:
        what moved in between (PG stats lag by up to the stats period, so leave it a margin)."""
        old = [u for t, u in self.ups if t < before]
        new = [u for t, u in self.ups if t < after]
        if not old or not new:
            return []
        return sorted(pg for pg, up in new[-1].items() if old[-1].get(pg) not in (None, up))

    def availability(self, since: float, until: float) -> list[str]:
        return [line for t, line in self.log if since <= t <= until and "PG_AVAILABILITY" in line]
