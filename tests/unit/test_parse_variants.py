"""Parsers stay correct across Ceph releases: captured output reshaped the way other releases shape it."""
from __future__ import annotations

import json
import re
from pathlib import Path

from cephtui.ceph import parse
from cephtui.ceph.client import loads
from cephtui.ceph.recording import command_key

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"


def raw(name: str, target: str, prefix: str, **args) -> dict:
    rec = json.loads((FIXTURES / f"{name}.json").read_text())["commands"]
    return loads(rec[command_key(target, prefix, {"format": "json", **args})]["out"])


def test_pg_dump_in_every_known_shape() -> None:
    pacific = raw("osd_down", "mgr", "pg dump", dumpcontents=["pgs_brief"])
    expected = parse.parse_pg_brief(pacific)
    assert len(expected) == 49
    assert parse.parse_pg_brief(pacific["pg_stats"]) == expected  # bare list (Luminous..Octopus)
    assert parse.parse_pg_brief({"pg_map": {"pg_stats": pacific["pg_stats"]}}) == expected  # pg_map (newer)
    assert parse.parse_pg_brief({"pg_ready": False}) == ()


def test_osd_stat_nested_or_flat() -> None:
    flat = raw("osd_down", "mon", "osd stat")
    assert parse.parse_osd_stat({"osdmap": flat}) == parse.parse_osd_stat(flat)
    assert parse.parse_osd_stat(flat).down == 1


def test_pg_stat_with_and_without_wrapper() -> None:
    wrapped = raw("osd_down", "mgr", "pg stat")
    assert parse.parse_pg_stat(wrapped["pg_summary"]) == parse.parse_pg_stat(wrapped)
    # The status pgmap carries the same counts under other names.
    status = raw("osd_down", "mon", "status")
    by_status = parse.parse_pgs_by_state(status["pgmap"])
    assert by_status.num_pgs == parse.parse_pg_stat(wrapped).num_pgs


def test_health_summary_as_plain_string() -> None:
    detail = raw("osd_down", "mon", "health", detail="detail")
    for c in detail["checks"].values():
        c["summary"] = c["summary"]["message"]  # pre-Luminous-12.2 shape
    h = parse.parse_health(detail)
    assert {c.code for c in h.checks} >= {"OSD_DOWN"}
    assert all(c.count == 0 and c.summary for c in h.checks)


def test_bare_nan_and_inf_are_survived() -> None:
    text = json.dumps(raw("healthy", "mon", "df", detail="detail"))
    # Old `osd df` printed -nan, some Reef `osd dump` builds print bare inf.
    broken = re.sub(r'"percent_used": [0-9.e+-]+', '"percent_used": -nan', text, count=1)
    broken = re.sub(r'"max_avail": [0-9]+', '"max_avail": inf', broken, count=1)
    assert "-nan" in broken and "inf" in broken
    d = loads(broken)
    cap = parse.parse_df(d)
    assert cap.total > 0
    assert cap.pools[0].percent_used == 0.0 and cap.pools[0].max_avail == 0


def test_missing_fields_give_zeros_not_errors() -> None:
    assert parse.parse_io({}).write_bps == 0
    assert parse.parse_df({}).total == 0
    assert parse.parse_health({}).status == "HEALTH_UNKNOWN"


def test_parse_stamp_formats() -> None:
    a = parse.parse_stamp("2026-11-22T11:03:05.431288+0000")
    b = parse.parse_stamp("2026-11-22 11:03:05.431288")
    assert a == b
    assert parse.parse_stamp("") is None and parse.parse_stamp("garbage") is None



def test_progress_events_absent_or_empty() -> None:
    # The captures hold no progress events (the sandbox recovers too fast to raise one).
    status = raw("osd_down", "mon", "status")
    assert parse.parse_progress(status.get("progress_events")) == ()
    assert parse.parse_progress(None) == ()
