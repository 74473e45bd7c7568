"""Checksummed objects and a drain timeline: what the removal tests and scripts/drain_timeline.py share.

The objects are written with random content and their SHA-256 kept, so a test can prove that every object
reads back intact after a removal or replacement.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

CEPH_QUIET = {"log_to_stderr": "false", "err_to_stderr": "false"}


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
