"""The two answers that grow with the PG count, decoded fast and in slices.

`pg dump pgs_brief` is 25 MB of JSON at 200,000 PGs and `pg dump_stuck` carries a
full pg_stat per stuck PG. Two things keep them from stalling the app:

- msgspec decodes each PG straight into its model (PGBrief, _Stuck), skipping the
  dict per PG, about 5x faster than the json module here;
- the array is decoded a slice (~1 MB) at a time, and the thread lets go of the GIL
  between slices: a decoder call holds the GIL throughout, so one 25 MB call would
  freeze the UI thread for its whole length.

An answer in any other shape (older or newer releases nest the array differently,
or a field has an unexpected type) returns None, and the caller uses the generic
parser instead: slower, never wrong.
"""
from __future__ import annotations

import time
from collections import Counter
from datetime import datetime, timezone
from typing import Any, Sequence, TypeVar

import msgspec

from .models import PGBrief, PoolPGStates, StateCount, StuckPG
from .pgfilter import pgid_key

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


def decode_array(raw: bytes, key: str, item: type[T]) -> list[T] | None:
    """The array `{"<key>": [...]}` of `raw` as `item`s, a slice at a time; None if the shape differs."""
    head = f'"{key}":['.encode()
    start = raw.find(head)
    if start < 0:
        return None
    start += len(head)
    end = raw.rfind(b"]")
    if end < start or raw[end + 1:].strip() != b"}":
        return None
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
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return out


class PGOrder:
    """Sorts PGs by pgid, remembering the permutation.

    The mgr lists PGs in its hash map's order, which stays put while no PG is added or
    removed, so after the first sort a refresh reorders by the remembered permutation
    instead of sorting 200,000 keys again.
    """

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._perm: list[int] = []

    def sort(self, pgs: list[PGBrief]) -> tuple[PGBrief, ...]:
        ids = [pg.pgid for pg in pgs]
        if ids != self._ids:
            keys = [pgid_key(i) for i in ids]
            self._perm = sorted(range(len(ids)), key=keys.__getitem__)
            self._ids = ids
        return tuple(map(pgs.__getitem__, self._perm))


def per_pool_states(pgs: Sequence[PGBrief]) -> tuple[PoolPGStates, ...]:
    """PG counts by state for each pool; Counter counts (pool, state) pairs in C."""
    pairs = Counter(zip((pg.pgid.partition(".")[0] for pg in pgs), (pg.state for pg in pgs)))
    by_pool: dict[int, Counter[str]] = {}
    for (pool, state), n in pairs.items():
        try:
            by_pool.setdefault(int(pool), Counter())[state] = n
        except ValueError:
            continue
    return tuple(PoolPGStates(pool, tuple(StateCount(s, n) for s, n in c.most_common()))
                 for pool, c in sorted(by_pool.items()))


# ---------------------------------------------------------------------------- stuck PGs

# (kind, stamp field, state flag, the flag must be present?) as PGMap::get_stuck_stats tests them.
STUCK_RULES = (("inactive", "last_active", "active", False), ("unclean", "last_clean", "clean", False),
               ("stale", "last_unstale", "stale", True), ("undersized", "last_fullsized", "undersized", True),
               ("degraded", "last_undegraded", "degraded", True))
STUCK_KINDS = tuple(k for k, *_ in STUCK_RULES)


def stamp_seconds(s: str) -> float | None:
    """A Ceph timestamp ('2026-11-22T11:03:05.431288+0000', or with a space) as epoch seconds."""
    if not s:
        return None
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        from .parse import parse_stamp  # other spellings: the slower, more forgiving parser
        return parse_stamp(s)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


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
            t = stamp_seconds(stamp)
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
    from .parse import _pg_stats_list, _ints
    out = []
    for p in _pg_stats_list(d, "stuck_pg_stats"):
        out.append(_Stuck(pgid=str(p.get("pgid", "")), state=str(p.get("state", "")), up=_ints(p.get("up")),
                          acting=_ints(p.get("acting")),
                          **{f: str(p.get(f) or "") for _, f, _, _ in STUCK_RULES}))
    return out
