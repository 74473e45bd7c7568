"""Property tests: what an operator types (names, numbers, caps, filters) and the pure calculators.

Any text gives the value or a ValueError (CapsError, BenchError where that is the declared error)
whose message says what was wrong; accepted values respect the documented bounds.
"""
from __future__ import annotations

import json
import math
import shlex
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cephtui.ceph import format as fmt
from cephtui.ceph import movement as preview
from cephtui.ceph import ops
from cephtui.ceph.bench.history import BenchHistory
from cephtui.ceph.bench.osdbench import OSDBenchParams
from cephtui.ceph.bench.params import BenchError, BenchParams, parse_size
from cephtui.ceph.bench.stats import percentile, stddev
from cephtui.ceph.crush.crushtool import exact_weights
from cephtui.ceph.crush.model import parse_crush
from cephtui.ceph.ops import caps, pgcalc, poolplan
from cephtui.ceph.snapshot.parse import parse_pg_brief
from cephtui.ceph.snapshot.pgfilter import PGFilter, pgid_key
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows import maintenance_banner as mbanner
from cephtui.ceph.workflows import maintenance_plan as mplan
from cephtui.ceph.workflows import removal, removal_checks, removal_stop
from cephtui.ceph.workflows.store import WorkflowStore
from tests.unit.test_props_strategies import (
    CRASHES,
    FAST,
    QUICK,
    answer,
    damaged,
    fixture_json,
    json_value,
    must_not_crash,
)

# Form text: anything, plus the spellings that break naive number parsing.
tricky = st.sampled_from(["", " ", "\t\n", "-5", "-0", "0", "1", "nan", "NaN", "inf", "-inf", "1e400", "1e-400",
                          "9" * 5000, "1_000", "0x10", "١٢", "½", "1.5", " 3 ", "+7", "\x00", "a\nb", "osd.1",
                          "rbd", ".mgr", "-", "'", '"', "é", "pool name", "x" * 300])
text = st.one_of(tricky, st.text(max_size=30))


def rejects_clearly(fn: Any, *args: Any, error: type[Exception] = ValueError) -> Any:
    """fn(*args), or its declared error with a message; never another exception."""
    try:
        return fn(*args)
    except error as e:
        msg = str(e)
        assert msg.strip() and "invalid literal" not in msg and "Exceeds the limit" not in msg, msg
        return e


TRICKY = ["", " ", "\t\n", "-5", "-0", "0", "1", "nan", "NaN", "inf", "-inf", "1e400", "1e-400", "9" * 5000, "1_000",
          "0x10", "١٢", "½", "1.5", " 3 ", "+7", "\x00", "a\nb", "osd.1", "rbd", ".mgr", "-", "'", '"', "é",
          "pool name", "x" * 300, "1e308G", "1e308", "-1e308", "4M", "3\n"]
FIELDS = {  # every checker a form field goes through, with its declared error
    "check_name": (lambda t: ops.check_name(t), ValueError),
    "check_pool_name": (lambda t: ops.check_pool_name(t), ValueError),
    "check_entity": (lambda t: ops.check_entity(t), ValueError),
    "parse_fraction": (lambda t: ops.parse_fraction(t), ValueError),
    "parse_weight": (lambda t: ops.parse_weight(t), ValueError),
    "osd_ids": (lambda t: ops.osd_ids(t.split(",")), ValueError),
    "ec_profile_set": (lambda t: ops.ec_profile_set("p", t, t), ValueError),
    "check_pg_num": (lambda t: pgcalc.check_pg_num(t), ValueError),
    "parse_int": (lambda t: poolplan.parse_int(t, "size", 1, 10), ValueError),
    "check_replication": (lambda t: poolplan.check_replication(t, t), ValueError),
    "parse_size": (lambda t: parse_size(t), BenchError),
    "parse_target": (lambda t: mt.parse_target(t, {"node1": [0, 1]}), ValueError),
    "parse_extra_flags": (lambda t: mt.parse_extra_flags(t), ValueError),
    "caps.validate": (lambda t: caps.validate("osd", t), caps.CapsError),
    "rbd_client": (lambda t: caps.rbd_client([t]), ValueError),
    "cephfs_client": (lambda t: caps.cephfs_client(t, "/" + t), ValueError),
}


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_every_tricky_text_in_every_field(field: str) -> None:
    fn, error = FIELDS[field]
    for t in TRICKY:
        rejects_clearly(lambda t=t: fn(t), error=error)


