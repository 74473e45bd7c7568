"""The PG table filter: plain words and `osd=N`, all of which must match."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .models import PGBrief


def pgid_key(pgid: str) -> tuple[int, int]:
    """Sort '1.a' before '1.10' (the part after the dot is hex)."""
    pool, _, seed = pgid.partition(".")
    try:
        return int(pool), int(seed, 16)
    except ValueError:
        return (1 << 62, 0)


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

    def select(self, pgs: Sequence[PGBrief], pool_names: dict[int, str] | None = None) -> list[PGBrief]:
        """The PGs that match, in order: what `matches` says of each, a column at a time.

        200,000 PGs take one tight comprehension per word (~20 ms here) instead of a
        method call per PG (~600 ms): a word is tested once against each distinct state
        and pool name, and per PG only a set lookup and a substring test on the pgid remain.
        """
        rows = list(pgs)
        for o in self.osds:
            rows = [pg for pg in rows if o in pg.up or o in pg.acting]
        pools = {f"{pid}.": name.lower() for pid, name in (pool_names or {}).items()}
        for w in self.words:
            if w[:-1].isdigit() and w.endswith("."):
                rows = [pg for pg in rows if pg.pgid.startswith(w)]
                continue
            states = {st for st in {pg.state for pg in rows} if w in st}
            prefixes = tuple(prefix for prefix, name in pools.items() if w in name)
            if prefixes:
                rows = [pg for pg in rows if pg.state in states or w in pg.pgid or pg.pgid.startswith(prefixes)]
            else:
                rows = [pg for pg in rows if pg.state in states or w in pg.pgid]
        return rows

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
