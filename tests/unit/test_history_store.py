"""The local history store: tiers and their means, no double counting by two writers, health changes decided
in the file, and a file that stays whole through kill -9 at random moments and a full disk (a real tmpfs)."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from cephtui.ceph.history.model import INTERVAL, TIERS, OsdFrame, Sample
from cephtui.ceph.history.store import HistoryError, HistoryStore

T0 = 1_789_999_800  # a round start (a multiple of 600 s), in the past: the store decides by the samples' times
ROOT = Path(__file__).resolve().parents[2]


def sample(t: float, wr: float = 0.0, checks: dict[str, tuple[str, str]] | None = None, osds: int = 4) -> Sample:
    frame = OsdFrame(t=t, commit_ms={i: float(i) for i in range(osds)}, apply_ms={i: 0.5 for i in range(osds)},
                     used={i: 0.25 for i in range(osds)})
    return Sample(t=t, fsid="f", cluster={"write_bps": wr, "pg_state:active+clean": 32.0}, osd=frame,
                  pools={"rbd": {"write_bps": wr}}, checks={} if checks is None else checks)


def test_tiers_keep_an_hour_of_samples_and_fold_minutes_and_ten_minutes_as_means(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "h.sqlite", "f")
    n = 2 * 3600 // INTERVAL  # two hours
    for k in range(n):
        store.write(sample(T0 + k * INTERVAL, wr=float(k)))
    last = T0 + (n - 1) * INTERVAL
    raw = store.cluster_frames(T0, last, tier=0)
    assert raw[0][0] >= last - TIERS[0][1] and raw[-1][0] == last  # the last hour only
    minutes = store.cluster_frames(T0, last, tier=1)
    per_minute = 60 // INTERVAL
    assert minutes[0] == (T0, {"write_bps": sum(range(per_minute)) / per_minute, "pg_state:active+clean": 32.0})
    assert len(minutes) == 2 * 60 - 1  # every closed minute; the one still filling is not folded yet
    tens = store.cluster_frames(T0, last, tier=2)
    assert [t for t, _ in tens] == [T0 + 600 * i for i in range(11)]
    assert tens[1][1]["write_bps"] == pytest.approx(sum(range(120, 240)) / 120)
    frames = store.osd_frames(T0, last, tier=1)
    assert frames[0].commit_ms == {0: 0.0, 1: 1.0, 2: 2.0, 3: 3.0} and frames[0].used[3] == 0.25
    assert store.pool_series("rbd", "write_bps", last - 30, last)[-1] == (last, float(n - 1))
    assert store.integrity() == "ok"


def test_a_span_is_read_from_the_finest_tier_that_keeps_it(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "h.sqlite", "f")
    now = time.time()
    assert store.tier_for(now - 900, now) == 0
    assert store.tier_for(now - 2 * 3600, now) == 1
    assert store.tier_for(now - 7 * 86400, now) == 2


def test_a_second_writer_of_the_same_interval_counts_nothing_twice(tmp_path: Path) -> None:
    a = HistoryStore(tmp_path / "h.sqlite", "f")
    b = HistoryStore(tmp_path / "h.sqlite", "f")
    assert a.write(sample(T0 + 1, wr=10.0)) is True
    assert b.write(sample(T0 + 3, wr=99.0)) is False  # same 5-s interval, taken by a
    assert a.cluster_series("write_bps", T0, T0 + 10) == [(T0, 10.0)]


def test_health_changes_are_decided_against_the_file_and_an_older_sample_never_undoes_a_newer(tmp_path: Path) -> None:
    a = HistoryStore(tmp_path / "h.sqlite", "f")
    b = HistoryStore(tmp_path / "h.sqlite", "f")
    warn = {"OSD_DOWN": ("HEALTH_WARN", "1 osds down")}
    a.write(sample(T0, checks={}))
    a.write(sample(T0 + 5, checks=warn))
    b.write(sample(T0 + 6, checks=warn))  # the second recorder sees the same check: not raised again
    b.write(sample(T0 + 10, checks={"OSD_DOWN": ("HEALTH_ERR", "1 osds down")}))
    a.write(sample(T0 + 9, checks=warn))  # late: taken before b's, written after: ignored for health
    a.write(sample(T0 + 15, checks={}))
    assert [(e.t, e.code, e.change, e.severity) for e in a.events(T0, T0 + 20)] == [
        (T0 + 5, "OSD_DOWN", "raised", "HEALTH_WARN"), (T0 + 10, "OSD_DOWN", "changed", "HEALTH_ERR"),
        (T0 + 15, "OSD_DOWN", "cleared", "")]


def test_the_cluster_log_is_kept_once_and_read_around_a_moment(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "h.sqlite", "f")
    line = ("2026-09-21T10:00:00.000000+0000", "mon.a", 7, "cluster", "[WRN]", "Health check failed")
    for t in (T0, T0 + 5):  # `log last` returns the same line twice: one row
        store.write(Sample(t=t, fsid="f", cluster={}, log=(line,)))
    stamp_t = datetime(2026, 9, 21, 10, tzinfo=timezone.utc).timestamp()
    assert store.log_between(stamp_t - 1, stamp_t + 1) == [(line[0], "mon.a", "cluster", "[WRN]", line[5])]


WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from cephtui.ceph.history.model import OsdFrame, Sample
    from cephtui.ceph.history.store import HistoryStore
    store = HistoryStore(Path(sys.argv[1]), "f")
    osds, start, step, count = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    k = 0
    while k < count:
        t = start + k * step
        f = OsdFrame(t=t, commit_ms={i: float(i % 50) for i in range(osds)}, apply_ms={i: 1.0 for i in range(osds)},
                     used={i: 0.5 for i in range(osds)})
        new = store.write(Sample(t=t, fsid="f", cluster={"write_bps": float(k)}, osd=f,
                                 checks={"X": ("HEALTH_WARN", "x")} if k % 2 else {}))
        print(int(t), int(new), flush=True)  # said only after the commit returned
        k += 1
""")


