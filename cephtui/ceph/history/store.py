"""The local history: one SQLite file per cluster (fsid) under the data directory.

Why it is shaped this way:
- One row per sample and kind ("cluster", "pools", "osd"), its values packed in one compressed blob, not a
  row per value: 5,000 OSDs x 3 series x 6,600 points a month is 100 million rows as a row per value, and
  about 6,600 blobs here (scripts/bench_history.py measures the file).
- Tier 0 holds every sample (INTERVAL s) for an hour, tier 1 one-minute means for a day, tier 2 ten-minute
  means for a month (model.TIERS). Whoever writes folds each closed bucket into the next tier, and deletes
  what a tier no longer keeps, in the same transaction.
- Two writers (`cephtui record` and an open UI, or two recorders) never double-count: a sample's time is
  its INTERVAL bucket, and the first row for a bucket wins (INSERT OR IGNORE); a rollup is derived from
  the rows below it, so whoever makes it makes the same one. Health changes are decided inside the write
  transaction (BEGIN IMMEDIATE) against the checks the file says are open, never against one process'
  memory.
- A crash or a full disk loses at most the transaction being written: WAL journal, one transaction per
  sample; SQLite rolls back what did not commit and the file stays whole (PRAGMA integrity_check).
"""
from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
import zlib
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cephtui.ceph.history.model import INTERVAL, TIERS, HealthEvent, OsdFrame, Sample

SCHEMA_VERSION = 1
KEEP_EVENTS = TIERS[-1][1]  # health changes and the cluster log: as long as the coarsest tier
BUSY_MS = 10_000  # another writer's transaction is milliseconds; a stuck one is a problem worth waiting for
MISSING = 0xFFFF  # an OSD without a value in a packed frame
LAT_SCALE = 10  # latency packed in tenths of a millisecond (uint16: up to 6553.4 ms, clamped)
USED_SCALE = 10_000  # used fraction packed in 1/10,000

# The mon's own words for a health change in its cluster log (HealthMonitor), each stamped by the mon when it
# happened: a recorder sees the change only at its next sample, up to INTERVAL later.
_LOGGED_CHANGE = (
    ("raised", re.compile(r"Health check failed: .* \((?P<code>[A-Z0-9_]+)\)$")),
    ("cleared", re.compile(r"Health check cleared: (?P<code>[A-Z0-9_]+) \(was: ")),
    ("changed", re.compile(r"Health check update: .* \((?P<code>[A-Z0-9_]+)\)$")),
)


