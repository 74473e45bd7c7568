"""Property tests: every JSON parser returns its model for any answer, captured or damaged.

Each test starts from a captured Pacific answer, damages it (see test_props_strategies) and
checks that the parser returns its model with the declared field types (a `str` field holding
an int would crash the pane that calls `.lower()` on it), never an exception.
"""
from __future__ import annotations

import ast
import dataclasses
import math
import sys
import types
import typing
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cephtui.ceph.crush.model import (
    CrushMap,
    check_add_bucket,
    check_ec_profile,
    check_move,
    check_remove_bucket,
    check_rename,
    check_rule_create,
    check_rule_remove,
    iter_tree,
    parse_crush,
)
from cephtui.ceph.snapshot import parse, pools, users
from cephtui.ceph.snapshot.models import (
    Capacity,
    Health,
    IORates,
    LogEntry,
    MgrSummary,
    MonSummary,
    OSDStat,
    PGBrief,
    PGSummary,
    ProgressEvent,
    Ratios,
    Recovery,
)
from cephtui.ceph.snapshot.osdtree import OSDTable, OSDTableBuilder, build_table
from cephtui.ceph.snapshot.osdview import SORTS, OSDFilter, selected_osds, view
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows import maintenance_plan as mplan
from tests.unit.test_props_strategies import FAST, QUICK, SCENARIOS, answer, damaged, fixture_json, json_value

# ------------------------------------------------------------------ the model checker

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        import cephtui.ceph.crush.model  # noqa: E401,F401
        ns: dict[str, Any] = {}
        for m in ("cephtui.ceph.snapshot.models", "cephtui.ceph.crush.model", "cephtui.ceph.snapshot.osdtree",
                  "cephtui.ceph.snapshot.pools", "cephtui.ceph.snapshot.users", "cephtui.ceph.bench.osdbench",
                  "cephtui.ceph.snapshot.pgdump"):
            ns.update(vars(__import__(m, fromlist=["_"])))
        _HINTS[cls] = typing.get_type_hints(cls, globalns=ns) if sys.version_info >= (3, 10) else _hints_39(cls, ns)
    return _HINTS[cls]


