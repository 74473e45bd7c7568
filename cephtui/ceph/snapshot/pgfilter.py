"""The PG table filter: plain words and `osd=N`, all of which must match."""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import accumulate, compress, repeat

from cephtui.ceph.snapshot.models import PGBrief

MANY = 80_000  # matches above which testing every pgid beats finding each match


def pgid_key(pgid: str) -> tuple[int, int]:
    """Sort '1.a' before '1.10' (the part after the dot is hex)."""
    pool, _, seed = pgid.partition(".")
    try:
        return int(pool), int(seed, 16)
    except ValueError:
        return (1 << 62, 0)


def _holds(word: str) -> Callable[[str], bool]:
    """A test for names that contain `word` (bound now, not to the loop's variable)."""
    return lambda name: word in name


@dataclass(frozen=True)
class PGColumns:
    """The PG table as columns, built in the poller thread, so that a filter never walks 200,000
    PG objects (scattered in memory, one pass over them costs 50-70 ms here): states and pools
    are a byte per row, masked by bytes.translate; pgids are texts searched in C; `osd=N` is
    searched in the mgr's own answer, which lists each PG's up and acting sets."""

    pgids: tuple[str, ...]  # row order
    state_codes: bytes  # a byte per row: its state's index in state_names
    state_names: tuple[str, ...]
    pool_codes: bytes  # a byte per row: its pool's index in pool_ids
    pool_ids: tuple[str, ...]  # "3" for pool 3
    seed_text: str  # the part of every pgid after the dot, each followed by a newline
    seed_starts: tuple[int, ...]  # where each row's seed starts in seed_text
    row_of: dict[str, int]  # pgid -> row
    answer: tuple[bytes, ...] = ()  # the `pg dump pgs_brief` answer, in pieces (may be empty)

    @classmethod
    def of(cls, rows: Sequence[PGBrief], answer: tuple[bytes, ...] = ()) -> PGColumns | None:
        """Columns of `rows`; None past 255 distinct states or pools (a byte per row holds no more)."""
        pgids = tuple(pg.pgid for pg in rows)
        seeds = [p.partition(".")[2] for p in pgids]
        names: dict[str, int] = {}
        pools: dict[str, int] = {}
        codes = bytes(names.setdefault(pg.state, len(names)) & 0xFF for pg in rows)
        pool_codes = bytes(pools.setdefault(p.partition(".")[0], len(pools)) & 0xFF for p in pgids)
        if len(names) > 255 or len(pools) > 255:
            return None
        return cls(pgids, codes, tuple(names), pool_codes, tuple(pools), "".join(x + "\n" for x in seeds),
                   starts_of(seeds), {p: i for i, p in enumerate(pgids)}, answer)

    def with_states(self, state_codes: bytes, state_names: tuple[str, ...],
                    answer: tuple[bytes, ...]) -> PGColumns:
        """The same PGs with new states (and answer): the pgid columns are shared, not rebuilt."""
        return replace(self, state_codes=state_codes, state_names=state_names, answer=answer)

    @staticmethod
    def _mask(codes: bytes, names: Sequence[str], test: Callable[[str], bool]) -> int:
        """Rows whose code's name passes `test`: one bytes.translate, a bit per byte."""
        table = bytes(1 if i < len(names) and test(names[i]) else 0 for i in range(256))
        return int.from_bytes(codes.translate(table), "little")

    def _seed_mask(self, word: str) -> int:
        """Rows whose pgid has `word` after the dot."""
        if word not in self.seed_text:
            return 0
        if self.seed_text.count(word) > MANY:  # most rows: test each (C-level, ~60 ms at 200k)
            seeds = (p.partition(".")[2] for p in self.pgids)
            return int.from_bytes(bytes(map(str.__contains__, seeds, repeat(word))), "little")
        hits = bytearray(len(self.pgids))
        starts = self.seed_starts
        for m in re.finditer(re.escape(word), self.seed_text):
            hits[bisect_right(starts, m.start()) - 1] = 1
        return int.from_bytes(hits, "little")

    def _seed_prefix_mask(self, prefix: str) -> int:
        """Rows whose pgid's part after the dot starts with `prefix`."""
        text, needle = "\n" + self.seed_text, "\n" + prefix
        if text.count(needle) > MANY:
            seeds = (p.partition(".")[2] for p in self.pgids)
            return int.from_bytes(bytes(map(str.startswith, seeds, repeat(prefix))), "little")
        hits = bytearray(len(self.pgids))
        starts = self.seed_starts
        for m in re.finditer(re.escape(needle), text):
            hits[bisect_right(starts, m.start()) - 1] = 1
        return int.from_bytes(hits, "little")

    def _pgid_mask(self, word: str, everything: int) -> int:
        """Rows whose pgid ("<pool>.<seed>") contains `word`."""
        if "." not in word:  # in the pool id or in the seed
            pools = self._mask(self.pool_codes, self.pool_ids, lambda p: word in p)
            return pools if pools == everything else pools | self._seed_mask(word)
        pool, _, seed = word.partition(".")
        if "." in seed:
            return 0
        # "<end of the pool id>.<start of the seed>"
        pools = self._mask(self.pool_codes, self.pool_ids, lambda p: p.endswith(pool))
        return pools & (self._seed_prefix_mask(seed) if seed else everything)

    @cached_property
    def osd_text(self) -> bytes:
        """The answer reduced to one line per PG, `d,<pgid>,...` then its up, acting and primaries
        as `,N,` (letters other than hex, quotes and '+' dropped, brackets and colons made commas).
        Made on the first `osd=N` of this snapshot, in the filter's thread: ~40 ms at 200,000 PGs."""
        return b"".join(piece.translate(_OSD_TABLE, _OSD_DROP) for piece in self.answer)

    def _osd_mask(self, osd: int, rows: Sequence[PGBrief]) -> int:
        """Rows with `osd` in their up or acting set."""
        hits = bytearray(len(rows))
        if not self.answer:
            for i, pg in enumerate(rows):
                if osd in pg.up or osd in pg.acting:
                    hits[i] = 1
            return int.from_bytes(hits, "little")
        text, needle = self.osd_text, b"," + str(osd).encode() + b","
        at = text.find(needle)
        while at >= 0:
            line = text.rfind(b"\n", 0, at) + 3  # past "\nd,": the pgid
            row = self.row_of.get(text[line:text.find(b",", line)].decode())
            if row is not None:
                hits[row] = 1
            at = text.find(needle, at + 1)
        return int.from_bytes(hits, "little")

    def select(self, flt: PGFilter, rows: Sequence[PGBrief], pool_names: dict[int, str]) -> list[PGBrief]:
        n = len(rows)
        keep = int.from_bytes(b"\x01" * n, "little")  # a byte per row, 1 = still matching
        everything = keep
        for o in flt.osds:
            keep &= self._osd_mask(o, rows)
        names = [pool_names.get(int(p), "").lower() if p.isdigit() else "" for p in self.pool_ids]
        for w in flt.words:
            if w[:-1].isdigit() and w.endswith("."):  # "3." means pool 3's PGs, not "13.x" too
                keep &= self._mask(self.pool_codes, self.pool_ids, w[:-1].__eq__)
                continue
            mask = self._mask(self.state_codes, self.state_names, _holds(w))
            mask |= self._mask(self.pool_codes, names, _holds(w))
            if mask != everything and set(w) <= PGID_CHARS:  # other letters cannot be in a pgid
                mask |= self._pgid_mask(w, everything)
            keep &= mask
        return list(compress(rows, keep.to_bytes(n, "little")))