# ------------------------------------------------------------------ names

@given(text)
@FAST
def test_check_name(s: str) -> None:
    out = rejects_clearly(ops.check_name, s, "bucket name")
    if isinstance(out, str):
        assert out and ops.NAME_RE.fullmatch(out) and out == out.strip()


@given(text, st.lists(st.sampled_from(["rbd", "data", "x"]), max_size=3))
@FAST
def test_pool_name(s: str, existing: list[str]) -> None:
    out = rejects_clearly(poolplan.check_name, s, existing)
    if isinstance(out, str):
        assert ops.POOL_NAME_RE.fullmatch(out) and not out.startswith(".") and out not in existing
        assert isinstance(rejects_clearly(ops.pool_delete, out), ops.Operation)


@given(st.one_of(text, text.map(lambda t: "client." + t)))
@FAST
def test_entity_name(s: str) -> None:
    out = rejects_clearly(ops.check_entity, s)
    if isinstance(out, str):
        assert ops.ENTITY_RE.fullmatch(out) and "\n" not in out
        for factory in (ops.auth_del, ops.auth_get_key):
            assert factory(out).args[0] == ("entity", out)


# ------------------------------------------------------------------ numbers in form fields

number_text = st.one_of(text, st.floats().map(repr), st.integers(-10**30, 10**30).map(str))


@given(st.one_of(number_text, st.floats(), st.integers(-10**400, 10**400)))
@FAST
def test_fraction_and_weight(v: Any) -> None:
    f = rejects_clearly(ops.parse_fraction, v)
    if isinstance(f, float):
        assert 0.0 <= f <= 1.0
        assert isinstance(ops.osd_reweight(1, v), ops.Operation)
    w = rejects_clearly(ops.parse_weight, v)
    if isinstance(w, float):
        assert math.isfinite(w) and 0.0 <= w <= 65535
        assert ops.crush_reweight("osd.1", v).args[1] == ("weight", w)


@given(st.lists(st.one_of(st.integers(-3, 10**20), st.text(max_size=4), st.floats()), max_size=4))
@FAST
def test_osd_ids(ids: list[Any]) -> None:
    out = rejects_clearly(ops.osd_ids, ids)
    if isinstance(out, tuple):
        assert out and all(isinstance(i, int) and i >= 0 for i in out) and list(out) == sorted(set(out))


@given(number_text, number_text, text)
@FAST
def test_ec_profile(k: str, m: str, name: str) -> None:
    op = rejects_clearly(ops.ec_profile_set, name or "p", k, m)
    if isinstance(op, ops.Operation):
        profile = dict(w.split("=", 1) for w in dict(op.args)["profile"])
        assert int(profile["k"]) >= 2 and int(profile["m"]) >= 1


@given(number_text)
@FAST
def test_pg_num(s: str) -> None:
    out = rejects_clearly(pgcalc.check_pg_num, s)
    if isinstance(out, tuple):
        value, warning = out
        assert 0 < value <= pgcalc.MON_MAX_POOL_PG_NUM
        assert (warning is None) == pgcalc.is_power_of_two(value)
        assert isinstance(ops.pool_create("p", value), ops.Operation)


@given(number_text, number_text)
@FAST
def test_replication(size: str, min_size: str) -> None:
    out = rejects_clearly(poolplan.check_replication, size, min_size)
    if isinstance(out, tuple):
        s, m = out
        assert 1 <= m <= s <= 10


@given(number_text, st.integers(-5, 5), st.integers(-5, 100))
@FAST
def test_parse_int(s: str, low: int, high: int) -> None:
    v = rejects_clearly(poolplan.parse_int, s, "copies", low, high)
    if isinstance(v, int):
        assert low <= v <= high


@given(st.integers(-2, 10**6), st.integers(-2, 20), st.one_of(st.floats(), st.integers(-2, 3)),
       st.integers(-1, 1000))
@FAST
def test_pg_suggestion(osds: int, size: int, share: float, target: int) -> None:
    out = rejects_clearly(pgcalc.suggest, osds, size, share, target)
    if isinstance(out, pgcalc.PGSuggestion):
        assert pgcalc.is_power_of_two(out.pg_num) and out.steps and math.isfinite(out.raw)
        assert out.pg_num >= 1


