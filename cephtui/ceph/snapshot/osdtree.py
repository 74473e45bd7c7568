"""The OSD tree: `osd tree` + `osd df` + `osd perf` + `osd dump` states, joined per OSD.

Everything here runs in the poller thread. The tree is flattened into rows in
display order (depth-first, like `ceph osd tree`), so the pane only hands a
list to its virtual table; filtering and sorting 5,000 OSDs are list passes (osdview.py).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import msgspec

from cephtui.ceph.coerce import as_dict, as_str, as_strs, dicts
from cephtui.ceph.coerce import as_float as _f
from cephtui.ceph.coerce import as_int as _i
from cephtui.ceph.snapshot.models import Ratios

# Per-OSD state bits of the osdmap worth showing (`osd dump` osds[].state).
FLAG_STATES = ("noout", "nodown", "noup", "noin", "destroyed", "new", "full", "backfillfull", "nearfull")
FULLNESS = ("full", "backfillfull", "nearfull")  # worst first


# msgspec evaluates a Struct's annotations when the class is made: Python 3.9 has no `X | None`
# there, so the Structs below spell it Optional[X] / Union[X, Y].


class OSDInfo(msgspec.Struct, frozen=True, gc=False):
    """One OSD's row. A msgspec Struct: built for every OSD at every refresh, and at 10,000 OSDs
    a dataclass' __init__ alone cost 50 ms here; no references back, so no GC tracking."""

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
    commit_ms: Optional[int] = None  # noqa: UP045
    apply_ms: Optional[int] = None  # noqa: UP045
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


class BucketInfo(msgspec.Struct, frozen=True, gc=False):
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


class TreeRow(msgspec.Struct, frozen=True, gc=False):
    depth: int
    node: Union[OSDInfo, BucketInfo]  # noqa: UP007

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
    # Counted in the poller thread so the pane's summary line costs the UI thread nothing.
    num_up: int = 0
    num_in: int = 0
    fullness: tuple[tuple[str, int], ...] = ()  # (full / backfillfull / nearfull, OSDs), worst first

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

def _states(osd_dump: Any) -> dict[int, tuple[set[str], bool, bool]]:
    out: dict[int, tuple[set[str], bool, bool]] = {}
    for o in dicts(as_dict(osd_dump).get("osds")):
        out[_i(o.get("osd"))] = (set(as_strs(o.get("state"))), bool(o.get("up")), bool(o.get("in")))
    return out


def _id(n: dict[str, Any]) -> int | None:
    """A node's id: an int, or None when another shape (a string, a list) makes it unusable."""
    i = n.get("id")
    return i if isinstance(i, int) and not isinstance(i, bool) else None


def _nodes(tree: Any) -> dict[int, dict[str, Any]]:
    return {i: n for n in dicts(as_dict(tree).get("nodes")) if (i := _id(n)) is not None}


def _children(n: dict[str, Any]) -> list[int]:
    return [c for c in n.get("children") or () if isinstance(c, int) and not isinstance(c, bool)] \
        if isinstance(n.get("children"), list) else []


class Usage(msgspec.Struct, frozen=True, gc=False):
    """One OSD of `osd df` (field names as in Ceph's JSON; the rest is skipped)."""

    id: int
    device_class: str = ""
    crush_weight: Optional[float] = None  # noqa: UP045
    kb: int = 0
    kb_used: int = 0
    kb_avail: int = 0
    utilization: float = 0.0
    var: float = 0.0
    pgs: int = 0


class _Df(msgspec.Struct, gc=False):
    nodes: list[Usage] = []


class _PerfStats(msgspec.Struct, gc=False):
    commit_latency_ms: int = 0
    apply_latency_ms: int = 0


class _PerfInfo(msgspec.Struct, gc=False):
    id: int
    perf_stats: _PerfStats = msgspec.field(default_factory=_PerfStats)


class _PerfInfos(msgspec.Struct, gc=False):
    osd_perf_infos: list[_PerfInfo] = []


