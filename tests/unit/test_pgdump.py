"""The fast PG decoders give exactly what the generic parser gives, on answers captured from each release."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephtui.ceph.snapshot import parse, pgdump
from cephtui.ceph.snapshot.models import PGBrief
from cephtui.ceph.snapshot.pgfilter import pgid_key
from tests.releases import FIXTURES, num_pgs, raw_out, release_params

OSD_DOWN = release_params("osd_down")
PACIFIC = FIXTURES / "pacific" / "osd_down.json"
BRIEF = raw_out(PACIFIC, "mgr", "pg dump", dumpcontents=["pgs_brief"])


@pytest.mark.parametrize("fx", OSD_DOWN)
@pytest.mark.parametrize("slice_bytes", [1, 200, 1 << 20])
def test_brief_in_slices_equals_generic_parse(monkeypatch: pytest.MonkeyPatch, slice_bytes: int, fx: Path) -> None:
    # 1 byte: every element its own slice; 1 MiB: the whole array in one call.
    monkeypatch.setattr(pgdump, "SLICE", slice_bytes)
    brief = raw_out(fx, "mgr", "pg dump", dumpcontents=["pgs_brief"])
    fast = pgdump.decode_array(brief, "pg_stats", PGBrief)
    assert fast is not None and len(fast) == num_pgs(fx)
    assert tuple(fast) == parse.parse_pg_brief(json.loads(brief))


def test_other_shapes_are_declined_not_misread() -> None:
    pgs = json.loads(BRIEF)["pg_stats"]
    assert pgdump.decode_array(json.dumps(pgs).encode(), "pg_stats", PGBrief) is None  # bare list
    nested = json.dumps({"pg_map": {"pg_stats": pgs}}, separators=(",", ":")).encode()
    assert pgdump.decode_array(nested, "pg_stats", PGBrief) is None  # array not the last thing
    bad_type = BRIEF.replace(b'"acting":[', b'"acting":["zero",', 1)
    assert pgdump.decode_array(bad_type, "pg_stats", PGBrief) is None
    assert pgdump.decode_array(b'{"pg_ready":true,"pg_stats":[]}', "pg_stats", PGBrief) == []


def big_answer(pools: dict[int, int], state: dict[str, str] | None = None) -> bytes:
    """The captured answer extended by rule: each pool gets `n` PGs shaped like the captured ones,
    listed in a scrambled order as the mgr's hash map lists them."""
    template = json.loads(BRIEF)["pg_stats"]
    entries = []
    for pool, n in pools.items():
        for seed in range(n):
            e = dict(template[seed % len(template)], pgid=f"{pool}.{seed:x}")
            e["state"] = (state or {}).get(e["pgid"], e["state"])
            entries.append(e)
    entries.sort(key=lambda e: hash(e["pgid"]) % 7919)
    return json.dumps({"pg_ready": True, "pg_stats": entries}, separators=(",", ":")).encode()


def test_pg_table_decodes_only_what_changed_and_keeps_the_order() -> None:
    table = pgdump.PGTable()
    first = big_answer({1: 2048, 2: 300, 10: 16})
    assert table.update(first)
    generic = parse.parse_pg_brief(json.loads(first))
    assert table.decoded == len(generic) == 2364
    assert table.rows == sorted(generic, key=lambda pg: pgid_key(pg.pgid))
    assert [pg.pgid for pg in table.rows[:3]] == ["1.0", "1.1", "1.2"] and table.rows[-1].pgid == "10.f"
    assert table.pool_states == pgdump.per_pool_states(generic)

    assert table.update(first) and table.decoded == 0  # the same bytes: nothing decoded

    changed = big_answer({1: 2048, 2: 300, 10: 16}, state={"1.7ff": "active+clean+scrubbing+deep"})
    assert table.update(changed)
    assert 0 < table.decoded < 2364 // 3  # one piece (~256 PGs on average), not the table
    assert table.rows == sorted(parse.parse_pg_brief(json.loads(changed)), key=lambda pg: pgid_key(pg.pgid))
    assert next(pg for pg in table.rows if pg.pgid == "1.7ff").state == "active+clean+scrubbing+deep"

    grown = big_answer({1: 2048, 2: 300, 10: 16, 11: 8})  # a new pool: new PGs, sorted afresh
    assert table.update(grown)
    assert [pg.pgid for pg in table.rows[-8:]] == [f"11.{i}" for i in range(8)]
    assert table.pool_states == pgdump.per_pool_states(table.rows)


@pytest.mark.parametrize("fx", OSD_DOWN)
def test_pg_table_declines_other_shapes(fx: Path) -> None:
    brief = raw_out(fx, "mgr", "pg dump", dumpcontents=["pgs_brief"])
    table = pgdump.PGTable()
    assert not table.update(json.dumps(json.loads(brief)["pg_stats"]).encode())
    table.replace(parse.parse_pg_brief(json.loads(brief)))
    assert len(table.rows) == num_pgs(fx) and table.rows[0].pgid == "1.0"


def test_per_pool_states_counts() -> None:
    pgs = [PGBrief("1.0", "active+clean"), PGBrief("1.1", "active+clean"), PGBrief("1.2", "peering"),
           PGBrief("3.0", "active+clean")]
    by_pool = {p.pool_id: {s.state: s.count for s in p.states} for p in pgdump.per_pool_states(pgs)}
    assert by_pool == {1: {"active+clean": 2, "peering": 1}, 3: {"active+clean": 1}}


@pytest.mark.parametrize("fx", OSD_DOWN)
def test_stuck_kinds_follow_the_mgr_rules(fx: Path) -> None:
    stuck = raw_out(fx, "mgr", "pg dump_stuck", stuckops=["unclean"])
    entries = pgdump.decode_array(stuck, "stuck_pg_stats", pgdump._Stuck)
    assert entries and entries == pgdump.generic_stuck(json.loads(stuck))
    far = parse.parse_stamp("2100-01-01T00:00:00.000000+0000")
    assert far is not None
    rows = pgdump.classify_stuck(entries, 60, far)
    assert {r.pgid for r in rows} == {e.pgid for e in entries}
    for r in rows:
        flags = set(r.state.split("+"))
        want = [k for k, present in (("inactive", "active" not in flags), ("unclean", "clean" not in flags),
                                     ("stale", "stale" in flags), ("undersized", "undersized" in flags),
                                     ("degraded", "degraded" in flags)) if present]
        assert r.kind == ",".join(want)
        assert r.seconds and r.seconds > 60
    # Right after the PGs went unclean nothing is stuck yet: below the threshold no kind applies.
    newest = max(parse.parse_stamp(e.last_clean) or 0 for e in entries)
    assert all(r.kind == "?" or "unclean" not in r.kind for r in pgdump.classify_stuck(entries, 1e6, newest))


def test_stamps_in_both_spellings() -> None:
    a = parse.parse_stamp("2026-11-22T11:03:05.431288+0000")
    assert a == parse.parse_stamp("2026-11-22 11:03:05.431288") == parse.parse_stamp("2026-11-22T11:03:05.431288+0000")
    assert parse.parse_stamp("") is None and parse.parse_stamp("garbage") is None
