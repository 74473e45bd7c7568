"""The two answers that grow with the PG count, decoded fast, in pieces, and only where changed.

`pg dump pgs_brief` is 25 MB of JSON at 200,000 PGs and `pg dump_stuck` carries a
full pg_stat per stuck PG. What keeps them from stalling the app:

- msgspec decodes each PG straight into its model (PGBrief, _Stuck), skipping the
  dict per PG, about 5x faster than the json module here;
- the array is decoded a piece at a time, and the thread lets go of the GIL between
  pieces: a decoder call holds the GIL throughout, so one 25 MB call would freeze the
  UI thread for its whole length;
- PGTable cuts the PG list before about one PG in 64, chosen by its pgid (so the cuts
  do not move when a state string grows) and keeps each piece's bytes: a refresh
  decodes only the pieces whose bytes changed, and reuses the sorted order while the
  set of PGs stays the same. The mgr lists PGs in its hash map's order, which holds
  still while no PG is added or removed.

An answer in any other shape (older or newer releases nest the array differently,
or a field has an unexpected type) returns None, and the caller uses the generic
parser instead: slower, never wrong.
"""
from __future__ import annotations

import heapq
import time
from collections import Counter
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, TypeVar

import msgspec

from cephtui.ceph.snapshot.models import PGBrief, PoolPGStates, StateCount, StuckPG
from cephtui.ceph.snapshot.parse import parse_stamp
from cephtui.ceph.snapshot.pgfilter import PGColumns, pgid_key

SLICE = 1 << 20  # bytes per decoder call: ~6 ms of GIL here
_NEXT = b'},{"pgid":'  # element boundary: every PG entry starts with its pgid, in every release we read

T = TypeVar("T")


class _Stuck(msgspec.Struct, gc=False):
    """What the stuck table needs of a full pg_stat (the rest of its ~60 fields are skipped)."""

    pgid: str
    state: str
    up: tuple[int, ...] = ()
    acting: tuple[int, ...] = ()
    last_active: str = ""
    last_clean: str = ""
    last_unstale: str = ""
    last_undegraded: str = ""
    last_fullsized: str = ""


_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {
    PGBrief: msgspec.json.Decoder(list[PGBrief]),
    _Stuck: msgspec.json.Decoder(list[_Stuck]),
}


def _array_bounds(raw: bytes, key: str) -> tuple[int, int] | None:
    """Where the array of `{..., "<key>": [...]}` starts (its first entry) and ends (its `]`)."""
    head = f'"{key}":['.encode()
    start = raw.find(head)
    if start < 0:
        return None
    start += len(head)
    end = raw.rfind(b"]")
    if end < start or raw[end + 1:].strip() != b"}":
        return None
    return start, end


def decode_array(raw: bytes, key: str, item: type[T]) -> list[T] | None:
    """The array `{"<key>": [...]}` of `raw` as `item`s, a slice at a time; None if the shape differs."""
    bounds = _array_bounds(raw, key)
    if bounds is None:
        return None
    start, end = bounds
    decoder = _DECODERS[item]
    out: list[T] = []
    a = start
    try:
        while a < end:
            b = raw.find(_NEXT, a + SLICE, end) if a + SLICE < end else -1
            stop = end if b < 0 else b + 1
            out.extend(decoder.decode(b"[" + raw[a:stop] + b"]"))
            a = stop + 1  # past the comma, at the next element's "{"
            time.sleep(0)  # hand the GIL to the UI thread between slices
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):  # msgspec raises the latter
        return None  # for invalid UTF-8 in a string; the generic parser replaces it
    return out


def _pool_counts(pgs: Sequence[PGBrief]) -> Counter[tuple[str, str]]:
    """(pool, state) -> PGs; Counter counts the pairs in C."""
    return Counter(zip((pg.pgid.partition(".")[0] for pg in pgs), (pg.state for pg in pgs)))


def _piece(raw: bytes, pgs: list[PGBrief]) -> _Piece:
    return _Piece(raw, tuple(pgs), tuple(_pool_counts(pgs).items()))


def _pool_states(pairs: Counter[tuple[str, str]]) -> tuple[PoolPGStates, ...]:
    by_pool: dict[int, Counter[str]] = {}
    for (pool, state), n in pairs.items():
        try:
            by_pool.setdefault(int(pool), Counter())[state] += n
        except ValueError:
            continue
    return tuple(PoolPGStates(pool, tuple(StateCount(s, n) for s, n in c.most_common()))
                 for pool, c in sorted(by_pool.items()))


def per_pool_states(pgs: Sequence[PGBrief]) -> tuple[PoolPGStates, ...]:
    """PG counts by state for each pool."""
    return _pool_states(_pool_counts(pgs))


_CUT = b'0","state":'  # in the entry of a PG whose seed ends in 0 (one in 16) ...
_CUT_BEFORE = (b"0", b"1", b"2", b"3")  # ... and whose last two hex digits are 00-30: a cut every ~64 PGs
_ENTRY = b'{"pgid":"'