class _Pep604(ast.NodeTransformer):
    """`A | B` as `Union[A, B]`: the models' annotations, evaluated on Python 3.9."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.BitOr):
            return node
        union = ast.Attribute(ast.Name("typing", ast.Load()), "Union", ast.Load())
        return ast.Subscript(union, ast.Tuple([node.left, node.right], ast.Load()), ast.Load())


def _hints_39(cls: type, ns: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        scope = {**ns, **vars(sys.modules[klass.__module__]), "typing": typing}
        for name, text in vars(klass).get("__annotations__", {}).items():
            if isinstance(text, str):
                tree = ast.fix_missing_locations(_Pep604().visit(ast.parse(text, mode="eval")))
                out[name] = eval(compile(tree, "<annotation>", "eval"), scope)  # our own models
            else:
                out[name] = text
    return out


def conforms(value: Any, tp: Any, where: str) -> None:
    """Assert `value` is of the annotated type `tp` (the subset of typing our models use)."""
    if tp is Any:
        return
    origin = typing.get_origin(tp)
    if origin in (typing.Union, getattr(types, "UnionType", typing.Union)):  # UnionType: 3.10+
        for alt in typing.get_args(tp):
            try:
                conforms(value, alt, where)
                return
            except AssertionError:
                continue
        raise AssertionError(f"{where}: {value!r} is none of {tp}")
    if tp is type(None):
        assert value is None, f"{where}: {value!r} is not None"
        return
    if tp is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where}: {value!r} is not a float"
        return
    if tp is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {value!r} is not an int"
        return
    if tp in (str, bool, bytes):
        assert isinstance(value, tp), f"{where}: {value!r} is not {tp.__name__}"
        return
    if origin is tuple:
        assert isinstance(value, tuple), f"{where}: {value!r} is not a tuple"
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            for i, v in enumerate(value):
                conforms(v, args[0], f"{where}[{i}]")
        elif args:
            assert len(args) == len(value), f"{where}: {value!r} has not {len(args)} items"
            for i, (v, a) in enumerate(zip(value, args)):
                conforms(v, a, f"{where}[{i}]")
        return
    if origin in (list, dict) or tp in (list, dict):
        assert isinstance(value, origin or tp), f"{where}: {value!r} is not a {origin or tp}"
        return
    if isinstance(tp, type) and (dataclasses.is_dataclass(tp) or issubclass(tp, msgspec.Struct)):
        assert isinstance(value, tp), f"{where}: {value!r} is not a {tp.__name__}"
        model(value, where)
        return
    raise AssertionError(f"{where}: cannot check type {tp}")  # extend the checker, do not skip


def model(obj: Any, where: str = "") -> Any:
    """Check every field of a dataclass / msgspec Struct against its annotation; returns obj."""
    cls = type(obj)
    names = ([f.name for f in dataclasses.fields(obj) if f.init] if dataclasses.is_dataclass(obj)
             else list(cls.__struct_fields__))
    hints = _hints(cls)
    for name in names:
        conforms(getattr(obj, name), hints[name], f"{where or cls.__name__}.{name}")
    return obj


@pytest.mark.parametrize("text", ["²", "osd.²", "9" * 5000, "osd." + "9" * 5000, "٣", "osd.٣"])
def test_osd_filter_words_that_look_like_numbers(text: str) -> None:
    t = build_table(answer("healthy", "mon", "osd tree"))
    assert view(t, OSDFilter(text), "tree") == []  # no OSD has such an id; and no exception


def test_the_checker_catches_a_wrong_type() -> None:
    with pytest.raises(AssertionError, match="status"):
        model(Health(status=5))  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="detail"):
        model(Health("HEALTH_OK", checks=(parse.HealthCheck("X", "HEALTH_WARN", "s", detail=(1,)),)))  # type: ignore[arg-type]
    model(parse.parse_health(answer("osd_down", "mon", "health", detail="detail")))


# ------------------------------------------------------------------ parse.py

def _status(s: str) -> Any:
    return answer(s, "mon", "status")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_health(scenario: str) -> None:
    @given(st.one_of(damaged(answer(scenario, "mon", "health", detail="detail")),
                     damaged(_status(scenario)).map(lambda d: d.get("health") if isinstance(d, dict) else d)))
    @FAST
    def check(d: Any) -> None:
        h = model(parse.parse_health(d))
        assert isinstance(h, Health) and isinstance(h.short, str)
        [c.count for c in h.checks]
    check()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_status_pgmap_parsers(scenario: str) -> None:
    @given(damaged(_status(scenario)))
    @FAST
    def check(d: Any) -> None:
        pgmap = d.get("pgmap") if isinstance(d, dict) else d
        osdmap = d.get("osdmap") if isinstance(d, dict) else d
        progress = d.get("progress_events") if isinstance(d, dict) else d
        for fn, cls in ((parse.parse_io, IORates), (parse.parse_recovery, Recovery),
                        (parse.parse_pgs_by_state, PGSummary), (parse.capacity_from_pgmap, Capacity)):
            assert isinstance(model(fn(pgmap)), cls)
        rec = parse.parse_recovery(pgmap)
        rec.eta_seconds(parse.parse_io(pgmap))
        s = model(parse.parse_osd_stat(osdmap))
        assert isinstance(s, OSDStat) and isinstance(s.down, int)
        events = parse.parse_progress(progress)
        assert all(isinstance(model(e), ProgressEvent) and 0.0 <= e.fraction <= 1.0 for e in events)
        pgs = parse.parse_pgs_by_state(pgmap)
        pgs.count_with("degraded"), pgs.clean
    check()


@given(st.one_of(damaged(answer("osd_down", "mon", "quorum_status")), json_value))
@FAST
def test_quorum(d: Any) -> None:
    m = model(parse.parse_quorum(d))
    assert isinstance(m, MonSummary) and isinstance(m.out_of_quorum, tuple)


@given(st.one_of(damaged(answer("healthy", "mon", "mgr dump")), damaged(answer("healthy", "mon", "mgr stat"))))
@FAST
def test_mgr(d: Any) -> None:
    assert isinstance(model(parse.parse_mgr(d)), MgrSummary)


@given(damaged(answer("osd_down", "mon", "osd stat")))
@FAST
def test_osd_stat(d: Any) -> None:
    assert isinstance(model(parse.parse_osd_stat(d)), OSDStat)


@pytest.mark.parametrize("scenario", ("healthy", "nearfull"))
def test_ratios(scenario: str) -> None:
    @given(damaged(answer(scenario, "mon", "osd dump")))
    @QUICK
    def check(d: Any) -> None:
        r = model(parse.parse_ratios(d))
        assert isinstance(r, Ratios) and all(math.isfinite(x) and x > 0 for x in (r.nearfull, r.backfillfull, r.full))
    check()


@given(damaged(answer("nearfull", "mon", "df", detail="detail")))
@FAST
def test_df(d: Any) -> None:
    c = model(parse.parse_df(d))
    assert isinstance(c, Capacity) and math.isfinite(c.ratio)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pg_stat(scenario: str) -> None:
    @given(damaged(answer(scenario, "mgr", "pg stat")))
    @QUICK
    def check(d: Any) -> None:
        assert isinstance(model(parse.parse_pg_stat(d)), PGSummary)
    check()


@given(damaged(answer("osd_down", "mgr", "pg dump", dumpcontents=["pgs_brief"])))
@FAST
def test_pg_brief(d: Any) -> None:
    pgs = parse.parse_pg_brief(d)
    assert all(isinstance(model(p), PGBrief) for p in pgs)
    for p in pgs:
        assert isinstance(p.pool_id, int)


@given(st.one_of(st.text(max_size=40), st.sampled_from(["2026-11-22T11:03:05.431288+0000", "2026-11-22 11:03:05.4",
                                                        "9999-12-31T23:59:59+1400", "0001-01-01T00:00:00-2359",
                                                        "2026-02-30T00:00:00", "1970-01-01T00:00:00.000000"])))
@FAST
def test_stamp(s: str) -> None:
    t = parse.parse_stamp(s)
    assert t is None or math.isfinite(t)


log_entry = st.fixed_dictionaries({}, optional={k: json_value for k in ("stamp", "name", "channel", "priority",
                                                                         "message", "seq")})


@given(st.one_of(json_value, st.lists(st.one_of(log_entry, json_value), max_size=6)))
@FAST
def test_log(d: Any) -> None:
    entries = parse.parse_log(d)
    assert all(isinstance(model(e), LogEntry) for e in entries)
    [hash(e.key) for e in entries]  # the snapshot keys entries by this


progress_event = st.fixed_dictionaries({}, optional={"message": json_value, "progress": json_value})


@given(st.one_of(json_value, st.dictionaries(st.text(max_size=5), st.one_of(progress_event, json_value), max_size=4)))
@FAST
def test_progress(d: Any) -> None:
    assert all(0.0 <= model(e).fraction <= 1.0 for e in parse.parse_progress(d))


# ------------------------------------------------------------------ users.py

auth_entry = st.fixed_dictionaries({}, optional={
    "entity": st.one_of(st.sampled_from(["client.admin", "osd.0", "client.bootstrap-osd", "mgr.x", ""]), json_value),
    "key": json_value,
    "caps": st.one_of(st.dictionaries(st.sampled_from(["mon", "osd", "mgr", "mds", "x"]),
                                      st.one_of(st.text(max_size=12), json_value), max_size=4), json_value)})


@given(st.one_of(json_value, st.lists(st.one_of(auth_entry, json_value), max_size=5),
                 st.fixed_dictionaries({"auth_dump": st.one_of(st.lists(st.one_of(auth_entry, json_value),
                                                                        max_size=5), json_value)})))
@FAST
def test_auth_ls(d: Any) -> None:
    for e in users.parse_auth_ls(d):
        assert isinstance(e.name, str) and all(isinstance(s, str) and isinstance(c, str) for s, c in e.caps)
        e.is_daemon, e.cap("mon"), e.caps_dict


# ------------------------------------------------------------------ pools.py

pool_rows = st.lists(st.one_of(st.fixed_dictionaries({}, optional={
    "pool_id": st.one_of(st.integers(-1, 5), json_value), "pool_name": json_value,
    "client_io_rate": st.one_of(st.dictionaries(st.sampled_from(["read_bytes_sec", "write_op_per_sec"]), json_value),
                                json_value),
    "pg_num_final": json_value, "rule_id": st.one_of(st.integers(-1, 5), json_value), "rule_name": json_value}),
    json_value), max_size=4)


@pytest.mark.parametrize("scenario", ("healthy", "nearfull"))
def test_build_pools(scenario: str) -> None:
    usage = parse.parse_df(answer(scenario, "mon", "df", detail="detail")).pools

    @given(damaged(answer(scenario, "mon", "osd dump")), st.one_of(pool_rows, json_value),
           st.one_of(pool_rows, json_value), st.one_of(pool_rows, json_value))
    @FAST
    def check(dump: Any, stats: Any, autoscale: Any, rules: Any) -> None:
        for p in pools.build_pools(dump, usage, stats, autoscale, rules):
            model(p)
            assert isinstance(p.kind, str)
    check()


# ------------------------------------------------------------------ osdtree.py (generic inputs)

def _use_table(t: OSDTable, text: str) -> None:
    """What the OSDs pane does with a table: filter (typed text), sort, fold, select."""
    for sort in SORTS:
        rows = view(t, OSDFilter(text), sort, frozenset(r.key for r in t.rows[:2]))
        for i in range(min(len(rows), 3)):
            selected_osds(rows, t, i)
    for o in t.osds:
        model(o)
        _ = o.status, o.fullness  # properties: they must compute
    for r in t.rows:
        model(r.node)
        if not r.is_osd:
            t.subtree_osds(r.node.id)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_osd_table(scenario: str) -> None:
    tree, dump = answer(scenario, "mon", "osd tree"), answer(scenario, "mon", "osd dump")
    shadow = answer(scenario, "mon", "osd crush tree", shadow="--show-shadow")
    df, perf = answer(scenario, "mgr", "osd df"), answer(scenario, "mgr", "osd perf")

    @given(damaged(tree), st.one_of(st.just(dump), damaged(dump)), st.one_of(st.none(), damaged(shadow)),
           st.one_of(st.just(df), damaged(df)), st.one_of(st.just(perf), damaged(perf)),
           st.one_of(st.text(max_size=10), st.sampled_from(["²", "osd.²", "9" * 5000, "osd.1 up", "٣", "host"])))
    @settings(FAST, max_examples=80)
    def check(tree: Any, dump: Any, shadow: Any, df: Any, perf: Any, text: str) -> None:
        t = build_table(tree, df, perf, dump, parse.parse_ratios(dump), shadow)
        assert isinstance(t, OSDTable)
        _use_table(t, text)
        # The builder's cached statics give the same table on the next refresh.
        b = OSDTableBuilder()
        from cephtui.ceph.snapshot.osdtree import latency_from_json, usage_from_json
        first = b.build(tree, usage_from_json(df), latency_from_json(perf), dump, None, shadow)
        assert b.build(tree, usage_from_json(df), latency_from_json(perf), dump, None, shadow) == first
    check()


# ------------------------------------------------------------------ crush.py

CRUSH_DUMP = fixture_json("crush", "crush_dump.json")
CRUSH_OSD_DUMP = fixture_json("crush", "osd_dump.json")
names = st.one_of(st.sampled_from(["default", "host", "osd.0", "rack", "ssd", "hdd", "replicated_rule", "x~hdd",
                                   "", "osd", "root"]), st.text(max_size=8))


def _use_crush(cmap: CrushMap, a: str, b: str) -> None:
    list(iter_tree(cmap))
    cmap.roots()
    for bk in cmap.buckets[:6]:
        cmap.descendants(bk.name), cmap.location_of(bk.name), cmap.type_of(bk.name), cmap.item_id(bk.name)
    for check in (lambda: check_add_bucket(cmap, a, b, a), lambda: check_move(cmap, a, b),
                  lambda: check_rename(cmap, a, b), lambda: check_remove_bucket(cmap, a),
                  lambda: check_rule_create(cmap, a, b, b, a), lambda: check_rule_remove(cmap, a),
                  lambda: check_ec_profile(cmap, a, b, a, b)):
        try:
            check()
        except ValueError as e:
            assert str(e)


@given(damaged(CRUSH_DUMP), st.one_of(st.none(), st.just(CRUSH_OSD_DUMP), damaged(CRUSH_OSD_DUMP)), names, names)
@settings(FAST, max_examples=120)
def test_parse_crush(crush_dump: Any, osd_dump: Any, a: str, b: str) -> None:
    cmap = parse_crush(crush_dump, osd_dump)
    for part in (*cmap.devices, *cmap.buckets, *cmap.rules, *cmap.ec_profiles, *cmap.pools):
        model(part)
    _use_crush(cmap, a, b)


# ------------------------------------------------------------------ maintenance.py

@pytest.mark.parametrize("scenario", ("nearfull", "osd_down"))
def test_maintenance_readers(scenario: str) -> None:
    @given(damaged(answer(scenario, "mon", "osd dump")), damaged(answer(scenario, "mon", "osd tree")),
           st.lists(st.integers(-2, 5), max_size=4))
    @FAST
    def check(dump: Any, tree: Any, ids: list[int]) -> None:
        flags = mt.flags_from_osd_dump(dump)
        assert all(isinstance(f, str) and isinstance(s, str) for f, s in flags)
        hosts = mt.hosts_from_osd_tree(tree)
        assert all(isinstance(h, str) and all(isinstance(i, int) for i in v) for h, v in hosts.items())
        assert all(isinstance(i, int) for i in mt.osds_down(tree, ids))
    check()


@given(json_value)
@FAST
def test_ok_to_stop_summary(d: Any) -> None:
    assert mplan.ok_to_stop_summary(d).startswith("ok-to-stop")
