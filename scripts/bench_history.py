#!/usr/bin/env python3
"""The history store at scale: its size for a 5,000-OSD cluster over a month, and the UI's smoothness
while it records and draws that history.

    .venv/bin/python scripts/bench_history.py [--osds 5000] [--days 30] [--seconds 60] [--pgs 200000]
                                              [--file PATH] [--no-ui]

Part 1, size (one process): a history file as `cephtui record` leaves it after --days days on a cluster
of --osds OSDs. Tiers 1 (1-min means, a day) and 2 (10-min means, the days) are inserted as packed rows
directly (byte-identical to store.pack_osd, checked on a frame), since writing a month through the
recorder would take a month; the last hour, tier 0, goes through HistoryStore.write() as the recorder
does, each write timed (the rollups into tiers 1 and 2 happen inside those writes). Per-OSD frames: base
commit/apply latency 0.5-8 ms per OSD with noise and a daily load swing, a few slow OSDs (25-60 ms), the
scale recording's down OSDs without latency, used fraction 0.3-0.85 drifting slowly; cluster metrics with
PG state counts; 20 pools. Printed: the file size (+WAL), bytes per OSD per frame per tier, the size
projected to a full tier 2 (31 days), and the reference: the same frames as one row per value in a
plain (t, osd, metric, value) SQLite table, measured on a sample of frames and extrapolated. Then the
reads the tabs do, against references in the same run.

Part 2, UI heartbeat (a fresh process per measurement, as scripts/bench_scale.py does): the whole app
headless (run_test, 160x48) on the 5,000-OSD / 200,000-PG recording of scripts/gen_scale_fixtures.py,
no polling (refresh=3600, so the only work that differs is the history's), a 20 ms heartbeat timer on
the UI thread. With history: `app.history.store` is the part-1 file and a writer thread writes a
5,000-OSD sample every second through its own HistoryStore on the same file (five times the recorder's
rate: each write is a new 5-s bucket, its clock running from the file's newest sample toward now). The
OSDs tab is shown (the 5,000-OSD trend read every INTERVAL and drawn), then the Health tab. Reference,
same run: the same app and tabs with no history source and no writer.

Nothing is asserted: every number is printed next to its reference.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))  # gen_scale_fixtures, by import, not copied

from gen_scale_fixtures import down_osds, generate  # noqa: E402

from cephtui.ceph.history.model import INTERVAL, TIERS, OsdFrame, Sample  # noqa: E402
from cephtui.ceph.history.store import (  # noqa: E402
    LAT_SCALE,
    MISSING,
    USED_SCALE,
    HistoryStore,
    _pack_json,
    pack_osd,
)

BUDGET_MIB = 256.0
POOLS = 20
LEAD = 120  # the tier-0 hour ends this long before part 1 starts: part 2's writer then catches up to now
SLOW_EVERY = 1000  # one OSD in each thousand is slow (a failing disk), at least three
MIB = 2**20


def ms(seconds: float) -> float:
    return seconds * 1000


def pct(xs: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank: a p99 over 60 s of 20-ms beats is its 30th-worst gap."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


# ----------------------------------------------------------------------------- the synthetic cluster
class Cluster:
    """A deterministic model of the cluster's series: the same seed gives the same frames in every process
    (part 2's writer continues what part 1 wrote)."""

    def __init__(self, osds: int, origin: float, seed: int = 11) -> None:
        rng = random.Random(seed)
        self.origin = origin  # the recording's first day: usage drifts from there
        self.n = osds
        self.ids = list(range(osds))
        self.ids_bytes = array("i", self.ids).tobytes()
        self.down = down_osds(osds)  # the scale recording's down OSDs: `osd perf` has nothing for them
        self.base = [rng.uniform(0.5, 8.0) for _ in self.ids]  # ms
        for i in rng.sample(self.ids, max(3, osds // SLOW_EVERY)):
            self.base[i] = rng.uniform(25.0, 60.0)
        self.apply_k = [rng.uniform(0.9, 1.1) for _ in self.ids]  # apply close to commit, not equal
        self.used0 = [rng.uniform(0.3, 0.8) for _ in self.ids]
        self.drift = [rng.uniform(-0.0005, 0.0015) for _ in self.ids]  # per day: 0.3-0.85 holds for a month
        # Noise: one pool of normal deviates, read at a random offset per frame (a random call per value
        # would make part 1 minutes longer). exp(sigma*g): a lognormal factor; a tier's mean over k samples
        # has sigma/sqrt(k), so coarser tiers are smoother, as their means are.
        pool = [rng.gauss(0.0, 1.0) for _ in range((1 << 16) + 2 * osds)]
        self.noise = {tier: [math.exp(max(-3.0, min(3.0, g)) * sigma) for g in pool]
                      for tier, sigma in ((0, 0.35), (1, 0.35 / math.sqrt(12)), (2, 0.35 / math.sqrt(120)))}
        self.rng = rng

    @staticmethod
    def load(t: float) -> float:
        """Cluster-wide latency factor: a daily swing (busier in the day) and a weekly batch hour."""
        day = 1.0 + 0.3 * math.sin(2 * math.pi * t / 86400)
        return day * (1.6 if t % (7 * 86400) < 3600 else 1.0)

    def _lat_q(self, t: float, tier: int, k: list[float] | None) -> list[int]:
        """Latency in packed units (LAT_SCALE), MISSING for down OSDs. Tier 0 is whole ms, as `osd perf`
        says them; a rollup's mean has tenths."""
        e = self.noise[tier]
        off = self.rng.randrange(len(e) - 2 * self.n)
        f = self.load(t)
        down = self.down
        if tier == 0:
            vals = [int(b * f * e[off + i] + 0.5) * LAT_SCALE for i, b in enumerate(self.base)]
        else:
            vals = [min(int(b * f * e[off + i] * LAT_SCALE + 0.5), MISSING - 1) for i, b in enumerate(self.base)]
        if k is not None:
            vals = [min(int(v * a + 0.5), MISSING - 1) for v, a in zip(vals, k)]
        for i in down:
            vals[i] = MISSING
        return vals

    def _used_q(self, t: float) -> list[int]:
        d = (t - self.origin) / 86400
        return [min(int((u + r * d) * USED_SCALE + 0.5), USED_SCALE) for u, r in zip(self.used0, self.drift)]

    def osd_columns(self, t: float, tier: int) -> tuple[list[int], list[int], list[int]]:
        commit = self._lat_q(t, tier, None)
        apply = [MISSING if c == MISSING else min(int(c * a + 0.5), MISSING - 1) for c, a in zip(commit, self.apply_k)]
        # `osd df` is asked once a minute: tier 0 keeps the last minute's usage
        return commit, apply, self._used_q(t // 60 * 60 if tier == 0 else t)

    def packed(self, t: float, tier: int) -> bytes:
        """What pack_osd makes of this frame, without building three 5,000-key dicts for it."""
        cols = self.osd_columns(t, tier)
        return zlib.compress(b"".join([array("I", [self.n]).tobytes(), self.ids_bytes,
                                       *(array("H", c).tobytes() for c in cols)]), 6)

    def frame(self, t: float, tier: int = 0) -> OsdFrame:
        commit, apply, used = self.osd_columns(t, tier)
        return OsdFrame(t=t, commit_ms={i: v / LAT_SCALE for i, v in enumerate(commit) if v != MISSING},
                        apply_ms={i: v / LAT_SCALE for i, v in enumerate(apply) if v != MISSING},
                        used={i: v / USED_SCALE for i, v in enumerate(used)})

    def cluster(self, t: float) -> dict[str, float]:
        f = self.load(t) * self.rng.uniform(0.8, 1.2)
        pgs = 40 * self.n
        states = {"active+clean": 0.0, "active+clean+scrubbing": pgs * 0.005 * self.rng.uniform(0.5, 1.5),
                  "active+clean+scrubbing+deep": pgs * 0.002 * self.rng.uniform(0.5, 1.5),
                  "active+undersized+degraded": float(len(self.down) * 120),
                  "active+remapped+backfill_wait": pgs * 0.002 * self.rng.uniform(0.0, 1.0)}
        states["active+clean"] = pgs - sum(states.values())
        out = {"read_bps": 2.1e9 * f, "write_bps": 9.0e8 * f, "read_ops": 41000 * f, "write_ops": 17000 * f,
               "recovering_bps": 3.0e7 * self.rng.random(), "recovering_objects_ps": 8.0 * self.rng.random(),
               "degraded_objects": 1.2e6 + 1e4 * self.rng.random(), "misplaced_objects": 3.0e4 * self.rng.random(),
               "unfound_objects": 0.0, "pgs": float(pgs), "pgs_active_clean": states["active+clean"],
               "osds": float(self.n), "osds_up": float(self.n - len(self.down)), "osds_in": float(self.n)}
        out.update({f"pg_state:{k}": v for k, v in states.items()})
        return out

    def pools(self, t: float) -> dict[str, dict[str, float]]:
        f = self.load(t)
        return {f"pool{p:02d}": {"read_bps": 1e8 * f * self.rng.random(), "write_bps": 4e7 * f * self.rng.random(),
                                 "read_ops": 2000 * f * self.rng.random(), "write_ops": 800 * f * self.rng.random()}
                for p in range(POOLS)}

    def sample(self, t: float) -> Sample:
        checks = {"OSD_DOWN": ("HEALTH_WARN", f"{len(self.down)} osds down"),
                  "PG_DEGRADED": ("HEALTH_WARN", "Degraded data redundancy")}
        return Sample(t=t, fsid="bench", cluster=self.cluster(t), osd=self.frame(t), pools=self.pools(t),
                      checks=checks)


# ----------------------------------------------------------------------------- part 1: size and reads
def fill_old_tiers(path: Path, model: Cluster, end: int, days: int) -> dict[str, int]:
    """Tiers 2 and 1 as a month of recording leaves them, up to where the tier-0 hour begins."""
    HistoryStore(path).close()  # the schema, as the store makes it
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    counts = {}
    hour = end - TIERS[0][1]
    for tier, first in ((2, end - days * 86400), (1, end - TIERS[1][1])):
        step = TIERS[tier][0]
        ts = range(int(first // step * step), int(hour // step * step), step)
        db.execute("BEGIN")
        for k, t in enumerate(ts):
            db.executemany("INSERT INTO frames VALUES(?, ?, ?, ?)",
                           [(tier, "osd", t, model.packed(t, tier)), (tier, "cluster", t, _pack_json(model.cluster(t))),
                            (tier, "pools", t, _pack_json(model.pools(t)))])
            if k % 500 == 499:
                db.execute("COMMIT")
                db.execute("BEGIN")
                print(f"  tier {tier}: {k + 1}/{len(ts)} frames", file=sys.stderr)
        db.execute("COMMIT")
        counts[f"tier{tier}"] = len(ts)
    db.close()
    return counts


def write_hour(store: HistoryStore, model: Cluster, end: int) -> tuple[list[float], list[float]]:
    """The last hour through HistoryStore.write(), as the recorder writes it: wall and CPU ms per write (the
    CPU time is this thread's: on a shared machine the wall time also holds other processes' turns)."""
    wall, cpu = [], []
    for t in range(end - TIERS[0][1] + INTERVAL, end + 1, INTERVAL):
        sample = model.sample(float(t))  # built outside the timing: the recorder's asking is not the store's
        t0, c0 = time.perf_counter(), time.thread_time()
        store.write(sample)
        wall.append(ms(time.perf_counter() - t0))
        cpu.append(ms(time.thread_time() - c0))
    return wall, cpu


def row_per_value(path: Path, model: Cluster, ts: list[int]) -> tuple[int, float]:
    """The reference: the same frames as one row per value, (t, osd, metric, value), with its primary key as
    the only index (WITHOUT ROWID: the table is the index, the most compact such table can be). Returns
    (bytes per frame, ms to read the sample back as all OSDs' values per frame)."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE v(t INTEGER, osd INTEGER, metric INTEGER, value REAL,"
               " PRIMARY KEY(t, osd, metric)) WITHOUT ROWID")
    for t in ts:
        commit, apply, used = model.osd_columns(t, 1)
        db.execute("BEGIN")
        db.executemany("INSERT INTO v VALUES(?, ?, ?, ?)",
                       [(t, i, m, q / scale) for m, (col, scale) in enumerate(((commit, LAT_SCALE), (apply, LAT_SCALE),
                                                                              (used, USED_SCALE)))
                        for i, q in enumerate(col) if q != MISSING])
        db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = path.stat().st_size
    t0 = time.perf_counter()
    frames: dict[int, list[dict[int, float]]] = {}
    for t, osd, metric, value in db.execute("SELECT t, osd, metric, value FROM v WHERE t>=? AND t<=? ORDER BY t",
                                            (ts[0], ts[-1])):
        frames.setdefault(t, [{}, {}, {}])[metric][osd] = value
    read_ms = ms(time.perf_counter() - t0)
    db.close()
    return size // len(ts), read_ms


def timed(fn: Callable[[], Any], runs: int = 3) -> tuple[float, Any]:
    """Median ms of `runs` calls, and the last result."""
    out, times = None, []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(ms(time.perf_counter() - t0))
    return statistics.median(times), out


def part1(args: argparse.Namespace, path: Path, replay: Path) -> dict[str, Any]:
    from cephtui.ceph.history.view import SPARK_METRICS, build_view
    from cephtui.ceph.recording import command_key

    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)
    end = int((time.time() - LEAD) // INTERVAL * INTERVAL)
    model = Cluster(args.osds, origin=end - args.days * 86400)
    t0 = time.monotonic()
    counts = fill_old_tiers(path, model, end, args.days)
    print(f"  tiers 1 and 2 inserted in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    # The fast packer must be the store's format, or the sizes below would be of another file.
    check_t = float(end - 86400)
    model.rng.seed(5)
    fast = model.packed(check_t, 1)
    model.rng.seed(5)
    same = fast == pack_osd(model.frame(check_t, 1))
    store = HistoryStore(path, "bench")
    t0 = time.monotonic()
    writes, writes_cpu = write_hour(store, model, end)
    print(f"  tier 0 written in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    size = store.size_bytes()
    db = sqlite3.connect(str(path))
    per_tier = {tier: (n, total) for tier, n, total in db.execute(
        "SELECT tier, count(*), sum(length(data)) FROM frames WHERE kind='osd' GROUP BY tier")}
    other = db.execute("SELECT sum(length(data)) FROM frames WHERE kind!='osd'").fetchone()[0]
    other_n = db.execute("SELECT count(*) FROM frames WHERE kind!='osd'").fetchone()[0]
    blobs = sum(total for _, total in per_tier.values()) + other
    db.close()
    frames_now = sum(n for n, _ in per_tier.values())
    # Steady state: every tier full (tier 2 for 31 days, not --days): blob sizes as measured, and the file's
    # overhead over its blobs (pages, keys, free pages, WAL) as measured.
    steady_frames = {tier: keep // step for tier, (step, keep) in enumerate(TIERS)}
    steady_blobs = sum(steady_frames[tier] * total / n for tier, (n, total) in per_tier.items())
    steady_blobs += other / other_n * 2 * sum(steady_frames.values())
    projected = steady_blobs * size / blobs

    # The reference: one row per value, on a sample of tier-1 frames, extrapolated per frame.
    sample_ts = [end - 7200 + 60 * k for k in range(args.ref_frames)]
    ref_per_frame, ref_read = row_per_value(path.with_name(path.stem + "-rowpervalue.sqlite"), model, sample_ts)

    # Reads, as the tabs do them, from the big file (median of 3).
    now = float(end)
    win15 = timed(lambda: store.osd_frames(now - 900, now))
    n15 = len(win15[1])
    osds_view = timed(lambda: build_view(store, 900, osds=True, now=now))
    series = {}
    for name, window in (("24h", 86400), ("7d", 7 * 86400)):
        series[name] = timed(lambda window=window: build_view(store, window, now=now))
    index = json.loads((replay / "index.json").read_text())["files"]
    perf = (replay / index[command_key("mgr", "osd perf", {"format": "json"})]).read_bytes()
    status = (replay / index[command_key("mon", "status", {"format": "json"})]).read_bytes()
    ref_perf = timed(lambda: [json.loads(perf) for _ in range(n15)], runs=1)[0]
    ref_series = {name: timed(lambda v=v: [json.loads(status) for _ in range(v[1].points)])[0]
                  for name, v in series.items()}
    store.close()
    # A write whose sample opens a new minute folds the closed one into tier 1 (and each 10 min, tier 2).
    folds = [c for t, c in zip(range(end - TIERS[0][1] + INTERVAL, end + 1, INTERVAL), writes_cpu) if t % 60 == 0]
    return {"counts": counts, "same_format": same, "writes": writes, "writes_cpu": writes_cpu, "folds": folds,
            "size": size, "per_tier": per_tier,
            "frames_now": frames_now, "projected": projected, "ref_per_frame": ref_per_frame,
            "ref_read_ms": ref_read, "ref_frames": len(sample_ts), "win15": (win15[0], n15),
            "osds_view": osds_view[0], "trend_osds": len(osds_view[1].osd_trend),
            "series": {k: (v[0], v[1].points) for k, v in series.items()}, "ref_perf": ref_perf,
            "ref_series": ref_series, "perf_kib": len(perf) / 1024, "status_kib": len(status) / 1024,
            "metrics": len(SPARK_METRICS), "end": end}


def report1(args: argparse.Namespace, r: dict[str, Any], path: Path) -> None:
    n = args.osds
    w, c = r["writes"], r["writes_cpu"]
    size_mib = r["size"] / MIB
    print(f"\n== 1. size: {n} OSDs, {args.days} days (file {path}) ==")
    print(f"tiers 2 and 1 inserted as packed rows directly ({r['counts']['tier2']} + {r['counts']['tier1']} frames; "
          f"byte-identical to store.pack_osd: {'yes' if r['same_format'] else 'NO'}); the last hour "
          f"({len(w)} samples) through HistoryStore.write(), rollups included")
    print(f"HistoryStore.write() per sample: median {statistics.median(w):.1f} ms, p99 {pct(w, 0.99):.1f} ms, "
          f"max {max(w):.1f} ms; first 60 median {statistics.median(w[:60]):.1f} ms, "
          f"last 60 median {statistics.median(w[-60:]):.1f} ms")
    print(f"  its CPU time (the writing thread's): median {statistics.median(c):.1f} ms, p99 {pct(c, 0.99):.1f} ms, "
          f"max {max(c):.1f} ms; a write that folds a minute into tier 1 (every 12th): median "
          f"{statistics.median(r['folds']):.1f} ms; first 60 median {statistics.median(c[:60]):.1f} ms, "
          f"last 60 {statistics.median(c[-60:]):.1f} ms")
    print(f"file + WAL: {size_mib:.1f} MiB for {r['frames_now']} OSD frames")
    for tier, (frames, total) in sorted(r["per_tier"].items()):
        step = TIERS[tier][0]
        print(f"  tier {tier} ({step:>3} s): {frames:5} frames, {total / frames / 1024:6.1f} KiB a frame, "
              f"{total / frames / n:5.2f} bytes per OSD per frame")
    proj = r["projected"] / MIB
    print(f"projected, every tier full (tier 2: 31 days): {proj:.1f} MiB; budget {BUDGET_MIB:.0f} MiB: "
          f"{'holds' if proj <= BUDGET_MIB else 'EXCEEDED'} ({proj / BUDGET_MIB:.0%} of it)")
    ref = r["ref_per_frame"] * r["frames_now"] / MIB
    print(f"reference: one row per value ((t, osd, metric, value) WITHOUT ROWID, its key the only index), "
          f"measured on {r['ref_frames']} frames ({r['ref_per_frame'] / 1024:.0f} KiB a frame, "
          f"{r['ref_per_frame'] / n:.1f} bytes per OSD per frame), extrapolated to the same "
          f"{r['frames_now']} frames: {ref:.0f} MiB; store / reference = {size_mib / ref:.3f}")
    print("\nreads from the big file (median of 3, ms), reference in the same run:")
    win_ms, frames = r["win15"]
    per_frame_ref = r["ref_read_ms"] / r["ref_frames"]
    print(f"  osd_frames, 15 min ({frames} frames x {n} OSDs): {win_ms:7.1f}   json.loads of {frames} x `osd perf` "
          f"({r['perf_kib']:.0f} KiB each): {r['ref_perf']:7.1f}   ratio {win_ms / r['ref_perf']:.2f}")
    print(f"  {'':42}   row-per-value query, same frames (from {r['ref_frames']}, scaled): "
          f"{per_frame_ref * frames:7.1f}   ratio {win_ms / (per_frame_ref * frames):.2f}")
    print(f"  OSDs tab view, 15 min (build_view osds=True: frames + {r['trend_osds']}-OSD trend): "
          f"{r['osds_view']:7.1f}")
    for name, (t, points) in r["series"].items():
        ref = r["ref_series"][name]
        print(f"  Health tab view, {name:>3} ({r['metrics']} cluster series x {points} points): {t:7.1f}   "
              f"json.loads of {points} x `status` ({r['status_kib']:.1f} KiB): {ref:7.1f}   ratio {t / ref:.2f}")


# ----------------------------------------------------------------------------- part 2: the UI, headless
async def measure_ui(replay: Path, hfile: Path | None, osds: int, seconds: float) -> dict[str, Any]:
    import cephtui.ui.history as ui_history
    from cephtui.ceph.recording import ReplayClient
    from cephtui.ui.app import CephTUI

    client = ReplayClient.from_dir(replay)
    builds: list[float] = []  # build_view in the history worker thread
    biggest = [0, 0]  # the largest trend a view held: OSDs x frames (the Health tab's views hold none)
    handled: list[float] = []  # on_history_ready on the UI thread (both panes' show_history)
    real_build = ui_history.build_view

    def build_timed(*a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        view = real_build(*a, **kw)
        builds.append(ms(time.perf_counter() - t0))
        frames = max((len(v) for v in view.osd_trend.values()), default=0)
        if len(view.osd_trend) * frames > biggest[0] * biggest[1]:
            biggest[:] = [len(view.osd_trend), frames]
        return view
    ui_history.build_view = build_timed

    class Harness(CephTUI):
        def on_history_ready(self, message: ui_history.HistoryReady) -> None:
            t0 = time.perf_counter()
            super().on_history_ready(message)
            handled.append(ms(time.perf_counter() - t0))

    app = Harness(client, refresh=3600)  # no polling: the history's work is the only work that differs
    gaps: list[tuple[float, str]] = []
    phase = ["start"]
    last = [time.perf_counter()]
    collections: list[tuple[float, int]] = []
    gc_t = [0.0]

    def on_gc(stage: str, info: dict[str, int]) -> None:  # a collection holds the GIL: say when one is the gap
        if stage == "start":
            gc_t[0] = time.perf_counter()
        else:
            collections.append((ms(time.perf_counter() - gc_t[0]), info["generation"]))

    def beat() -> None:
        now = time.perf_counter()
        gaps.append((ms(now - last[0]), phase[0]))
        last[0] = now

    stop = threading.Event()
    writes: list[float] = []
    lag: list[float] = []
    new = [0]

    def writer(store: HistoryStore) -> None:
        """A second recorder on the same file at 1 s: each write a new 5-s bucket until it reaches now."""
        model = Cluster(osds, origin=store.first_sample_at() or time.time())
        t = (store.last_sample_at() or time.time()) + INTERVAL
        while not stop.is_set():
            t = min(t, time.time())
            lag.append(time.time() - t)
            sample = model.sample(t)
            t0 = time.perf_counter()
            new[0] += store.write(sample)
            writes.append(ms(time.perf_counter() - t0))
            t += INTERVAL
            stop.wait(max(0.0, 1.0 - (time.perf_counter() - t0)))
        store.close()

    async with app.run_test(size=(160, 48)):
        while app.snapshot is None:
            await asyncio.sleep(0.05)
        thread = None
        if hfile is not None:
            app.history.store = HistoryStore(hfile, create=False)
            thread = threading.Thread(target=writer, args=(HistoryStore(hfile, create=False),), daemon=True)
            thread.start()
        gc.callbacks.append(on_gc)
        app.set_interval(0.02, beat)
        for tab, share in (("osds", 2 / 3), ("health", 1 / 3)):
            phase[0] = "switch"
            app.action_show_tab(tab)
            app.action_refresh_now()  # the tab's own data, as a switch asks it, then left alone
            await asyncio.sleep(4.0)  # the switch's refresh and the first history read are not the steady state
            phase[0] = tab
            await asyncio.sleep(seconds * share)
        phase[0] = "end"
        stop.set()
        if thread is not None:
            thread.join()
        gc.callbacks.remove(on_gc)
    return {"gaps": gaps, "builds": builds, "handled": handled, "writes": writes, "new": new[0],
            "lag": [lag[0], lag[-1]] if lag else [], "gc": sorted(collections, reverse=True)[:5],
            "trend": biggest[0], "trend_frames": biggest[1]}


def run_child(replay: Path, hfile: Path | None, osds: int, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data:
        # An empty data directory: the reference run must not find a history file of the recording's fsid.
        env = dict(os.environ, PYTHONPATH=str(ROOT), CEPHTUI_DATA_DIR=data)
        argv = [sys.executable, str(Path(__file__).resolve()), "--child", "--replay", str(replay),
                "--osds", str(osds), "--seconds", str(seconds)]
        if hfile is not None:
            argv += ["--file", str(hfile)]
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=str(ROOT))
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"the UI child failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")


def report2(hist: dict[str, Any], ref: dict[str, Any], seconds: float) -> None:
    print(f"\n== 2. UI heartbeat (20 ms timer), 5,000-OSD replay, no polling, ~{seconds:.0f} s: OSDs tab "
          f"{seconds * 2 / 3:.0f} s, then Health {seconds / 3:.0f} s ==")
    print(f"{'':34} {'longest gap':>11} {'p99':>7} {'beats':>6}   (ms)")
    rows = []
    for name, r in (("with recording + history", hist), ("reference: no history, no writer", ref)):
        for tab in ("osds", "health", "all"):
            gs = [g for g, p in r["gaps"] if p == tab or (tab == "all" and p in ("osds", "health"))]
            rows.append((name, tab, max(gs), pct(gs, 0.99)))
            print(f"  {name if tab == 'osds' else '':32} {tab:>6} {max(gs):9.0f} {pct(gs, 0.99):7.0f} {len(gs):6}")
    h, rf = rows[2], rows[5]
    print(f"  ratio with / without, all: longest gap {h[2] / rf[2]:.2f}, p99 {h[3] / rf[3]:.2f}")
    w = hist["writes"]
    if w:
        print(f"writer thread: {len(w)} writes, {hist['new']} new 5-s buckets (lag behind now {hist['lag'][0]:.0f} s "
              f"at start, {hist['lag'][1]:.0f} s at end); write ms median {statistics.median(w):.1f}, "
              f"p99 {pct(w, 0.99):.1f}, max {max(w):.1f}")
    b, hd = hist["builds"], hist["handled"]
    if b:
        print(f"history reads: {len(b)} views built (worker thread) median {statistics.median(b):.0f} ms, "
              f"max {max(b):.0f} ms; on_history_ready on the UI thread median {statistics.median(hd):.1f} ms, "
              f"max {max(hd):.1f} ms; largest view: {hist['trend']} OSDs' trends x {hist['trend_frames']} frames")
    for name, r in (("with", hist), ("reference", ref)):
        print(f"longest GC pauses ({name}): " + ", ".join(f"{p:.0f} ms gen{g}" for p, g in r["gc"]))
    worst = sorted(hist["gaps"], reverse=True)[:5]
    print("worst gaps with history: " + ", ".join(f"{g:.0f} ms ({p})" for g, p in worst))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--osds", type=int, default=5000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--pgs", type=int, default=200000, help="PGs of the UI's replay (part 2)")
    p.add_argument("--seconds", type=float, default=60.0, help="heartbeat measurement per run (part 2)")
    p.add_argument("--ref-frames", type=int, default=12, help="frames measured as one row per value")
    p.add_argument("--file", type=Path, help="the history file (default .scale-cache/history-OSDS-DAYS.sqlite)")
    p.add_argument("--no-ui", action="store_true", help="part 1 only")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--replay", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        out = asyncio.run(measure_ui(args.replay, args.file, args.osds, args.seconds))
        print("RESULT " + json.dumps(out))
        return 0
    path = args.file or ROOT / ".scale-cache" / f"history-{args.osds}-{args.days}.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    replay = generate(args.osds, args.pgs, ROOT / ".scale-cache")  # cached; the first time takes a minute
    r1 = part1(args, path, replay)
    report1(args, r1, path)
    sys.stdout.flush()
    if not args.no_ui:
        # With history first: the writer's clock starts at the file's newest sample and catches up to now.
        hist = run_child(replay, path, args.osds, args.seconds)
        ref = run_child(replay, None, args.osds, args.seconds)
        report2(hist, ref, args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