class _Piece(msgspec.Struct, gc=False):
    """Tuples, not lists or Counters: tuples of untracked objects drop out of the GC's scans."""

    raw: bytes  # from its first entry's "{" to its last entry's "}"
    pgs: tuple[PGBrief, ...]
    counts: tuple[tuple[tuple[str, str], int], ...]  # ((pool, state), PGs)

    @property
    def head(self) -> bytes:
        """`{"pgid":"1.a30"`: where this piece starts, findable in the next answer."""
        return self.raw[:self.raw.find(b'"', len(_ENTRY)) + 1]


def _sorted_by_pgid(pgs: Sequence[PGBrief]) -> list[int]:
    """Indexes of `pgs` in pgid order, sorted in runs of 8,192 merged in Python: one sort of
    200,000 keys is a single C call that holds the GIL (and freezes the UI) for ~300 ms here."""
    keys = [(pgid_key(pg.pgid), i) for i, pg in enumerate(pgs)]
    runs = []
    for a in range(0, len(keys), 8192):
        runs.append(sorted(keys[a:a + 8192]))
        time.sleep(0)
    return [i for _, i in heapq.merge(*runs)]


class _Changed(Exception):
    """The answer does not follow the last one's pieces (PGs added, removed or reordered)."""


class PGTable:
    """`pg dump pgs_brief` answers in, the PG table sorted by pgid and per-pool counts out.

    Keeps the last answer's pieces (bytes, decoded PGs, counts). A new answer is walked
    piece by piece: where the same bytes follow, the piece is reused (one memcmp);
    where they differ, the next piece's first pgid marks where the changed one ends and
    only that piece is decoded, and its PGs are put in place in the sorted table. With
    0.1 % of 200,000 PGs changing, about 6 % of the pieces are decoded. When PGs are
    added, removed or reordered, the answer is cut afresh and sorted again.
    """

    def __init__(self) -> None:
        self._pieces: list[_Piece] = []
        self._offsets: list[int] = []  # index of each piece's first PG in the mgr's order
        self._where: list[int] = []  # PG in the mgr's order -> its row in the sorted table
        self._total: Counter[tuple[str, str]] = Counter()  # (pool, state) -> PGs over all pieces
        # A list, new at each update (never changed after it is handed out), so that the app can free
        # an old one a slice at a time (CephTUI._free_buried) instead of in one 20 ms decref cascade.
        self.rows: list[PGBrief] = []
        self.pool_states: tuple[PoolPGStates, ...] = ()
        self.columns: PGColumns | None = None  # the rows as columns, for the filter
        self._codes = bytearray()  # the columns' state codes, kept up to date in place
        self._code_of: dict[str, int] = {}
        self.decoded = 0  # PGs decoded by the last update (the rest were reused)

    def update(self, raw: bytes) -> bool:
        """Take a new answer; False if its shape is not the one this decoder knows (nothing changed then)."""
        bounds = _array_bounds(raw, "pg_stats")
        if bounds is None:
            return False
        try:
            if self._pieces:
                try:
                    self._follow(raw, *bounds)
                    return True
                except _Changed:
                    pass
            self._cut(raw, *bounds)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):  # invalid UTF-8: see decode_array
            return False
        return True

    def _follow(self, raw: bytes, start: int, end: int) -> None:
        """The steady case: the same PGs in the same order, some of them changed."""
        old, decoder, pgid = self._pieces, _DECODERS[PGBrief], attrgetter("pgid")
        pieces: list[_Piece] = []
        changed: list[int] = []
        at = start
        work = 0
        for n, prev in enumerate(old):
            size = len(prev.raw)
            if raw[at:at + size] == prev.raw and raw[at + size:at + size + 1] in (b",", b"]"):
                pieces.append(prev)
                at += size + 1
                continue
            nxt = raw.find(old[n + 1].head, at) if n + 1 < len(old) else end + 1
            if nxt < 0:
                raise _Changed
            chunk = raw[at:nxt - 1]
            pgs = decoder.decode(b"[" + chunk + b"]")
            if list(map(pgid, pgs)) != list(map(pgid, prev.pgs)):
                raise _Changed
            pieces.append(_piece(chunk, pgs))
            changed.append(n)
            at = nxt
            work += len(chunk)
            if work > SLICE:
                work = 0
                time.sleep(0)  # hand the GIL to the UI thread between pieces
        if at != end + 1:
            raise _Changed  # PGs after the last piece
        rows = list(self.rows)
        total = self._total
        codes, code_of = self._codes, self._code_of
        for n in changed:
            base = self._offsets[n]
            for k, pg in enumerate(pieces[n].pgs):
                row = self._where[base + k]
                rows[row] = pg
                code = code_of.get(pg.state)
                if code is None:
                    code = code_of[pg.state] = len(code_of)
                codes[row] = code & 0xFF
            total.subtract(dict(old[n].counts))
            total.update(dict(pieces[n].counts))
        self._pieces, self.rows, self._total = pieces, rows, +total  # + drops zero counts
        if self.columns is not None:
            self.columns = None if len(code_of) > 255 else self.columns.with_states(
                bytes(codes), tuple(code_of), tuple(p.raw for p in pieces))
        self.pool_states = _pool_states(self._total)
        self.decoded = sum(len(pieces[n].pgs) for n in changed)

    def _cut(self, raw: bytes, start: int, end: int) -> None:
        """Cut the answer into pieces, decode them all and sort (first answer, or PGs changed)."""
        # Found one at a time, not by one big split: a C call over 25 MB would hold the GIL ~40 ms.
        cuts, find, rfind, step = [start], raw.find, raw.rfind, len(_CUT)
        at = find(_CUT, start, end)
        while at >= 0:
            if raw[at - 1:at] in _CUT_BEFORE:
                entry = rfind(_ENTRY, cuts[-1], at)
                if entry > cuts[-1]:
                    cuts.append(entry)
            at = find(_CUT, at + step, end)
        cuts.append(end + 1)  # as if a comma followed the last entry
        decoder = _DECODERS[PGBrief]
        pieces: list[_Piece] = []
        offsets: list[int] = []
        flat: list[PGBrief] = []
        for a, b in zip(cuts, cuts[1:]):
            chunk = raw[a:b - 1]  # without the comma before the next entry
            pgs = decoder.decode(b"[" + chunk + b"]") if chunk else []
            offsets.append(len(flat))
            flat.extend(pgs)
            pieces.append(_piece(chunk, pgs))
            time.sleep(0)  # hand the GIL to the UI thread between pieces
        perm = _sorted_by_pgid(flat)
        where = [0] * len(flat)
        for row, i in enumerate(perm):
            where[i] = row
        total: Counter[tuple[str, str]] = Counter()
        for p in pieces:
            total.update(dict(p.counts))
        self._pieces, self._offsets, self._where = pieces, offsets, where
        self.rows = [flat[i] for i in perm]  # a Python loop: lets the UI thread in
        self._total = total
        self.pool_states = _pool_states(total)
        self.decoded = len(flat)
        self._columns_of(tuple(p.raw for p in pieces))

    def _columns_of(self, answer: tuple[bytes, ...]) -> None:
        self.columns = PGColumns.of(self.rows, answer)
        if self.columns is not None:
            self._codes = bytearray(self.columns.state_codes)
            self._code_of = {name: i for i, name in enumerate(self.columns.state_names)}

    def replace(self, pgs: Sequence[PGBrief]) -> None:
        """PGs parsed elsewhere (another release's shape): sorted afresh, nothing kept."""
        self._pieces, self._offsets, self._where, self._total = [], [], [], Counter()
        self.rows = sorted(pgs, key=lambda pg: pgid_key(pg.pgid))
        self.pool_states = per_pool_states(self.rows)
        self.decoded = len(self.rows)
        self._columns_of(())


