"""Every bench run, kept as JSON lines in the user's data directory; compare and export.

The file is private (0600): it names pools and hosts. A damaged line (a crash
mid-write, a hand edit) is skipped and counted, never fatal.
"""
from __future__ import annotations

import csv
import io
import json
import os
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cephtui.ceph.bench.results import BenchResult
from cephtui.paths import data_dir

# Columns of the CSV export and of the comparison, in the order an admin reads a rados bench summary.
METRICS: tuple[tuple[str, str, str, bool], ...] = (
    # key, label, unit, higher is better
    ("bandwidth", "Bandwidth", "MiB/s", True),
    ("stddev_bandwidth", "Stddev bandwidth", "MiB/s", False),
    ("max_bandwidth", "Max bandwidth", "MiB/s", True),
    ("min_bandwidth", "Min bandwidth", "MiB/s", True),
    ("average_iops", "Average IOPS", "", True),
    ("stddev_iops", "Stddev IOPS", "", False),
    ("max_iops", "Max IOPS", "", True),
    ("min_iops", "Min IOPS", "", True),
    ("average_latency", "Average latency", "s", False),
    ("stddev_latency", "Stddev latency", "s", False),
    ("latency_p50", "Latency p50", "s", False),
    ("latency_p95", "Latency p95", "s", False),
    ("latency_p99", "Latency p99", "s", False),
    ("latency_p999", "Latency p99.9", "s", False),
    ("max_latency", "Max latency", "s", False),
    ("min_latency", "Min latency", "s", False),
    ("total_time_run", "Total time", "s", False),
    ("ops", "Ops", "", True),
    ("failed_ops", "Failed ops", "", False),
)
CSV_FIELDS = ("started_at", "cluster", "pool", "mode", "threads", "op_size", "object_size", "status",
              *(m[0] for m in METRICS), "error", "cli",
              "kind", "image", "cache")  # block runs added these (and latency_p999)


def default_history_path() -> Path:
    return data_dir() / "bench-history.jsonl"


@dataclass(frozen=True)
class Loaded:
    runs: tuple[BenchResult, ...]
    skipped: int  # damaged lines


class BenchHistory:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_history_path()
        self._lock = threading.Lock()

    def append(self, result: BenchResult) -> None:
        line = json.dumps(result.to_dict(), default=str) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as f:
                f.write(line)

    def load(self) -> Loaded:
        try:
            lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except FileNotFoundError:
            return Loaded((), 0)
        runs: list[BenchResult] = []
        skipped = 0
        for line in lines:
            if not line.strip():
                continue
            try:
                runs.append(BenchResult.from_dict(json.loads(line)))
            except Exception:  # any damage: one bad line must not hide the others
                skipped += 1
        return Loaded(tuple(runs), skipped)


@dataclass(frozen=True)
class Scoped:
    """The runs of one cluster, and how many of the file's other runs are left out."""

    runs: tuple[BenchResult, ...]
    other_clusters: int  # runs with another fsid
    unknown: int  # runs saved without an fsid (the run's connection could not report one)

    def note(self, path: Path) -> str:
        parts = []
        if self.other_clusters:
            parts.append(f"{self.other_clusters} run{'' if self.other_clusters == 1 else 's'} of other clusters")
        if self.unknown:
            parts.append(f"{self.unknown} run{'' if self.unknown == 1 else 's'} without a cluster id")
        return f"not shown: {' and '.join(parts)} (kept in {path})" if parts else ""


def scope(runs: Sequence[BenchResult], fsid: str) -> Scoped:
    """This cluster's runs only. Every run records the fsid of the cluster it measured (`cluster`).

    A run without one is left out too, and counted: it cannot be attributed, and shown beside this
    cluster's runs it would be compared with them (`c` picks the previous run of the same mode) as
    if it were one of them. cephtui has recorded the fsid since the history began, so such a run is
    one whose connection failed before it could report the fsid.
    """
    mine = tuple(r for r in runs if fsid and r.cluster == fsid)
    unknown = sum(1 for r in runs if not r.cluster)
    return Scoped(mine, len(runs) - len(mine) - unknown, unknown)


def result_row(r: BenchResult) -> dict[str, Any]:
    d = r.to_dict()
    return {k: d.get(k, "") if d.get(k) is not None else "" for k in CSV_FIELDS}


