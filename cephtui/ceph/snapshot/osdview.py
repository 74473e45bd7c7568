"""What the OSDs tab shows of an OSDTable: the filter words, the sort, folded buckets, the selection."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cephtui.ceph.snapshot.osdtree import (
    FLAG_STATES,
    OSDInfo,
    OSDTable,
    TreeRow,
)

SORTS = ("tree", "util", "latency", "pgs")


@dataclass(frozen=True)
class OSDFilter:
    """Words that must all match an OSD: name or id, host or any bucket above it, class, state, flag.

    `up`/`down`/`in`/`out` and flags (`noout`, `nearfull` ...) match state; `osd.12`
    or `12` the OSD; anything else a substring of the name, class or a bucket name.
    """

    text: str = ""

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(w.lower() for w in self.text.split())

    def matches(self, o: OSDInfo) -> bool:
        for w in self.words:
            if not self._word(w, o):
                return False
        return True

    @staticmethod
    def _word(w: str, o: OSDInfo) -> bool:
        if w in ("up", "down", "destroyed"):
            return o.status == w
        if w in ("in", "out"):
            return o.in_ == (w == "in")
        if w in FLAG_STATES:
            return w in o.flags
        # isdecimal + ascii + length: "²" is a digit int() refuses, and 5,000 digits exceed int()'s limit.
        if _osd_number(w):
            return o.id == int(w)
        if w.startswith("osd.") and _osd_number(w[4:]):
            return o.id == int(w[4:])
        return (w in o.name or w == o.device_class.lower() or any(w in b.lower() for b in o.path)
                or w in o.device_class.lower())


def _osd_number(w: str) -> bool:
    return w.isascii() and w.isdecimal() and len(w) < 12


def view(table: OSDTable, flt: OSDFilter, sort: str = "tree",
         collapsed: frozenset[tuple[int, bool]] = frozenset()) -> list[TreeRow]:
    """The rows to display: the tree (matching OSDs with their ancestors) or a flat sorted list.

    In the tree, buckets whose key is in `collapsed` are shown without what is under them.
    """
    return _fold(_rows(table, flt, sort), collapsed) if sort == "tree" else _rows(table, flt, sort)


def _fold(rows: list[TreeRow], collapsed: frozenset[tuple[int, bool]]) -> list[TreeRow]:
    if not collapsed:
        return rows
    out: list[TreeRow] = []
    hidden_below: int | None = None
    for r in rows:
        if hidden_below is not None:
            if r.depth > hidden_below:
                continue
            hidden_below = None
        out.append(r)
        if not r.is_osd and r.key in collapsed:
            hidden_below = r.depth
    return out


def _rows(table: OSDTable, flt: OSDFilter, sort: str) -> list[TreeRow]:
    if sort != "tree":
        osd_rows = [TreeRow(0, o) for o in table.osds if flt.matches(o)]
        key = {
            "util": lambda r: -r.node.utilization,
            "latency": lambda r: -(r.node.commit_ms or 0),
            "pgs": lambda r: -r.node.pgs,
        }.get(sort, lambda r: r.node.id)
        osd_rows.sort(key=lambda r: (key(r), r.node.id))
        return osd_rows
    if not flt.words:
        return list(table.rows)
    # Keep a bucket only if something under it matched: walk back up from each match.
    keep: list[bool] = [False] * len(table.rows)
    stack: list[int] = []  # indexes of the open ancestors
    for i, row in enumerate(table.rows):
        while stack and table.rows[stack[-1]].depth >= row.depth:
            stack.pop()
        if row.is_osd:
            if flt.matches(row.node):  # type: ignore[arg-type]
                keep[i] = True
                for a in stack:
                    keep[a] = True
        else:
            stack.append(i)
    return [r for r, k in zip(table.rows, keep) if k]


def selected_osds(rows: Sequence[TreeRow], table: OSDTable, index: int) -> tuple[int, ...]:
    """The OSDs a row stands for: itself, or every OSD under a bucket."""
    if not 0 <= index < len(rows):
        return ()
    row = rows[index]
    if row.is_osd:
        return (row.node.id,)
    return table.subtree_osds(row.node.id)


def osd_names(ids: Iterable[int]) -> str:
    return ", ".join(f"osd.{i}" for i in ids)
