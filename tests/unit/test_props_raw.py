"""Property tests: the decoders that read raw answer bytes (msgspec fast paths with a generic fallback).

Damaged bytes (mutated JSON, truncated, a flipped byte, junk) give the model, or ParseError naming the
command when the bytes are not JSON at all. Where the fast path accepts an answer, it must agree
with the generic parser: the fast path may decline, never differ.
"""
from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cephtui.ceph.answers import loads
from cephtui.ceph.bench import osdbench
from cephtui.ceph.bench.params import BenchError
from cephtui.ceph.bench.wire import Metadata, decode_metadata, encode_metadata
from cephtui.ceph.snapshot import parse, pgdump
from cephtui.ceph.snapshot.models import PGBrief, StuckPG
from cephtui.ceph.snapshot.osdmap import KEPT, lean_dump
from cephtui.ceph.snapshot.osdtree import latency_from_json, latency_from_raw, usage_from_json, usage_from_raw
from cephtui.ceph.snapshot.parse import ParseError
from tests.unit.test_props_json import model
from tests.unit.test_props_strategies import (
    FAST,
    QUICK,
    SCENARIOS,
    answer,
    damaged,
    damaged_bytes,
    fixture_json,
    json_value,
    must_not_crash,
    raw_answer,
)


def _generic_or_error(raw: bytes, what: str) -> Any:
    try:
        return parse.loads_answer(raw, what)
    except ParseError as e:
        assert what in str(e) and "not JSON" in str(e)
        return e


def test_loads_answer_names_the_command() -> None:
    with pytest.raises(ParseError, match="osd df: the answer is not JSON"):
        parse.loads_answer(b'{"nodes": [', "osd df")
    assert isinstance(ParseError("x"), ValueError)  # callers that catch ValueError keep working


# ------------------------------------------------------------------ pg dump pgs_brief

PG_DUMPS = {s: raw_answer(s, "mgr", "pg dump", dumpcontents=["pgs_brief"]) for s in ("healthy", "osd_down")}


def _intable(s: str) -> bool:
    try:
        int(s)
    except ValueError:
        return False
    return True


def _by_pgid(pgs: Any) -> list[PGBrief]:
    return sorted(pgs, key=lambda p: (p.pgid, p.state, p.up, p.acting))


@pytest.mark.parametrize("scenario", sorted(PG_DUMPS))
def test_pg_table_agrees_with_the_generic_parser(scenario: str) -> None:
    first = PG_DUMPS[scenario]

    @given(damaged_bytes(first), st.booleans())
    @settings(FAST, max_examples=80)
    def check(raw: bytes, warm: bool) -> None:
        table = pgdump.PGTable()
        if warm:
            assert table.update(first)  # the steady path (_follow) from a known answer
        before = list(table.rows)
        if table.update(raw):
            d = _generic_or_error(raw, "pg dump")
            if isinstance(d, ParseError):  # the fast path reads the array alone: junk around it is no matter
                return
            generic = parse.parse_pg_brief(d)
            assert _by_pgid(table.rows) == _by_pgid(generic)
            # Every PG whose pool part reads as a number is counted once in the per-pool states.
            assert sum(p.total for p in table.pool_states) == sum(_intable(pg.pgid.partition(".")[0]) for pg in generic)
        else:
            assert table.rows == before  # a declined answer changes nothing
            must_not_crash(lambda: parse.parse_pg_brief(_generic_or_error(raw, "pg dump")))
        for pg in table.rows:
            model(pg)
        pgdump.per_pool_states(table.rows)
    check()


@given(damaged_bytes(PG_DUMPS["osd_down"]))
@FAST
def test_decode_array_pgs(raw: bytes) -> None:
    out = pgdump.decode_array(raw, "pg_stats", PGBrief)
    d = _generic_or_error(raw, "pg dump")
    if out is not None and not isinstance(d, ParseError):
        assert _by_pgid(out) == _by_pgid(parse.parse_pg_brief(d))


# ------------------------------------------------------------------ pg dump_stuck

STUCK = raw_answer("osd_down", "mgr", "pg dump_stuck", stuckops=["inactive", "unclean", "stale", "undersized",
                                                                 "degraded"], threshold=60)


@given(damaged_bytes(STUCK), st.floats(allow_nan=True, allow_infinity=True),
       st.floats(min_value=0, max_value=4e9, allow_nan=False))
@settings(FAST, max_examples=80)
def test_stuck(raw: bytes, threshold: float, now: float) -> None:
    entries = pgdump.decode_array(raw, "stuck_pg_stats", pgdump._Stuck)
    if entries is None:
        d = _generic_or_error(raw, "pg dump_stuck")
        entries = pgdump.generic_stuck(None if isinstance(d, ParseError) else d)
    for row in pgdump.classify_stuck(entries, threshold, now):
        assert isinstance(row, StuckPG)
        model(row)
        if threshold >= 0:  # stuck longer than the threshold: never a negative time
            assert row.seconds is None or row.seconds > threshold