@given(st.integers(-2, 70000), st.integers(-2, 20), st.integers(-2, 10**5), st.one_of(st.floats(), st.integers(-2, 3)),
       st.integers(-1, 1000))
@FAST
def test_autoscale_outlook(pg_num: int, size: int, osds: int, share: float, target: int) -> None:
    out = rejects_clearly(pgcalc.autoscale_outlook, pg_num, size, osds, share, target)
    if isinstance(out, pgcalc.AutoscaleOutlook):
        assert out.target_now == pgcalc.AUTOSCALE_PG_NUM_MIN and out.pg_num_after in (pg_num, out.target_now)
        assert out.target_full >= out.target_now and all(out.lines)


@given(st.integers(-2, 5000), st.integers(-2, 10), st.lists(st.tuples(st.integers(0, 4096), st.integers(1, 10)),
                                                               max_size=4), st.integers(-2, 100))
@FAST
def test_pg_budget(pg_num: int, size: int, existing: list[tuple[int, int]], osds: int) -> None:
    b = rejects_clearly(pgcalc.pg_budget, pg_num, size, existing, osds)
    if isinstance(b, pgcalc.PGBudget):
        assert math.isfinite(b.per_osd) and (b.refusal is None) == b.ok


@given(st.one_of(number_text, number_text.map(lambda t: t + "M"), number_text.map(lambda t: t + "K"),
                 st.sampled_from(["4M", "4MiB", "4k", "1G", "1e308G", "0.5K", "4MB", "1.5", "3GiB"])))
@FAST
def test_parse_size(s: str) -> None:
    n = rejects_clearly(parse_size, s, error=BenchError)
    if isinstance(n, int):
        assert n > 0
        p = rejects_clearly(lambda: OSDBenchParams(n, n) if n < 2**40 else OSDBenchParams(4096, 4096))
        assert isinstance(p, OSDBenchParams)


@given(text, st.sampled_from(["write", "seq", "rand", "x"]), st.floats(), st.integers(-5, 2000),
       st.integers(-5, 2**30), st.integers(-5, 2**31), text)
@FAST
def test_bench_params(pool: str, mode: str, seconds: float, threads: int, op: int, obj: int, run: str) -> None:
    p = rejects_clearly(lambda: BenchParams(pool, mode, seconds, threads, op, obj, run), error=BenchError)
    if isinstance(p, BenchParams):
        assert 0 < p.seconds <= 86400 and 1 <= p.threads <= 1024 and p.objsize % p.op_size == 0
        assert p.cli().startswith("rados bench")


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150), max_size=20),
       st.floats(0, 100))
@FAST
def test_stats(values: list[float], q: float) -> None:
    assert stddev(values) >= 0
    s = sorted(values)
    p = percentile(s, q)
    assert (p == 0.0) if not s else s[0] <= p <= s[-1]


# ------------------------------------------------------------------ maintenance form

hosts = st.dictionaries(st.sampled_from(["node1", "node2", "vm", "osd.1", "3"]),
                        st.lists(st.integers(0, 6), max_size=3), max_size=3)


@given(st.one_of(text, st.sampled_from(["node1", "1 2", "osd.1,osd.2", "osd.99", "3"])), hosts, text)
@FAST
def test_maintenance_target_and_flags(s: str, h: dict[str, list[int]], flags: str) -> None:
    t = rejects_clearly(mt.parse_target, s, h)
    if isinstance(t, mt.Target):
        assert t.osds and all(isinstance(i, int) and i >= 0 for i in t.osds)
        m, todo = mplan.plan_enter(t, (), set(), "fsid", user="u", now=0.0)
        assert all(isinstance(op, ops.Operation) for op in todo)
    f = rejects_clearly(mt.parse_extra_flags, flags)
    if isinstance(f, tuple):
        assert set(f) <= set(mt.EXTRA_FLAGS)


def open_legacy(path: Path) -> mt.MaintenanceStore:
    """An older cephtui's maintenance.json, migrated into a store on this machine's cache (no cluster)."""
    store = mt.MaintenanceStore(WorkflowStore(path.parent), legacy=path)
    store.load()
    return store