PGID_CHARS = set("0123456789abcdef.")
# osd_text: keep digits, hex letters, '.', '-' and newlines; brackets, colons, braces become commas.
_OSD_TABLE = bytes.maketrans(b"[]:}{", b",,,,\n")
_OSD_DROP = bytes(set(range(256)) - set(b"0123456789abcdef.-,[]:}{"))


def starts_of(pgids: Sequence[str]) -> tuple[int, ...]:
    return (0, *accumulate(len(p) + 1 for p in pgids[:-1])) if pgids else ()


@dataclass(frozen=True)
class PGFilter:
    """`degraded 3.` keeps PGs whose state or id contains both words; `osd=2` keeps PGs on osd.2;
    a pool's name matches its PGs too."""

    text: str
    words: tuple[str, ...] = field(init=False)
    osds: tuple[int, ...] = field(init=False)
    error: str = field(init=False, default="")

    def __post_init__(self) -> None:
        words, osds, error = [], [], ""
        for w in self.text.lower().split():
            if w.startswith(("osd=", "osd.")):
                try:
                    osds.append(int(w[4:]))
                except ValueError:
                    error = f"'{w}': expected osd=N with a number"
            else:
                words.append(w)
        object.__setattr__(self, "words", tuple(words))
        object.__setattr__(self, "osds", tuple(osds))
        object.__setattr__(self, "error", error)

    def select(self, pgs: Sequence[PGBrief], pool_names: dict[int, str] | None = None,
               columns: PGColumns | None = None) -> list[PGBrief]:
        """The PGs that match, in order: what `matches` says of each, decided a column at a time
        (see PGColumns). Without `columns` of exactly `pgs` they are built here first."""
        if not (self.words or self.osds):
            return list(pgs)
        c = columns if columns is not None and len(columns.pgids) == len(pgs) else PGColumns.of(pgs)
        if c is None:  # more states or pools than a byte holds: one PG at a time
            return [pg for pg in pgs if self.matches(pg, pool_names)]
        return c.select(self, pgs, pool_names or {})

    def matches(self, pg: PGBrief, pool_names: dict[int, str] | None = None) -> bool:
        for o in self.osds:
            if o not in pg.up and o not in pg.acting:
                return False
        if not self.words:
            return True
        # Runs for every one of 100k PGs: test the fields in place rather than build a string per PG.
        pool = pool_names.get(pg.pool_id, "").lower() if pool_names else ""
        for w in self.words:
            if w[:-1].isdigit() and w.endswith("."):  # "3." means pool 3's PGs, not "13.x" too
                if not pg.pgid.startswith(w):
                    return False
            elif w not in pg.state and w not in pg.pgid and w not in pool:
                return False
        return True