# ---------------------------------------------------------------------------- stuck PGs

# (kind, stamp field, state flag, the flag must be present?) as PGMap::get_stuck_stats tests them.
STUCK_RULES = (("inactive", "last_active", "active", False), ("unclean", "last_clean", "clean", False),
               ("stale", "last_unstale", "stale", True), ("undersized", "last_fullsized", "undersized", True),
               ("degraded", "last_undegraded", "degraded", True))
STUCK_KINDS = tuple(k for k, *_ in STUCK_RULES)


def classify_stuck(entries: Sequence[Any], threshold: float, now: float) -> tuple[StuckPG, ...]:
    """One row per PG from one `pg dump_stuck` of all five kinds (the mgr answers the union).

    Each row names the kinds it is stuck in, judged as the mgr judges: the state says
    so and the matching stamp is older than now - threshold. Longest stuck first.
    """
    cutoff = now - threshold
    rows = []
    for e in entries:
        flags = set(e.state.split("+"))
        kinds, oldest, since = [], None, ""
        for kind, field, flag, present in STUCK_RULES:
            if (flag in flags) != present:
                continue
            stamp = getattr(e, field)
            t = parse_stamp(stamp)
            if t is not None and t < cutoff:
                kinds.append(kind)
                if oldest is None or t < oldest:
                    oldest, since = t, stamp
        rows.append(StuckPG(pgid=e.pgid, state=e.state, kind=",".join(kinds) or "?", since=since,
                            seconds=(now - oldest) if oldest is not None else None, up=tuple(e.up),
                            acting=tuple(e.acting)))
    return tuple(sorted(rows, key=lambda s: (-(s.seconds or 0), s.pgid)))


def generic_stuck(d: Any) -> list[_Stuck]:
    """The same entries from an answer already parsed generically (shapes the fast path declines)."""
    from cephtui.ceph.snapshot.parse import int_tuple, pg_stats_list
    out = []
    for p in pg_stats_list(d, "stuck_pg_stats"):
        out.append(_Stuck(pgid=str(p.get("pgid", "")), state=str(p.get("state", "")), up=int_tuple(p.get("up")),
                          acting=int_tuple(p.get("acting")),
                          **{f: str(p.get(f) or "") for _, f, _, _ in STUCK_RULES}))
    return out