class _Perf(msgspec.Struct, gc=False):
    osdstats: Optional[_PerfInfos] = None  # noqa: UP045 - Pacific nests the list here ...
    osd_perf_infos: list[_PerfInfo] = []  # ... older releases do not


_DF = msgspec.json.Decoder(_Df)
_PERF = msgspec.json.Decoder(_Perf)


def usage_from_raw(raw: bytes) -> dict[int, Usage]:
    """`osd df` as bytes, decoded straight into Usage (5x the generic parse); other shapes generically."""
    try:
        return {u.id: u for u in _DF.decode(raw).nodes if u.id >= 0}
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):  # msgspec: invalid UTF-8 in a string
        from cephtui.ceph.snapshot.parse import loads_answer  # raises ParseError when the bytes are not JSON at all
        return usage_from_json(loads_answer(raw, "osd df"))


def usage_from_json(df: Any) -> dict[int, Usage]:
    out = {}
    for n in dicts(as_dict(df).get("nodes")):
        i = _i(n.get("id"))
        if i >= 0:
            out[i] = Usage(id=i, device_class=as_str(n.get("device_class")),
                           crush_weight=_f(n["crush_weight"]) if "crush_weight" in n else None, kb=_i(n.get("kb")),
                           kb_used=_i(n.get("kb_used")), kb_avail=_i(n.get("kb_avail")),
                           utilization=_f(n.get("utilization")), var=_f(n.get("var")), pgs=_i(n.get("pgs")))
    return out


def latency_from_raw(raw: bytes) -> dict[int, tuple[int, int]]:
    """`osd perf` as bytes: {osd: (commit ms, apply ms)}."""
    try:
        perf = _PERF.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):  # msgspec: invalid UTF-8 in a string
        from cephtui.ceph.snapshot.parse import loads_answer  # raises ParseError when the bytes are not JSON at all
        return latency_from_json(loads_answer(raw, "osd perf"))
    infos = perf.osdstats.osd_perf_infos if perf.osdstats is not None else perf.osd_perf_infos
    return {p.id: (p.perf_stats.commit_latency_ms, p.perf_stats.apply_latency_ms) for p in infos}


def latency_from_json(osd_perf: Any) -> dict[int, tuple[int, int]]:
    perf = as_dict(osd_perf)
    infos = dicts(as_dict(perf.get("osdstats") or perf).get("osd_perf_infos"))
    return {_i(p.get("id")): (_i(as_dict(p.get("perf_stats")).get("commit_latency_ms")),
                              _i(as_dict(p.get("perf_stats")).get("apply_latency_ms"))) for p in infos}


def build_table(tree: Any, df: Any = None, perf: Any = None, osd_dump: Any = None, ratios: Ratios | None = None,
                shadow_tree: Any = None) -> OSDTable:
    """Join `osd tree`, `osd df`, `osd perf` and `osd dump` into display rows (once; see OSDTableBuilder)."""
    return OSDTableBuilder().build(tree, usage_from_json(df), latency_from_json(perf), osd_dump, ratios, shadow_tree)


class _Static(msgspec.Struct, frozen=True, gc=False):
    """What `osd tree` and `osd dump` say of an OSD: fixed until the osdmap epoch moves."""

    name: str
    device_class: str
    crush_weight: Optional[float]  # noqa: UP045
    reweight: float
    primary_affinity: float
    up: bool
    in_: bool
    exists: bool
    flags: tuple[str, ...]
    host: str
    path: tuple[str, ...]