def export_csv(runs: Sequence[BenchResult]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_FIELDS))
    w.writeheader()
    for r in runs:
        w.writerow(result_row(r))
    return buf.getvalue()


def export_json(runs: Sequence[BenchResult]) -> str:
    return json.dumps([r.to_dict() for r in runs], indent=2, default=str) + "\n"


def write_export(path: str, text: str) -> Path:
    """Write a new file (never overwrite: O_EXCL), private to the user."""
    p = Path(os.path.expanduser(path.strip()))
    if not path.strip():
        raise ValueError("give a file name")
    if p.exists():
        raise ValueError(f"{p} already exists; choose another name")
    if not p.parent.is_dir():
        raise ValueError(f"{p.parent} is not a directory")
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return p


def pick_pair(runs: Sequence[BenchResult], marked: Collection[str], current: BenchResult | None,
              key: Callable[[BenchResult], str]) -> tuple[BenchResult, BenchResult] | str:
    """Which two runs `c` compares: the last two marked; one marked and the current one; else the current one
    and the run before it of the same mode. A string says why there is no pair."""
    chosen = [r for r in runs if key(r) in marked]
    if len(chosen) >= 2:
        return chosen[-2], chosen[-1]
    if len(chosen) == 1 and current is not None and key(current) not in marked:
        a, b = sorted((chosen[0], current), key=lambda r: r.started_at)
        return a, b
    if current is None:
        return "No runs yet."
    earlier = [r for r in runs if r.started_at < current.started_at and r.params.mode == current.params.mode
               and r.params.kind == current.params.kind]
    return (earlier[-1], current) if earlier else "Mark two runs with space, then c."


@dataclass(frozen=True)
class CompareRow:
    label: str
    unit: str
    a: float
    b: float
    change: float | None  # b relative to a, +0.10 = 10 % more; None when a is 0
    better: bool | None  # is b better than a (None: equal or unknowable)


def compare(a: BenchResult, b: BenchResult) -> list[CompareRow]:
    rows = []
    for key, label, unit, higher_better in METRICS:
        va, vb = float(getattr(a, key)), float(getattr(b, key))
        change = (vb - va) / va if va else None
        better = None if va == vb else (vb > va) == higher_better
        rows.append(CompareRow(label, unit, va, vb, change, better))
    return rows


def comparable(a: BenchResult, b: BenchResult) -> str | None:
    """Why two runs do not measure the same thing (None when they do)."""
    return ", ".join(differences(a, b)) or None


def _setting(r: BenchResult, name: str) -> object:
    return getattr(r.params, name, None)


def differences(a: BenchResult, b: BenchResult) -> list[str]:
    """What differs between the two runs' settings, in words: the kind of run first (a RADOS pool against a
    block image measures a different path), then what either kind sets that changes the numbers."""
    diffs = []
    ka, kb = a.params.kind, b.params.kind
    if ka != kb:
        what = {"rados": "RADOS objects (rados bench)", "rbd": "a block image (rbd bench)"}
        diffs.append(f"kind {what.get(ka, ka)} vs {what.get(kb, kb)}")
    if a.params.mode != b.params.mode:
        diffs.append(f"mode {a.params.mode} vs {b.params.mode}")
    if a.op_size != b.op_size:
        diffs.append(f"op size {a.op_size} vs {b.op_size}")
    if a.params.threads != b.params.threads:
        diffs.append(f"threads {a.params.threads} vs {b.params.threads}")
    if a.params.pool != b.params.pool:
        diffs.append(f"pool {a.params.pool} vs {b.params.pool}")
    # Block runs: the client cache decides what a write's latency means; a side without it (a RADOS run)
    # is shown as "none" (librados has no client cache).
    for name, label in (("cache", "client cache"), ("io_pattern", "pattern"), ("image", "image"),
                        ("rw_mix_read", "read %")):
        va, vb = _setting(a, name), _setting(b, name)
        if name == "image" and (ka != kb or _setting(a, "temporary") or _setting(b, "temporary")):
            continue  # a different kind already says it; temporary images differ by name every run
        if name == "rw_mix_read" and a.params.mode != "readwrite":
            continue
        if va != vb:
            diffs.append(f"{label} {'none' if va is None else va} vs {'none' if vb is None else vb}")
    if ka == kb == "rados" and a.object_size != b.object_size:
        diffs.append(f"object size {a.object_size} vs {b.object_size}")
    return diffs