def _writer(path: Path, osds: int, start: float, step: int = INTERVAL, count: int = 10**9) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(osds), str(start), str(step), str(count)],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _lines_until(proc: subprocess.Popen[str], n: int) -> list[str]:
    out = []
    assert proc.stdout is not None
    while len(out) < n:
        line = proc.stdout.readline()
        assert line, f"the writer ended early (rc {proc.poll()})"
        out.append(line)
    return out


def test_kill_9_at_random_moments_loses_at_most_the_write_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    rng = random.Random(32)
    start = T0
    committed: set[int] = set()
    for _ in range(8):
        proc = _writer(path, 5000, start)
        said = _lines_until(proc, rng.randint(1, 6))
        time.sleep(rng.uniform(0, 0.05))  # a random moment inside the next write (each takes ~10-30 ms)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert proc.stdout is not None
        said += proc.stdout.readlines()
        committed |= {int(line.split()[0]) for line in said}
        start = max(committed) + INTERVAL
        store = HistoryStore(path, "f")
        assert store.integrity() == "ok"
        kept = {int(t) for t, _ in store.cluster_frames(T0, start, tier=0)}
        assert committed <= kept  # everything the writer said it wrote is there
        assert len(kept - committed) <= 8  # at most the write in flight at each kill
        store.close()


OPEN_AT = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from cephtui.ceph.history.model import Sample
    from cephtui.ceph.history.store import HistoryStore
    at = float(sys.argv[2])
    while time.time() < at:  # every process opens the fresh file at the same instant
        pass
    HistoryStore(Path(sys.argv[1]), "f").write(Sample(t=float(sys.argv[3]), fsid="f", cluster={"x": 1.0}))