@given(st.one_of(json_value, st.fixed_dictionaries({"maintenances": st.lists(json_value, max_size=2)})))
@QUICK
def test_maintenance_state_file(data: Any) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "maintenance.json"
        path.write_text(json.dumps(data))
        store = open_legacy(path)  # a damaged file is reported, never raised
        assert store.error or all(isinstance(r, mt.Maintenance) for r in store.records)


@given(st.lists(st.one_of(st.text(max_size=40), json_value.map(json.dumps)), max_size=5))
@QUICK
def test_bench_history_skips_damaged_lines(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "h.jsonl"
        path.write_text("\n".join(lines))
        loaded = BenchHistory(path).load()
        written = [ln for ln in path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        assert len(loaded.runs) + loaded.skipped == len(written)  # every line is a run or counted as damaged


# ------------------------------------------------------------------ caps

services = st.sampled_from(caps.SERVICES)


@given(st.one_of(services, text), st.one_of(text, st.text(max_size=80),
                                            st.sampled_from(["allow r uid=" + "9" * 5000, "allow rw gids=1,99999999999",
                                                             "allow r path=\"/a\" uid=4294967296"])))
@FAST
def test_caps_any_text(service: str, s: str) -> None:
    out = rejects_clearly(caps.validate, service, s, error=caps.CapsError)
    if isinstance(out, caps.CapsError):
        assert 0 <= out.position <= len(s) and "^" in out.pointer()


word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.-", min_size=1, max_size=10)
mon_grant = st.one_of(st.sampled_from(["allow r", "allow rw", "allow *", "allow rwx"]),
                      st.sampled_from(caps.MON_PROFILES).map(lambda p: f"profile {p}"),
                      word.map(lambda c: f'allow command "{c}"'))
osd_grant = st.one_of(st.sampled_from(["allow r", "allow rwx", "allow *", "allow r class-read"]),
                      st.tuples(st.sampled_from(caps.OSD_PROFILES), word).map(lambda t: f"profile {t[0]} pool={t[1]}"),
                      st.tuples(st.sampled_from(["r", "rw", "rwx"]), word).map(lambda t: f"allow {t[0]} pool={t[1]}"))
mgr_grant = st.one_of(st.sampled_from(["allow r", "allow rw"]),
                      st.sampled_from(caps.MGR_PROFILES).map(lambda p: f"profile {p}"))
mds_grant = st.one_of(st.sampled_from(["allow", "allow rw", "allow r", "allow *"]),
                      word.map(lambda p: f"allow rw path=/{p}"))
GRANTS = {"mon": mon_grant, "osd": osd_grant, "mgr": mgr_grant, "mds": mds_grant}


@st.composite
def valid_caps(draw: st.DrawFn) -> dict[str, list[str]]:
    out = {}
    for svc in draw(st.lists(services, min_size=1, max_size=4, unique=True)):
        n = 1 if svc == "mds" else draw(st.integers(1, 3))
        out[svc] = [draw(GRANTS[svc]) for _ in range(n)]
    return out


@given(valid_caps())
@FAST
def test_valid_caps_round_trip(grants: dict[str, list[str]]) -> None:
    rendered = {svc: ", ".join(g) for svc, g in grants.items()}
    caps.parse_caps_list(rendered)  # every generated grant is accepted
    for svc, text_ in rendered.items():
        # The profile names the grammar captures are exactly the ones written, in order.
        wanted = [g.split()[1] for g in grants[svc] if g.startswith("profile ")]
        got = [caps._unquote(text_[a:b]) for tag, a, b in caps._parse(svc, text_) if tag == "profile"]
        assert got == wanted
    words = caps.cli_caps(rendered)
    assert dict(zip(words[::2], words[1::2])) == rendered  # the CLI argument carries them unchanged
    op = ops.auth_get_or_create("client.test", rendered)
    assert dict(op.args)["caps"] == words


@given(st.lists(text, max_size=3), st.lists(text, max_size=2))
@FAST
def test_rbd_caps_from_pool_names(pools: list[str], ro: list[str]) -> None:
    out = rejects_clearly(caps.rbd_client, pools, ro)
    if isinstance(out, dict):
        caps.parse_caps_list(out)


@given(text, st.one_of(text, text.map(lambda t: "/" + t)), st.booleans())
@FAST
def test_cephfs_caps(fs: str, path: str, write: bool) -> None:
    out = rejects_clearly(lambda: caps.cephfs_client(fs, path, write=write))
    if isinstance(out, dict):
        caps.parse_caps_list(out)


# ------------------------------------------------------------------ filters and formatting

PGS = parse_pg_brief(answer("osd_down", "mgr", "pg dump", dumpcontents=["pgs_brief"]))


@given(text, st.dictionaries(st.integers(-1, 3), st.text(max_size=5), max_size=3))
@FAST
def test_pg_filter(s: str, names: dict[int, str]) -> None:
    f = PGFilter(s)
    assert isinstance(f.error, str)
    out = f.select(PGS, names)
    assert out == [pg for pg in PGS if f.matches(pg, names)]  # the column path and the per-PG path agree


@given(text)
@FAST
def test_pgid_key(s: str) -> None:
    a, b = pgid_key(s)
    assert isinstance(a, int) and isinstance(b, int)


@given(st.one_of(st.floats(), st.integers(-10**30, 10**30)), st.one_of(st.none(), st.floats(),
                                                                       st.integers(-10**30, 10**30)))
@FAST
def test_format(n: float, seconds: float | None) -> None:
    assert isinstance(fmt.human_bytes(n), str) and fmt.human_rate(n).endswith("/s")
    assert isinstance(fmt.human_duration(seconds), str)
    assert isinstance(fmt.percent(n if isinstance(n, float) else 0.5), str)


# ------------------------------------------------------------------ preview and crushtool (pure parts)

CRUSH_OSD_DUMP = fixture_json("crush", "osd_dump.json")
pg_map = st.dictionaries(st.sampled_from([f"{p}.{s:x}" for p in (1, 2, 3) for s in range(8)]),
                         st.lists(st.sampled_from([0, 1, 2, 2147483647]), max_size=4).map(tuple), max_size=20)


@given(damaged(CRUSH_OSD_DUMP), pg_map, pg_map, st.one_of(st.none(), st.dictionaries(st.text(max_size=5),
                                                                                       st.integers(0, 10**12))),
       st.one_of(st.none(), st.dictionaries(st.integers(-1, 4), st.integers(0, 10**12))))
@FAST
def test_preview_summary(info: Any, before: dict[str, tuple[int, ...]], after: dict[str, tuple[int, ...]],
                         pg_bytes: dict[str, int] | None, pool_bytes: dict[int, int] | None) -> None:
    p = preview.summarize(info, before, after, b"", pg_bytes=pg_bytes, pool_bytes=pool_bytes)
    assert p.total_pgs == len(before) and p.changed_pgs <= len(before)
    assert all(pm.shards_moved >= 0 for pm in p.pools)


@given(st.one_of(json_value, st.lists(st.one_of(st.integers(-2, 5), st.text(max_size=6)), max_size=3)))
@FAST
def test_preview_osd_ids(v: Any) -> None:
    from cephtui.ceph.crush.crushtool import CrushToolError
    out = must_not_crash(lambda: preview._osd_ids(v), (CrushToolError,))
    assert isinstance(out, (list, CrushToolError))


CRUSH_TEXT = (Path(__file__).resolve().parents[1] / "fixtures" / "crush" / "crushmap.txt").read_text()
CRUSH_DUMP = fixture_json("crush", "crush_dump.json")


@given(damaged(CRUSH_DUMP))
@FAST
def test_exact_weights(dumped: Any) -> None:
    out = exact_weights(CRUSH_TEXT, dumped)
    assert len(out.splitlines()) == len(CRUSH_TEXT.splitlines())


def test_exact_weights_of_the_capture_changes_only_weights() -> None:
    out = exact_weights(CRUSH_TEXT, CRUSH_DUMP)
    for a, b in zip(CRUSH_TEXT.splitlines(), out.splitlines()):
        assert a == b or "weight" in a or "[" in a


@given(st.text(max_size=200), st.sampled_from(["1.0 raw ([0,1], p0) up ([-,1], p1) acting ([0,1], p0)",
                                               "1.1 raw ([1,2], p1) up ([1,2], p1) acting ([1,2], p1)"]))
@FAST
def test_map_pgs_output(junk: str, line: str) -> None:
    from cephtui.ceph.crush.crushtool import parse_pg_map
    out = parse_pg_map(junk + "\n" + line + "\n" + junk)
    assert all(isinstance(v, tuple) and all(isinstance(i, int) for i in v) for v in out.values())


# ------------------------------------------------------------------ removal workflow (pure logic, fake client)

OSD_DOWN_DUMP, OSD_DOWN_DF = answer("osd_down", "mon", "osd dump"), answer("osd_down", "mgr", "osd df")


class FakeClient:
    """Answers every command with a damaged capture (or arbitrary JSON)."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers

    def mon(self, prefix: str, **_: Any) -> Any:
        return self.answers.get(prefix)

    def mgr(self, prefix: str, **_: Any) -> Any:
        return self.answers.get(prefix)

    def mon_raw(self, prefix: str, inbuf: bytes = b"", **_: Any) -> tuple[bytes, str]:
        return b"not an osdmap", ""  # osdmaptool refuses it: the stats check says nothing


@given(damaged(answer("osd_down", "mon", "osd dump")), damaged(answer("osd_down", "mgr", "osd df")),
       damaged(answer("osd_down", "mgr", "pg dump", dumpcontents=["pgs_brief"])),
       damaged(answer("osd_down", "mon", "status")), st.one_of(json_value, st.fixed_dictionaries(
           {"safe_to_destroy": st.lists(st.integers(0, 3), max_size=3)})),
       st.lists(st.integers(0, 3), min_size=1, max_size=2))
@FAST
def test_removal_checks(dump: Any, df: Any, pgs: Any, status: Any, safe: Any, osds: list[int]) -> None:
    client = FakeClient({"osd dump": dump, "osd df": df, "pg dump": pgs, "status": status,
                         "osd safe-to-destroy": safe, "osd ok-to-stop": {}})
    # preflight's capacity check (fillcalc.project_removal) is not covered here: it is someone else's
    # module, in progress; it gets the captured osd dump / osd df, the rest of preflight the damaged ones.
    intact = FakeClient({**client.answers, "osd dump": OSD_DOWN_DUMP, "osd df": OSD_DOWN_DF})
    damaged_dump = FakeClient({**client.answers, "osd df": OSD_DOWN_DF, "osd dump": {}})
    for c in (removal_checks.preflight(intact, osds), removal_checks.preflight(damaged_dump, osds)):
        assert all(ch.level in ("ok", "warn", "block", "wait") and ch.detail for ch in c)
    ok, why = removal_checks.safe_to_destroy(client, osds)
    assert isinstance(ok, bool) and why
    progress = removal_checks.drain_progress(client, osds)
    assert isinstance(progress["pgs_not_clean"], int)
    assert all(isinstance(p, str) for p in removal_checks.last_copy_pgs(client, osds))


@given(st.one_of(json_value, damaged(removal.Removal(osds=[1, 2]).to_json())))
@FAST
def test_removal_state(d: Any) -> None:
    r = rejects_clearly(removal.Removal.from_json, d)
    if isinstance(r, removal.Removal):
        assert r.osds and all(isinstance(i, int) for i in r.osds)
        _ = r.title, r.finished  # properties: they must compute
        r.note("x")


@given(text, st.integers(0, 10**6), text)
@FAST
def test_stop_command(template: str, osd: int, host: str) -> None:
    cmd = removal_stop.stop_command(template or "ssh {host} systemctl stop ceph-osd@{id}", osd, host)
    assert cmd is None or str(osd) in cmd or "{id}" not in (template or "{id}")


def test_no_declared_error_is_a_crash_type() -> None:
    for err in (ValueError, caps.CapsError, BenchError):
        assert not issubclass(err, CRASHES)


# ------------------------------------------------------------------ coerce, state records, calculators

@given(st.one_of(json_value, st.sampled_from([float("nan"), float("inf"), -float("inf"), 10**400, "1e400", b"1",
                                              "9" * 5000, True])))
@FAST
def test_coerce(v: Any) -> None:
    from cephtui.ceph import coerce
    assert type(coerce.as_int(v)) is int
    f = coerce.as_float(v)
    assert type(f) is float and math.isfinite(f)
    assert isinstance(coerce.as_dict(v), dict) and isinstance(coerce.as_list(v), list)
    assert all(isinstance(x, dict) for x in coerce.dicts(v))
    assert isinstance(coerce.as_str(v), str) and all(isinstance(x, str) for x in coerce.as_strs(v))


maint_record = st.fixed_dictionaries({"id": st.text(min_size=1, max_size=8)}, optional={
    "target": json_value, "flags_set": json_value, "restore": json_value, "state": json_value, "steps": json_value,
    "started_ts": st.one_of(st.floats(), st.integers(-10**20, 10**20), json_value),
    "ended_ts": st.one_of(st.floats(), st.integers(-10**20, 10**20), json_value)})


@given(st.lists(maint_record, min_size=1, max_size=2))
@QUICK
def test_maintenance_records_load_and_render(records: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "maintenance.json"
        path.write_text(json.dumps({"maintenances": records}))
        store = open_legacy(path)
        if store.error:
            assert "not a cephtui state file" in store.error or "not migrated" in store.error
            return
        for m in store.records:  # what the banner and the state file do with a loaded record
            assert isinstance(json.dumps(m.to_json()), str)
            mbanner.banner_items([m], [], now=0.0)
            mplan.plan_exit(m, set(), store.records).explanation(m)


def test_maintenance_state_file_with_a_huge_number() -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "maintenance.json"
        path.write_text('{"maintenances": [{"id": "x", "started_ts": 1' + "0" * 400 + '}]}')
        store = open_legacy(path)
        assert store.error or store.records


@given(st.builds(poolplan.PoolPlan, name=st.sampled_from(["rbd", "p1"]),
                 pool_type=st.sampled_from(["replicated", "erasure"]),
                 application=st.sampled_from(["rbd", "cephfs", "rgw", ""]), size=st.integers(1, 10),
                 min_size=st.integers(1, 10), ec_profile=st.sampled_from(["", "ec42"]),
                 new_profile=st.one_of(st.none(), st.tuples(st.integers(2, 8), st.integers(1, 4),
                                                            st.sampled_from(["host", "osd", "rack"]),
                                                            st.sampled_from(["", "hdd"]))),
                 pg_num=st.integers(1, 4096), autoscale_mode=st.sampled_from(["on", "warn", "off"])),
       st.booleans())
@FAST
def test_pool_plan(plan: poolplan.PoolPlan, with_map: bool) -> None:
    cmap = parse_crush(fixture_json("crush", "crush_dump.json"), CRUSH_OSD_DUMP) if with_map else None
    assert all(isinstance(w, str) and w for w in poolplan.warnings(plan, cmap))
    steps = rejects_clearly(poolplan.plan_ops, plan)
    if isinstance(steps, list):
        undo = poolplan.undo_ops(steps)
        assert [op.prefix for op in undo][:1] == ["osd pool delete"]


@given(st.floats(0, 100), st.floats(0, 100), st.one_of(st.floats(), st.none()), st.floats(),
       st.lists(st.tuples(st.integers(-10, 10**6), st.floats(), st.booleans()), max_size=3))
@FAST
def test_bottleneck_hint(cpu: float, core: float, own: float | None, bench: float,
                         nics: list[tuple[int, float, bool]]) -> None:
    from cephtui.ceph.bench.hoststats import HostSample, NicRate, bottleneck_hint
    sample = HostSample(at=1.0, interval=1.0, cpu_count=2, cpu_percent=cpu, per_core_percent=(core, cpu),
                        busiest_core=0, busiest_core_percent=core, process_cpu_percent=own, mem_used=1, mem_total=2,
                        disk_read_bps=0.0, disk_write_bps=0.0, disks=(),
                        nics=tuple(NicRate(f"eth{i}", rx, rx, speed, False, phys) for i, (speed, rx, phys)
                                   in enumerate(nics)))
    hint = bottleneck_hint(sample, bench)
    assert hint is None or isinstance(hint, str) and hint


@given(st.integers(-5, 10**7), st.integers(-5, 10**9), st.integers(-5, 10**9))
@FAST
def test_small_calculators(osds: int, total: int, block: int) -> None:
    from cephtui.ceph.bench.pool import temp_pool_pg_num
    pg = temp_pool_pg_num(osds)
    assert pgcalc.is_power_of_two(pg) and 8 <= pg <= 1024
    p = rejects_clearly(OSDBenchParams, total, block)
    if isinstance(p, OSDBenchParams):
        assert p.blocks >= 1 and (p.default_limit_warning() is None or p.default_limit_warning())


def _result(**kw: Any) -> Any:
    from cephtui.ceph.bench.results import BenchResult, Sample
    nums = {f: 1.5 for f in ("total_time_run", "bandwidth", "stddev_bandwidth", "max_bandwidth", "min_bandwidth",
                             "average_iops", "stddev_iops", "average_latency", "stddev_latency", "max_latency",
                             "min_latency", "latency_p50", "latency_p95", "latency_p99")}
    return BenchResult(params=BenchParams("rbd"), started_at=1.0, host="h", pid=1, object_prefix="p", ops=3,
                       failed_ops=0, op_size=4096, object_size=4096, max_iops=2, min_iops=1,
                       samples=(Sample(0, 1, 1, 1.0, 0.1, 0.1, 1),), **{**nums, **kw})


RESULT_DICT = json.loads(json.dumps(_result().to_dict()))  # as the history file holds it


@given(st.lists(damaged(RESULT_DICT).map(json.dumps), min_size=1, max_size=3))
@QUICK
def test_bench_history_runs_are_usable(lines: list[str]) -> None:
    from cephtui.ceph.bench.history import comparable, compare, export_csv, export_json
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "h.jsonl"
        path.write_text("\n".join([json.dumps(RESULT_DICT), *lines]))
        runs = BenchHistory(path).load().runs
        assert runs  # the undamaged first line always loads
        for r in runs:  # what the history screen does with every loaded run
            compare(runs[0], r), comparable(runs[0], r)
            r.status, r.params.cli()
            assert all(isinstance(s.mib_s, (int, float)) for s in r.samples)
        export_csv(runs), export_json(runs)


@given(st.one_of(st.text(max_size=40), json_value.map(json.dumps), st.just(json.dumps(CRUSH_DUMP)[:-3])))
@FAST
def test_tool_json(out: str) -> None:
    from cephtui.ceph.crush.crushtool import CrushToolError, tool_json
    got = must_not_crash(lambda: tool_json(out, "crushtool --dump"), (CrushToolError,))
    assert isinstance(got, dict) or "crushtool --dump" in str(got)


# ------------------------------------------------------------------ operation factories

FACTORIES = {
    "crush_add_bucket": lambda a, b: ops.crush_add_bucket(a, b, [(b, a)]),
    "crush_move": lambda a, b: ops.crush_move(a, [("host", b)]),
    "crush_rename_bucket": lambda a, b: ops.crush_rename_bucket(a, b),
    "crush_remove_bucket": lambda a, b: ops.crush_remove_bucket(a),
    "rule_create_replicated": lambda a, b: ops.rule_create_replicated(a, "default", b, a),
    "rule_create_erasure": lambda a, b: ops.rule_create_erasure(a, b),
    "rule_remove": lambda a, b: ops.rule_remove(a),
    "pool_create": lambda a, b: ops.pool_create(a, 8, "erasure", ec_profile=b, autoscale_mode="on"),
    "pool_set": lambda a, b: ops.pool_set(a, b, b),
    "pool_application_enable": lambda a, b: ops.pool_application_enable(a, b),
    "pool_set_quota": lambda a, b: ops.pool_set_quota(a, b, 10),
    "pool_rename": lambda a, b: ops.pool_rename(a, b),
    "pool_delete": lambda a, b: ops.pool_delete(a),
    "auth_caps": lambda a, b: ops.auth_caps(a, {"mon": b, "osd": a}),
    "auth_export": lambda a, b: ops.auth_export(a, b),
    "flag_set": lambda a, b: ops.flag_set(a, True),
    "group_flag_set": lambda a, b: ops.group_flag_set("noout", [a, b], False),
    "set_device_class": lambda a, b: ops.set_device_class([1], a, {1: b}),
    "orch_daemon_stop": lambda a, b: ops.orch_daemon_stop(a),
    "ec_profile_remove": lambda a, b: ops.ec_profile_remove(a),
}


@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_operation_factories(factory: str) -> None:
    @given(st.one_of(text, st.sampled_from(["rbd", "node1", "client.x", "noout", "osd.1"])),
           st.one_of(text, st.sampled_from(["host", "ssd", "max_bytes", "rbd"])))
    @QUICK
    def check(a: str, b: str) -> None:
        out = rejects_clearly(lambda: FACTORIES[factory](a, b))
        for op in out if isinstance(out, list) else [out] if isinstance(out, ops.Operation) else []:
            words = shlex.split(op.cli)  # the CLI shown is one shell command, safely quoted
            assert words[0] == "ceph" and op.title and op.prefix
    check()