@given(damaged(answer("osd_down", "mgr", "pg dump_stuck", stuckops=["unclean"])))
@FAST
def test_generic_stuck(d: Any) -> None:
    for e in pgdump.generic_stuck(d):
        assert isinstance(e.pgid, str) and isinstance(e.state, str) and isinstance(e.last_clean, str)
    pgdump.classify_stuck(pgdump.generic_stuck(d), 60, 2e9)


# ------------------------------------------------------------------ osd dump

@pytest.mark.parametrize("scenario", ("nearfull", "osd_down"))
def test_lean_dump(scenario: str) -> None:
    good = raw_answer(scenario, "mon", "osd dump")
    defaults = msgspec.structs.asdict(__import__("cephtui.ceph.snapshot.osdmap", fromlist=["_Dump"])._Dump())

    @given(damaged_bytes(good))
    @FAST
    def check(raw: bytes) -> None:
        out = must_not_crash(lambda: lean_dump(raw), (ParseError,))
        if isinstance(out, ParseError):
            assert "osd dump" in str(out)
            return
        assert set(out) <= set(KEPT)
        for k, v in out.items():  # every kept field has the type the readers expect
            want = defaults[k]
            # the type the readers expect, or falsy (read as missing by `d.get(k) or default`)
            assert not v or isinstance(v, (int, float) if isinstance(want, float) else type(want)), (k, v)
        assert all(isinstance(o, dict) for o in out["osds"])
        parse.parse_ratios(out)
    check()


# ------------------------------------------------------------------ osd df / osd perf

@pytest.mark.parametrize("scenario", SCENARIOS)
def test_usage_and_latency(scenario: str) -> None:
    df, perf = raw_answer(scenario, "mgr", "osd df"), raw_answer(scenario, "mgr", "osd perf")

    @given(damaged_bytes(df), damaged_bytes(perf))
    @QUICK
    def check(df_raw: bytes, perf_raw: bytes) -> None:
        usage = must_not_crash(lambda: usage_from_raw(df_raw), (ParseError,))
        if not isinstance(usage, ParseError):
            assert all(isinstance(i, int) and i >= 0 for i in usage)
            for u in usage.values():
                model(u)
            _generic_or_error(df_raw, "osd df")
        lat = must_not_crash(lambda: latency_from_raw(perf_raw), (ParseError,))
        if not isinstance(lat, ParseError):
            assert all(isinstance(c, int) and isinstance(a, int) for c, a in lat.values())
    check()


@given(json_value)
@FAST
def test_usage_and_latency_from_any_json(d: Any) -> None:
    assert isinstance(usage_from_json(d), dict) and isinstance(latency_from_json(d), dict)


# ------------------------------------------------------------------ bench metadata and osd bench replies

NATIVE = fixture_json("bench", "native.json")


@given(st.one_of(st.binary(max_size=40), st.integers(0, 24).map(lambda n: bytes.fromhex(NATIVE["metadata_hex"])[:n])))
@FAST
def test_bench_metadata(raw: bytes) -> None:
    m = must_not_crash(lambda: decode_metadata(raw), (BenchError,))
    if isinstance(m, Metadata):
        assert isinstance(m.num_objects, int)
        if len(raw) >= 24:
            assert encode_metadata(m.object_size, m.num_ops, m.pid, m.op_size) == raw[:24]


def test_native_metadata_decodes() -> None:
    m = decode_metadata(bytes.fromhex(NATIVE["metadata_hex"]))
    assert (m.op_size, m.num_ops) == (8192, NATIVE["total_writes_made"])


REPLIES = [r for r in fixture_json("osdbench", "replies.json")["replies"] if r.get("ret") == 0]


@given(st.sampled_from(REPLIES).flatmap(lambda r: damaged(loads(r["outbuf"]))), st.integers(-1, 5))
@FAST
def test_osd_bench_reply(reply: Any, osd: int) -> None:
    r = osdbench.parse_bench_reply(osd, reply)
    model(r)
    if r.ok:
        assert r.bytes_written > 0 and r.bytes_per_sec > 0 and math.isfinite(r.mib_per_sec)
    else:
        assert r.error and f"osd.{osd}" in r.error


@given(st.lists(st.sampled_from(REPLIES).flatmap(lambda r: damaged(loads(r["outbuf"]))), max_size=6))
@FAST
def test_osd_bench_ranking(replies: list[Any]) -> None:
    ranking = osdbench.rank_results(osdbench.parse_bench_reply(i, r) for i, r in enumerate(replies))
    assert len(ranking.rows) == len(replies) and math.isfinite(ranking.median_bytes_per_sec)
    assert all(r.flag in ("", "slow", "fast", "error") for r in ranking.rows)