""")


def test_processes_opening_a_fresh_file_together_all_get_in(tmp_path: Path) -> None:
    # CI saw a UI and a `cephtui record` starting together die with "database is locked": two connections that
    # each read the file and then asked to upgrade (the WAL switch) get SQLITE_BUSY at once, without the busy
    # timeout. Before the fix, about 1 opener in 8 failed here.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for round_ in range(8):
        path = tmp_path / f"h{round_}.sqlite"
        at = time.time() + 0.8  # long enough for every interpreter to start and import
        procs = [subprocess.Popen([sys.executable, "-c", OPEN_AT, str(path), str(at), str(T0 + i * INTERVAL)],
                                  stderr=subprocess.PIPE, text=True, env=env) for i in range(4)]
        errors = [p.communicate()[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, "\n".join(errors)
        assert len(HistoryStore(path, "f").cluster_frames(T0 - 1, T0 + 10 * INTERVAL, tier=0)) == 4


def test_two_recorder_processes_on_one_file_count_each_interval_once(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    a, b = _writer(path, 200, T0, count=150), _writer(path, 200, T0, count=150)
    try:
        lines_a, lines_b = _lines_until(a, 150), _lines_until(b, 150)
    finally:
        for p in (a, b):
            p.terminate()
            p.wait()
    assert len(lines_a) == len(lines_b) == 150
    new_a = {int(x.split()[0]) for x in lines_a if x.split()[1] == "1"}
    new_b = {int(x.split()[0]) for x in lines_b if x.split()[1] == "1"}
    assert not new_a & new_b  # no interval written by both
    assert len(new_a | new_b) == 150  # and none lost
    store = HistoryStore(path, "f")
    rows = store.cluster_frames(T0, T0 + 150 * INTERVAL, tier=0)
    assert len(rows) == len({t for t, _ in rows}) and {int(t) for t, _ in rows} >= new_a | new_b
    changes = [e.change for e in store.events(T0, T0 + 150 * INTERVAL)]
    assert all(x != y for x, y in zip(changes, changes[1:]))  # raised, cleared, raised…: never twice in a row
    assert store.integrity() == "ok"


@pytest.fixture
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A real full disk: a 1 MiB tmpfs (we are root in the test machines; said plainly if not)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_a_full_disk_stops_the_writes_whole_and_keeps_what_was_written(small_disk: Path) -> None:
    store = HistoryStore(small_disk / "h.sqlite", "f")
    written = []
    error = ""
    for k in range(10_000):
        t = T0 + k * INTERVAL
        try:
            store.write(sample(t, wr=float(k), osds=3000))
        except HistoryError as e:
            error = str(e)
            break
        written.append(t)
    assert "full" in error, error
    store.close()
    again = HistoryStore(small_disk / "h.sqlite", "f", create=False)
    assert again.integrity() == "ok"
    kept = [int(t) for t, _ in again.cluster_frames(T0, written[-1], tier=0)]
    assert kept[-1] == written[-1] and set(written[-len(kept):]) == set(kept)  # tier 0 drops only by age
    with pytest.raises(HistoryError):  # still full: said again, never a traceback or a torn file
        again.write(sample(written[-1] + INTERVAL, osds=3000))
    assert again.integrity() == "ok"
    assert json.dumps(again.cluster_frames(written[-1], written[-1], tier=0))
    again.close()  # the tmpfs is unmounted after: nothing of ours may hold it


def test_a_trend_reads_a_few_frames_a_cell_up_to_the_newest_sample(tmp_path: Path) -> None:
    from cephtui.ceph.history.view import TREND_CELLS, trend_cells

    store = HistoryStore(tmp_path / "h.sqlite", "f")
    n = 20 * 60 // INTERVAL  # twenty minutes
    for k in range(n):
        store.write(sample(T0 + k * INTERVAL, osds=3))
    last = T0 + (n - 1) * INTERVAL
    frames = store.osd_frames(last - 900, last, max_frames=48)
    assert [f.t for f in frames] == [float(t) for t in range(last - 20 * 45, last + 1, 20)]  # every 4th, to now
    few = [f.t for f in store.osd_frames(last - 900, last, max_frames=5)]
    assert len(few) == 5 and few[-1] == last and len({b - a for a, b in zip(few, few[1:])}) == 1
    cells = trend_cells(frames, last - 900, last)
    assert set(cells) == {0, 1, 2} and len(cells[2]) == TREND_CELLS
    assert cells[2] == [2.0] * TREND_CELLS  # osd.2's commit latency is 2 ms in every sample
    gap = trend_cells([f for f in frames if not last - 600 <= f.t < last - 500], last - 900, last)
    assert None in gap[2]  # no sample in a slot: a gap, not a zero


def test_a_sample_without_the_mgr_keeps_the_file_current_but_not_its_osd_values(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "h.sqlite", "f")
    store.write(sample(T0))
    store.write(Sample(t=T0 + INTERVAL, fsid="f", cluster={"write_bps": 0.0}, osd=None, checks={}))  # mgr down
    assert store.last_sample_at() == T0 + INTERVAL and store.last_sample_at("osd") == T0