class OSDTableBuilder:
    """Builds the OSD table at every refresh; the part that comes from `osd tree` and `osd dump`
    (names, places in the hierarchy, states) is worked out once per map and reused while the
    same map objects come back, so a refresh costs a pass over usage and latency only."""

    def __init__(self) -> None:
        self._maps: tuple[Any, ...] = ()  # the (tree, dump, shadow tree) objects the cache was made from
        self._static: dict[int, _Static] = {}
        self._plan: list[_Step] = []

    def _statics(self, tree: Any, osd_dump: Any, shadow_tree: Any) -> tuple[dict[int, _Static], list[_Step]]:
        # By identity, holding the objects: the snapshot builder hands over the same objects until the
        # osdmap epoch moves (an id() alone could be reused by a new map once the old one is freed).
        key = (tree, osd_dump, shadow_tree)
        if len(self._maps) == 3 and all(a is b for a, b in zip(self._maps, key)) and self._static:
            return self._static, self._plan
        nodes = _nodes(tree)  # any shape: nodes without a usable id are skipped
        states = _states(osd_dump)
        parent: dict[int, int] = {}
        for i, n in nodes.items():
            for c in _children(n):
                parent[c] = i

        def place(i: int) -> tuple[str, tuple[str, ...]]:
            names: list[str] = []
            host = ""
            p = parent.get(i)
            while p is not None and p in nodes and len(names) < 32:
                names.append(as_str(nodes[p].get("name")))
                if not host and nodes[p].get("type") == "host":
                    host = as_str(nodes[p].get("name"))
                p = parent.get(p)
            return host, tuple(reversed(names))

        out: dict[int, _Static] = {}
        for n in [*(n for i, n in nodes.items() if i >= 0), *dicts(as_dict(tree).get("stray"))]:
            i = _i(n.get("id"))
            st, dump_up, dump_in = states.get(i, (set(), n.get("status") == "up", _f(n.get("reweight")) > 0))
            host, path = place(i)
            out[i] = _Static(
                name=as_str(n.get("name")) or f"osd.{i}", device_class=as_str(n.get("device_class")),
                crush_weight=_f(n["crush_weight"]) if "crush_weight" in n else None, reweight=_f(n.get("reweight")),
                primary_affinity=_f(n.get("primary_affinity", 1)),
                up=n.get("status") == "up" if "status" in n else dump_up,
                in_=_f(n.get("reweight")) > 0 if "reweight" in n else dump_in, exists=bool(n.get("exists", 1)),
                flags=tuple(f for f in FLAG_STATES if f in st), host=host, path=path)
        plan = _plan(tree, nodes, shadow_tree)
        self._maps, self._static, self._plan = key, out, plan
        return out, plan

    def build(self, tree: Any, usage: dict[int, Usage], lat: dict[int, tuple[int, int]],
              osd_dump: Any = None, ratios: Ratios | None = None, shadow_tree: Any = None) -> OSDTable:
        """`usage` from `osd df`, `lat` from `osd perf` (see usage_from_raw, latency_from_raw).

        `shadow_tree` is `osd crush tree --show-shadow`: when given, the device-class
        shadow hierarchies are appended after the real ones."""
        statics, plan = self._statics(tree, osd_dump, shadow_tree)
        ratios = ratios or Ratios()
        limits = [(name, limit * 100) for name, limit in (("full", ratios.full), ("backfillfull", ratios.backfillfull),
                                                          ("nearfull", ratios.nearfull)) if limit]
        none = Usage(id=-1)
        osds: dict[int, OSDInfo] = {}
        for i, s in statics.items():
            u = usage.get(i, none)
            flags = s.flags
            # The osdmap marks fullness only once the OSD reports it; the ratios say it at once.
            if u is not none and not any(f in FULLNESS for f in flags):
                full = next((name for name, limit in limits if u.utilization >= limit), None)
                if full:
                    flags = (*flags, full)
            c, a = lat.get(i, (None, None))
            osds[i] = OSDInfo(
                id=i, name=s.name, device_class=s.device_class or u.device_class,
                crush_weight=s.crush_weight if s.crush_weight is not None else (u.crush_weight or 0.0),
                reweight=s.reweight, primary_affinity=s.primary_affinity, up=s.up, in_=s.in_, exists=s.exists,
                kb=u.kb, kb_used=u.kb_used, kb_avail=u.kb_avail, utilization=u.utilization, var=u.var, pgs=u.pgs,
                commit_ms=c, apply_ms=a, flags=flags, host=s.host, path=s.path)

        rows = _rows_of(plan, osds)
        stray = tuple(sorted(_i(n.get("id")) for n in dicts(as_dict(tree).get("stray"))))
        fill = Counter(o.fullness for o in osds.values())
        return OSDTable(rows=tuple(rows), osds=tuple(osds[i] for i in sorted(osds)), stray=stray,
                        epoch=_i(as_dict(tree).get("epoch")), shadow=shadow_tree is not None,
                        num_up=sum(o.up for o in osds.values()), num_in=sum(o.in_ for o in osds.values()),
                        fullness=tuple((k, fill[k]) for k in FULLNESS))