def logged_changes(entries: Sequence[tuple[str, str, int, str, str, str]]) -> dict[tuple[str, str], float]:
    """(change, code) -> when the mon logged it (the newest such line among `entries`)."""
    from cephtui.ceph.snapshot.parse import parse_stamp

    out: dict[tuple[str, str], float] = {}
    for stamp, _name, _seq, _channel, _priority, message in entries:
        for change, pattern in _LOGGED_CHANGE:
            m = pattern.match(message)
            if m is None:
                continue
            t = parse_stamp(stamp)
            if t is not None and t > out.get((change, m["code"]), 0.0):
                out[(change, m["code"])] = t
            break
    return out


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS frames(tier INTEGER, kind TEXT, t INTEGER, data BLOB,
                                  PRIMARY KEY(tier, kind, t)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events(t REAL, code TEXT, change TEXT, severity TEXT, summary TEXT);
CREATE INDEX IF NOT EXISTS events_t ON events(t);
CREATE TABLE IF NOT EXISTS open_checks(code TEXT PRIMARY KEY, severity TEXT, summary TEXT, since REAL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log(t REAL, stamp TEXT, name TEXT, seq INTEGER, channel TEXT, priority TEXT,
                               message TEXT, PRIMARY KEY(name, seq, stamp)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS log_t ON log(t);
"""
KINDS = ("cluster", "pools", "osd")


class HistoryError(Exception):
    """The file cannot be written or read (full disk, read-only directory, not a history file)."""


def history_path(data_dir: Path, fsid: str) -> Path:
    return Path(data_dir) / "history" / f"{fsid}.sqlite"


# ------------------------------------------------------------------ packing

def _pack_json(obj: Any) -> bytes:
    return zlib.compress(json.dumps(obj, separators=(",", ":")).encode(), 6)


def _unpack_json(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def _u16(values: Iterable[float | None], scale: int) -> array:
    out = array("H")
    for v in values:
        out.append(MISSING if v is None else min(max(int(round(v * scale)), 0), MISSING - 1))
    return out


def pack_osd(frame: OsdFrame) -> bytes:
    """ids (int32) then commit, apply, used (uint16, MISSING where an OSD had no value), zlib'd: ~3 bytes
    an OSD for a typical frame (sorted ids and small latencies compress well)."""
    ids = sorted(set(frame.commit_ms) | set(frame.apply_ms) | set(frame.used))
    parts = [array("i", ids),
             _u16((frame.commit_ms.get(i) for i in ids), LAT_SCALE),
             _u16((frame.apply_ms.get(i) for i in ids), LAT_SCALE),
             _u16((frame.used.get(i) for i in ids), USED_SCALE)]
    head = array("I", [len(ids)])
    return zlib.compress(b"".join(p.tobytes() for p in [head, *parts]), 6)


def unpack_osd(t: float, blob: bytes) -> OsdFrame:
    raw = zlib.decompress(blob)
    n = array("I", raw[:4])[0]
    ids = array("i", raw[4:4 + 4 * n])
    cols = []
    for k, scale in enumerate((LAT_SCALE, LAT_SCALE, USED_SCALE)):
        start = 4 + 4 * n + 2 * n * k
        col = array("H", raw[start:start + 2 * n])
        cols.append({i: v / scale for i, v in zip(ids, col) if v != MISSING})
    return OsdFrame(t=t, commit_ms=cols[0], apply_ms=cols[1], used=cols[2])


def _mean_dicts(dicts: Sequence[dict[str, float]]) -> dict[str, float]:
    """Per key, the mean over the dicts that have it (a PG state absent from a sample counts as 0 there)."""
    keys = set().union(*dicts) if dicts else set()
    return {k: sum(float(d.get(k, 0.0)) for d in dicts) / len(dicts) for k in keys}


def _mean_frames(t: float, frames: Sequence[OsdFrame]) -> OsdFrame:
    def mean(col: str) -> dict[int, float]:
        acc: dict[int, list[float]] = {}
        for f in frames:
            for i, v in getattr(f, col).items():
                acc.setdefault(i, []).append(v)
        return {i: sum(vs) / len(vs) for i, vs in acc.items()}
    return OsdFrame(t=t, commit_ms=mean("commit_ms"), apply_ms=mean("apply_ms"), used=mean("used"))


def _rollup(kind: str, t: int, blobs: Sequence[bytes]) -> bytes:
    if kind == "osd":
        return pack_osd(_mean_frames(t, [unpack_osd(0, b) for b in blobs]))
    if kind == "pools":
        pools = [_unpack_json(b) for b in blobs]
        names = set().union(*pools)
        return _pack_json({n: _mean_dicts([p.get(n, {}) for p in pools]) for n in names})
    return _pack_json(_mean_dicts([_unpack_json(b) for b in blobs]))


# ------------------------------------------------------------------ the store

class HistoryStore:
    """One cluster's history file. Thread-safe: each thread gets its own SQLite connection."""

    def __init__(self, path: Path, fsid: str = "", *, create: bool = True) -> None:
        self.path = Path(path)
        self.fsid = fsid
        self.label = f"local history ({self.path})"
        self._local = threading.local()
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise HistoryError(f"cannot make {self.path.parent}: {e.strerror or e}") from e
        elif not self.path.exists():
            raise HistoryError(f"no history at {self.path}")
        self._db()  # open (and make the schema) now, so a bad path is said at once

    @classmethod
    def for_cluster(cls, data_dir: Path, fsid: str) -> HistoryStore:
        return cls(history_path(data_dir, fsid), fsid)

    @classmethod
    def open_existing(cls, data_dir: Path, fsid: str) -> HistoryStore | None:
        """The cluster's history file when one has been recorded; None when there is none."""
        path = history_path(data_dir, fsid)
        if not path.exists():
            return None
        try:
            return cls(path, fsid, create=False)
        except HistoryError:
            return None

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is not None:
            return db
        try:
            db = sqlite3.connect(str(self.path), timeout=BUSY_MS / 1000, isolation_level=None)
            db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
            self._prepare(db)
        except sqlite3.Error as e:
            raise HistoryError(f"{self.path}: {e}") from e
        self._local.db = db
        return db

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Switch the file to WAL and make the schema, safe against another process opening it at the same moment.

        Both steps read the file and then need its write lock. When two connections each hold the read lock
        and both ask to upgrade, SQLite answers one of them SQLITE_BUSY at once, without the busy handler
        (waiting would deadlock): CI saw two recorders starting together fail with "database is locked".
        The schema is therefore made inside BEGIN IMMEDIATE (the write lock first, with the busy handler),
        and the journal-mode switch, which cannot run inside a transaction, is retried until the deadline."""
        if self._prepared(db):
            return  # the usual case, a file made before: nothing to write, so no lock to wait for
        deadline = time.monotonic() + BUSY_MS / 1000
        while True:
            try:
                if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    db.execute("PRAGMA journal_mode=WAL")  # readers never block the writer; a crash rolls back
                break
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        db.execute("PRAGMA synchronous=NORMAL")  # durable against a process crash; one fsync per checkpoint
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT OR IGNORE INTO meta VALUES('schema', ?)", (str(SCHEMA_VERSION),))
            if self.fsid:
                db.execute("INSERT OR IGNORE INTO meta VALUES('fsid', ?)", (self.fsid,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _prepared(self, db: sqlite3.Connection) -> bool:
        """The file is in WAL mode with this schema (and this fsid): every reader after the first opener."""
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                return False
            keys = {k for (k,) in db.execute("SELECT key FROM meta WHERE key IN ('schema', 'fsid')")}
        except sqlite3.OperationalError:  # no meta table yet: a fresh file
            return False
        return "schema" in keys and (not self.fsid or "fsid" in keys)

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    # -------------------------------------------------------------- writing

    def write(self, sample: Sample) -> bool:
        """Record one sample; False when another writer already recorded this INTERVAL (nothing counted
        twice). Raises HistoryError when the file cannot take it (the transaction is rolled back whole)."""
        t0 = int(sample.t // INTERVAL * INTERVAL)
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                newest = db.execute("SELECT max(t) FROM frames WHERE tier=0 AND kind='cluster'").fetchone()[0]
                # Older than tier 0 keeps: it was trimmed, or never taken. Written now, it would be counted as new
                # after its interval had been folded (a recorder that fell an hour behind another).
                late = newest is not None and t0 < newest - TIERS[0][1]
                new = not late and db.execute("INSERT OR IGNORE INTO frames VALUES(0, 'cluster', ?, ?)",
                                              (t0, _pack_json(sample.cluster))).rowcount == 1
                if new:
                    if sample.osd is not None:
                        db.execute("INSERT OR IGNORE INTO frames VALUES(0, 'osd', ?, ?)", (t0, pack_osd(sample.osd)))
                    if sample.pools:
                        db.execute("INSERT OR IGNORE INTO frames VALUES(0, 'pools', ?, ?)",
                                   (t0, _pack_json(sample.pools)))
                if sample.checks is not None:
                    self._health(db, sample.t, sample.checks)
                self._log(db, sample.log)
                self._stamp_changes(db, sample.log)
                self._fold(db, t0)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise HistoryError(f"{self.path}: {e}") from e
        return new

    @staticmethod
    def _health(db: sqlite3.Connection, t: float, checks: dict[str, tuple[str, str]]) -> None:
        row = db.execute("SELECT value FROM meta WHERE key='checks_t'").fetchone()
        if row is not None and t < float(row[0]):
            return  # another writer has already recorded a later state: an older one must not undo it
        db.execute("INSERT OR REPLACE INTO meta VALUES('checks_t', ?)", (repr(t),))
        open_ = {c: (s, m) for c, s, m in db.execute("SELECT code, severity, summary FROM open_checks")}
        for code in sorted(set(checks) - set(open_)):
            sev, summary = checks[code]
            db.execute("INSERT INTO events VALUES(?, ?, 'raised', ?, ?)", (t, code, sev, summary))
            db.execute("INSERT INTO open_checks VALUES(?, ?, ?, ?)", (code, sev, summary, t))
        for code in sorted(set(open_) - set(checks)):
            db.execute("INSERT INTO events VALUES(?, ?, 'cleared', '', ?)", (t, code, open_[code][1]))
            db.execute("DELETE FROM open_checks WHERE code=?", (code,))
        for code in sorted(set(open_) & set(checks)):
            sev, summary = checks[code]
            if sev != open_[code][0]:  # WARN <-> ERR; a count in the summary moving is not an event
                db.execute("INSERT INTO events VALUES(?, ?, 'changed', ?, ?)", (t, code, sev, summary))
                db.execute("UPDATE open_checks SET severity=?, summary=? WHERE code=?", (sev, summary, code))

    @staticmethod
    def _stamp_changes(db: sqlite3.Connection, log: Sequence[tuple[str, str, int, str, str, str]]) -> None:
        """A health change recorded when a sample saw it moves to the moment the mon logged it. The mon commits
        its log a moment after the change, so the line may come with the next sample: the event it stamps is
        the code's first one at or after the line, if it is the same change and at most two samples later.
        Two writers stamp the same event the same way."""
        for (change, code), stamp in logged_changes(log).items():
            row = db.execute("SELECT rowid, t, change FROM events WHERE code=? AND t>=? AND t<? ORDER BY t, rowid "
                             "LIMIT 1", (code, stamp, stamp + 2 * INTERVAL)).fetchone()
            if row is None or row[2] != change or row[1] == stamp:
                continue
            db.execute("UPDATE events SET t=? WHERE rowid=?", (stamp, row[0]))
            if change == "raised":
                db.execute("UPDATE open_checks SET since=? WHERE code=? AND since=?", (stamp, code, row[1]))

    @staticmethod
    def _log(db: sqlite3.Connection, entries: Sequence[tuple[str, str, int, str, str, str]]) -> None:
        from cephtui.ceph.snapshot.parse import parse_stamp

        db.executemany("INSERT OR IGNORE INTO log VALUES(?, ?, ?, ?, ?, ?, ?)",
                       [(parse_stamp(stamp) or 0.0, stamp, name, seq, channel, priority, message)
                        for stamp, name, seq, channel, priority, message in entries])

    @staticmethod
    def _fold(db: sqlite3.Connection, now: int) -> None:
        """Fold every closed bucket of each tier into the next one, then drop what each tier no longer keeps."""
        for tier in range(1, len(TIERS)):
            step = TIERS[tier][0]
            current = now // step * step  # the bucket still filling: folded once it has closed
            for kind in KINDS:
                last = db.execute("SELECT max(t) FROM frames WHERE tier=? AND kind=?", (tier, kind)).fetchone()[0]
                start = 0 if last is None else last + step
                rows = db.execute("SELECT t, data FROM frames WHERE tier=? AND kind=? AND t>=? AND t<?",
                                  (tier - 1, kind, start, current)).fetchall()
                buckets: dict[int, list[bytes]] = {}
                for t, data in rows:
                    buckets.setdefault(t // step * step, []).append(data)
                for b, blobs in sorted(buckets.items()):
                    db.execute("INSERT OR IGNORE INTO frames VALUES(?, ?, ?, ?)",
                               (tier, kind, b, _rollup(kind, b, blobs)))
        for tier, (_, keep) in enumerate(TIERS):
            for kind in KINDS:  # the whole key (tier, kind, t): `tier=? AND t<?` would scan every row of the tier
                db.execute("DELETE FROM frames WHERE tier=? AND kind=? AND t<?", (tier, kind, now - keep))
        db.execute("DELETE FROM events WHERE t<?", (now - KEEP_EVENTS,))
        db.execute("DELETE FROM log WHERE t<?", (now - KEEP_EVENTS,))

    # -------------------------------------------------------------- reading

    def last_sample_at(self, kind: str = "cluster") -> float | None:
        """The newest sample's time; of `kind` "osd", the newest with per-OSD values (none while the mgr is
        down: the recorder keeps writing what the mon says, so a current file can hold stale OSD values)."""
        row = self._db().execute("SELECT max(t) FROM frames WHERE tier=0 AND kind=?", (kind,)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def first_sample_at(self) -> float | None:
        row = self._db().execute("SELECT min(t) FROM frames WHERE kind='cluster'").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def tier_for(self, since: float, now: float | None = None) -> int:
        """The finest tier that still keeps `since`. Tiers are trimmed relative to the newest sample (the last
        write), so that is `now` here: a file nobody has written for a week still has its last hour in tier 0."""
        if now is None:
            now = self.last_sample_at() or time.time()
        for tier, (_, keep) in enumerate(TIERS):
            if since >= now - keep:
                return tier
        return len(TIERS) - 1

    def _rows(self, kind: str, since: float, until: float, tier: int | None = None) -> list[tuple[int, bytes]]:
        tier = self.tier_for(since) if tier is None else tier
        step = TIERS[tier][0]
        return self._db().execute(
            "SELECT t, data FROM frames WHERE tier=? AND kind=? AND t>=? AND t<=? ORDER BY t",
            (tier, kind, int(since // step * step), int(until))).fetchall()

    def cluster_frames(self, since: float, until: float,
                       tier: int | None = None) -> list[tuple[float, dict[str, float]]]:
        """(t, every cluster metric) at the finest resolution kept for [since, until], oldest first."""
        return [(float(t), _unpack_json(data)) for t, data in self._rows("cluster", since, until, tier)]

    def cluster_series(self, metric: str, since: float, until: float) -> list[tuple[float, float]]:
        return [(t, float(d.get(metric, 0.0))) for t, d in self.cluster_frames(since, until)]

    def pool_series(self, pool: str, metric: str, since: float, until: float) -> list[tuple[float, float]]:
        return [(float(t), float(_unpack_json(data).get(pool, {}).get(metric, 0.0)))
                for t, data in self._rows("pools", since, until)]

    def osd_frames(self, since: float, until: float, max_frames: int | None = None, *,
                   tier: int | None = None) -> list[OsdFrame]:
        """Frames from the finest tier that keeps since; with max_frames, thinned to about that many, counted
        back from the newest (unpacking is the cost: ~1 ms per 5,000-OSD frame, so only the kept ones are
        read: their times first, then their blobs)."""
        if not max_frames:
            return [unpack_osd(float(t), data) for t, data in self._rows("osd", since, until, tier)]
        tier = self.tier_for(since) if tier is None else tier
        step = TIERS[tier][0]
        times = [t for (t,) in self._db().execute(
            "SELECT t FROM frames WHERE tier=? AND kind='osd' AND t>=? AND t<=? ORDER BY t",
            (tier, int(since // step * step), int(until)))]
        stride = max(1, -(-len(times) // max_frames))
        keep = times[::-1][::stride][::-1]  # every stride-th, counted back from the newest
        out = []
        for k in range(0, len(keep), 500):  # SQLite's variable limit
            part = keep[k:k + 500]
            out += self._db().execute(f"SELECT t, data FROM frames WHERE tier=? AND kind='osd' AND t IN "
                                      f"({','.join('?' * len(part))}) ORDER BY t", (tier, *part)).fetchall()
        return [unpack_osd(float(t), data) for t, data in out]

    def events(self, since: float, until: float) -> list[HealthEvent]:
        return [HealthEvent(t=t, code=c, change=ch, severity=s, summary=m) for t, c, ch, s, m in self._db().execute(
            "SELECT t, code, change, severity, summary FROM events WHERE t>=? AND t<=? ORDER BY t, rowid",
            (since, until))]

    def log_between(self, since: float, until: float, limit: int = 200) -> list[tuple[str, str, str, str, str]]:
        """Cluster log lines in [since, until]: (stamp, name, channel, priority, message), oldest first; info and
        up (the recorder keeps no debug lines; a file written before it stopped keeping them may hold some)."""
        return list(self._db().execute(
            "SELECT stamp, name, channel, priority, message FROM log WHERE t>=? AND t<=? AND priority!='[DBG]' "
            "ORDER BY t, seq LIMIT ?",
            (since, until, limit)))

    def integrity(self) -> str:
        return str(self._db().execute("PRAGMA integrity_check").fetchone()[0])

    def size_bytes(self) -> int:
        """The file and its WAL, as the disk holds them."""
        return sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
