"""The OSD tree: `osd tree` + `osd df` + `osd perf` + `osd dump` states, joined per OSD.

Everything here runs in the poller thread. The tree is flattened into rows in
display order (depth-first, like `ceph osd tree`), so the pane only hands a
list to its virtual table; filtering and sorting 5,000 OSDs are list passes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .coerce import as_float as _f, as_int as _i
from .models import Ratios

# Per-OSD state bits of the osdmap worth showing (`osd dump` osds[].state).
FLAG_STATES = ("noout", "nodown", "noup", "noin", "destroyed", "new", "full", "backfillfull", "nearfull")
FULLNESS = ("full", "backfillfull", "nearfull")  # worst first


@dataclass(frozen=True)
class OSDInfo:
    id: int
    name: str
    device_class: str = ""
    crush_weight: float = 0.0
    reweight: float = 0.0
    primary_affinity: float = 1.0
    up: bool = False
    in_: bool = False
    exists: bool = True
    kb: int = 0
    kb_used: int = 0
    kb_avail: int = 0
    utilization: float = 0.0  # percent, as `ceph osd df` prints it
    var: float = 0.0
    pgs: int = 0
    commit_ms: int | None = None
    apply_ms: int | None = None
    flags: tuple[str, ...] = ()  # noout, nodown ..., and nearfull/backfillfull/full
    host: str = ""
    path: tuple[str, ...] = ()  # bucket names from the root down, for filtering

    @property
    def status(self) -> str:
        return "up" if self.up else ("destroyed" if "destroyed" in self.flags else "down")

    @property
    def fullness(self) -> str:
        """The worst of full / backfillfull / nearfull, or ''."""
        return next((f for f in FULLNESS if f in self.flags), "")


@dataclass(frozen=True)
class BucketInfo:
    id: int
    name: str
    type_name: str
    crush_weight: float = 0.0
    osds_total: int = 0
    osds_up: int = 0
    osds_in: int = 0
    kb: int = 0
    kb_used: int = 0
    shadow: bool = False  # a device-class shadow tree (default~hdd)

    @property
    def utilization(self) -> float:
        return self.kb_used * 100.0 / self.kb if self.kb else 0.0


@dataclass(frozen=True)
class TreeRow:
    depth: int
    node: OSDInfo | BucketInfo

    @property
    def is_osd(self) -> bool:
        return isinstance(self.node, OSDInfo)

    @property
    def key(self) -> tuple[int, bool]:
        return (self.node.id, isinstance(self.node, BucketInfo) and self.node.shadow)


@dataclass(frozen=True)
class OSDTable:
    rows: tuple[TreeRow, ...]  # the whole tree, display order, shadow trees last when asked for
    osds: tuple[OSDInfo, ...]  # every OSD (in the tree or stray), by id
    stray: tuple[int, ...] = ()  # OSDs that exist but are in no CRUSH bucket
    epoch: int = 0
    shadow: bool = False
    notes: tuple[str, ...] = field(default=())

    def osd(self, osd_id: int) -> OSDInfo | None:
        for o in self.osds:
            if o.id == osd_id:
                return o
        return None

    def subtree_osds(self, bucket_id: int) -> tuple[int, ...]:
        """OSD ids under a bucket row (as displayed in the full tree)."""
        out: list[int] = []
        inside, depth = False, 0
        for row in self.rows:
            if not inside:
                if not row.is_osd and row.node.id == bucket_id:
                    inside, depth = True, row.depth
                continue
            if row.depth <= depth:
                break
            if row.is_osd:
                out.append(row.node.id)
        return tuple(sorted(set(out)))


# ------------------------------------------------------------------ building

def _states(osd_dump: dict[str, Any] | None) -> dict[int, tuple[set[str], bool, bool]]:
    out: dict[int, tuple[set[str], bool, bool]] = {}
    for o in (osd_dump or {}).get("osds") or ():
        out[_i(o.get("osd"))] = (set(o.get("state") or ()), bool(o.get("up")), bool(o.get("in")))
    return out


def _perf(osd_perf: dict[str, Any] | None) -> dict[int, tuple[int, int]]:
    perf = osd_perf or {}
    infos = (perf.get("osdstats") or perf).get("osd_perf_infos") or ()
    return {_i(p.get("id")): (_i((p.get("perf_stats") or {}).get("commit_latency_ms")),
                              _i((p.get("perf_stats") or {}).get("apply_latency_ms"))) for p in infos}


def build_table(tree: dict[str, Any], df: dict[str, Any] | None = None, perf: dict[str, Any] | None = None,
                osd_dump: dict[str, Any] | None = None, ratios: Ratios | None = None,
                shadow_tree: dict[str, Any] | None = None) -> OSDTable:
    """Join `osd tree`, `osd df`, `osd perf` and `osd dump` into display rows.

    `shadow_tree` is `osd crush tree --show-shadow`: when given, the device-class
    shadow hierarchies are appended after the real ones.
    """
    nodes = {n["id"]: n for n in tree.get("nodes") or () if "id" in n}
    usage = {_i(n.get("id")): n for n in (df or {}).get("nodes") or () if _i(n.get("id")) >= 0}
    lat = _perf(perf)
    states = _states(osd_dump)
    ratios = ratios or Ratios()

    parent: dict[int, int] = {}
    for n in nodes.values():
        for c in n.get("children") or ():
            parent[c] = n["id"]

    def path_of(i: int) -> tuple[str, ...]:
        names: list[str] = []
        p = parent.get(i)
        while p is not None and p in nodes and len(names) < 32:
            names.append(nodes[p].get("name", ""))
            p = parent.get(p)
        return tuple(reversed(names))

    def host_of(i: int) -> str:
        p = parent.get(i)
        while p is not None and p in nodes:
            if nodes[p].get("type") == "host":
                return nodes[p].get("name", "")
            p = parent.get(p)
        return ""

    def osd_info(n: dict[str, Any]) -> OSDInfo:
        i = _i(n.get("id"))
        u = usage.get(i, {})
        st, dump_up, dump_in = states.get(i, (set(), n.get("status") == "up", _f(n.get("reweight")) > 0))
        util = _f(u.get("utilization"))
        flags = [f for f in FLAG_STATES if f in st]
        # The osdmap marks fullness only once the OSD reports it; the ratios say it at once.
        if not any(f in flags for f in FULLNESS) and u:
            for name, limit in (("full", ratios.full), ("backfillfull", ratios.backfillfull),
                                ("nearfull", ratios.nearfull)):
                if limit and util >= limit * 100:
                    flags.append(name)
                    break
        c, a = lat.get(i, (None, None))
        return OSDInfo(
            id=i, name=n.get("name") or f"osd.{i}", device_class=n.get("device_class") or u.get("device_class") or "",
            crush_weight=_f(n.get("crush_weight", u.get("crush_weight"))), reweight=_f(n.get("reweight")),
            primary_affinity=_f(n.get("primary_affinity", 1)), up=n.get("status") == "up" if "status" in n else dump_up,
            in_=_f(n.get("reweight")) > 0 if "reweight" in n else dump_in, exists=bool(n.get("exists", 1)),
            kb=_i(u.get("kb")), kb_used=_i(u.get("kb_used")), kb_avail=_i(u.get("kb_avail")), utilization=util,
            var=_f(u.get("var")), pgs=_i(u.get("pgs")), commit_ms=c, apply_ms=a, flags=tuple(flags),
            host=host_of(i), path=path_of(i),
        )

    osds: dict[int, OSDInfo] = {i: osd_info(n) for i, n in nodes.items() if i >= 0}
    for n in tree.get("stray") or ():
        osds[_i(n.get("id"))] = osd_info(n)

    rows: list[TreeRow] = []
    roots = [n for i, n in nodes.items() if i < 0 and i not in parent]
    for root in roots:
        _walk(root["id"], 0, nodes, osds, rows, shadow=False)
    # OSDs that exist but sit in no bucket: `ceph osd tree` lists them after the hierarchy too.
    for n in tree.get("stray") or ():
        rows.append(TreeRow(0, osds[_i(n.get("id"))]))
    if shadow_tree is not None:
        snodes = {n["id"]: n for n in shadow_tree.get("nodes") or () if "id" in n}
        sparent = {c for n in snodes.values() for c in n.get("children") or ()}
        for i, n in snodes.items():
            if i < 0 and i not in sparent and "~" in n.get("name", ""):
                _walk(i, 0, snodes, osds, rows, shadow=True)

    stray = tuple(sorted(_i(n.get("id")) for n in tree.get("stray") or ()))
    return OSDTable(rows=tuple(rows), osds=tuple(osds[i] for i in sorted(osds)), stray=stray,
                    epoch=_i(tree.get("epoch")), shadow=shadow_tree is not None)


def _walk(node_id: int, depth: int, nodes: dict[int, dict[str, Any]], osds: dict[int, OSDInfo],
          rows: list[TreeRow], shadow: bool) -> tuple[int, int, int, int, int]:
    """Append the subtree's rows depth-first; return (total, up, in, kb, kb_used) of its OSDs."""
    if node_id >= 0:
        o = osds.get(node_id)
        if o is None:
            return (0, 0, 0, 0, 0)
        rows.append(TreeRow(depth, o))
        return (1, int(o.up), int(o.in_), o.kb, o.kb_used)
    n = nodes.get(node_id)
    if n is None or depth > 32:
        return (0, 0, 0, 0, 0)
    at = len(rows)
    rows.append(TreeRow(depth, BucketInfo(node_id, n.get("name", ""), n.get("type", ""))))  # placeholder
    # `ceph osd tree` lists buckets as CRUSH holds them and OSDs by id.
    children = sorted(n.get("children") or (), key=lambda c: (c >= 0, c if c >= 0 else 0))
    totals = [0, 0, 0, 0, 0]
    for c in children:
        for k, v in enumerate(_walk(c, depth + 1, nodes, osds, rows, shadow)):
            totals[k] += v
    weight = sum(r.node.crush_weight for r in rows[at + 1:] if r.depth == depth + 1)
    rows[at] = TreeRow(depth, BucketInfo(node_id, n.get("name", ""), n.get("type", ""), crush_weight=weight,
                                         osds_total=totals[0], osds_up=totals[1], osds_in=totals[2],
                                         kb=totals[3], kb_used=totals[4], shadow=shadow))
    return (totals[0], totals[1], totals[2], totals[3], totals[4])


# ------------------------------------------------------------------ filter and sort

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
        if w.isdigit():
            return o.id == int(w)
        if w.startswith("osd.") and w[4:].isdigit():
            return o.id == int(w[4:])
        return (w in o.name or w == o.device_class.lower() or any(w in b.lower() for b in o.path)
                or w in o.device_class.lower())


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