class _Step(msgspec.Struct, frozen=True, gc=False):
    """One row of the tree in display order; `parent` is the index of its bucket's row (-1: a root)."""

    depth: int
    id: int
    parent: int
    name: str = ""
    type_name: str = ""
    shadow: bool = False


def _plan(tree: Any, nodes: dict[int, dict[str, Any]], shadow_tree: Any) -> list[_Step]:
    """The display order of the tree, as `ceph osd tree` lists it: depth-first, buckets as CRUSH
    holds them and OSDs by id; stray OSDs after the hierarchy; then the class shadow trees."""
    plan: list[_Step] = []
    snodes = _nodes(shadow_tree) if shadow_tree is not None else {}
    # A bucket linked under two parents is listed under each, as `ceph osd tree` does; but a damaged
    # answer (a bucket among its own descendants, or many links) must not walk forever or blow up.
    budget = 8 * (len(nodes) + len(snodes)) + 64

    def walk(node_id: int, depth: int, parent: int, where: dict[int, dict[str, Any]], shadow: bool,
             above: frozenset[int]) -> None:
        if len(plan) > budget:
            return
        if node_id >= 0:
            plan.append(_Step(depth, node_id, parent))
            return
        n = where.get(node_id)
        if n is None or depth > 32 or node_id in above:
            return
        at = len(plan)
        plan.append(_Step(depth, node_id, parent, as_str(n.get("name")), as_str(n.get("type")), shadow))
        for c in sorted(_children(n), key=lambda c: (c >= 0, c if c >= 0 else 0)):
            walk(c, depth + 1, at, where, shadow, above | {node_id})

    children = {c for n in nodes.values() for c in _children(n)}
    for i in nodes:
        if i < 0 and i not in children:
            walk(i, 0, -1, nodes, False, frozenset())
    for n in dicts(as_dict(tree).get("stray")):
        plan.append(_Step(0, _i(n.get("id")), -1))
    if shadow_tree is not None:
        sparent = {c for n in snodes.values() for c in _children(n)}
        for i, n in snodes.items():
            if i < 0 and i not in sparent and "~" in as_str(n.get("name")):
                walk(i, 0, -1, snodes, True, frozenset())
    return plan


def _rows_of(plan: list[_Step], osds: dict[int, OSDInfo]) -> list[TreeRow]:
    """The plan's rows with this refresh's OSDs; each bucket sums the OSDs under it and the
    weights of its direct children. Walked backwards, so children are done before their bucket."""
    n = len(plan)
    rows: list[TreeRow | None] = [None] * n
    total, up, in_, kb, used = [0] * n, [0] * n, [0] * n, [0] * n, [0] * n
    weight = [0.0] * n
    for at in range(n - 1, -1, -1):
        step = plan[at]
        p = step.parent
        if step.id >= 0:
            o = osds.get(step.id)
            if o is None:
                continue
            rows[at] = TreeRow(step.depth, o)
            if p >= 0:
                total[p] += 1
                up[p] += o.up
                in_[p] += o.in_
                kb[p] += o.kb
                used[p] += o.kb_used
                weight[p] += o.crush_weight
            continue
        b = BucketInfo(step.id, step.name, step.type_name, crush_weight=weight[at], osds_total=total[at],
                       osds_up=up[at], osds_in=in_[at], kb=kb[at], kb_used=used[at], shadow=step.shadow)
        rows[at] = TreeRow(step.depth, b)
        if p >= 0:
            total[p] += total[at]
            up[p] += up[at]
            in_[p] += in_[at]
            kb[p] += kb[at]
            used[p] += used[at]
            weight[p] += weight[at]
    return [r for r in rows if r is not None]
