"""Parsers stay correct across Ceph releases: each release's captured output (tests/fixtures/<release>/),
and that output reshaped the way other releases shape it."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cephtui.ceph.answers import loads
from cephtui.ceph.snapshot import parse
from tests.releases import answer, major_of, num_pgs, release_params

OSD_DOWN = release_params("osd_down")
HEALTHY = release_params("healthy")


def raw(path: Path, target: str, prefix: str, **args) -> dict:
    return answer(path, target, prefix, **args)


@pytest.mark.parametrize("fx", OSD_DOWN)
def test_pg_dump_in_every_known_shape(fx: Path) -> None:
    captured = raw(fx, "mgr", "pg dump", dumpcontents=["pgs_brief"])
    expected = parse.parse_pg_brief(captured)
    assert len(expected) == num_pgs(fx) > 0
    pgs = captured["pg_stats"] if "pg_stats" in captured else captured["pg_map"]["pg_stats"]
    assert parse.parse_pg_brief(pgs) == expected  # bare list (Luminous..Octopus)
    assert parse.parse_pg_brief({"pg_map": {"pg_stats": pgs}}) == expected  # pg_map (newer)
    assert parse.parse_pg_brief({"pg_ready": True, "pg_stats": pgs}) == expected  # Pacific..Tentacle
    assert parse.parse_pg_brief({"pg_ready": False}) == ()


@pytest.mark.parametrize("fx", OSD_DOWN)
def test_osd_stat_nested_or_flat(fx: Path) -> None:
    answer = raw(fx, "mon", "osd stat")
    flat = answer.get("osdmap", answer)  # Nautilus nests it under "osdmap", Pacific on do not
    assert parse.parse_osd_stat({"osdmap": flat}) == parse.parse_osd_stat(flat) == parse.parse_osd_stat(answer)
    assert parse.parse_osd_stat(flat).down == 1


@pytest.mark.parametrize("fx", OSD_DOWN)
def test_pg_stat_with_and_without_wrapper(fx: Path) -> None:
    wrapped = raw(fx, "mgr", "pg stat")
    assert parse.parse_pg_stat(wrapped["pg_summary"]) == parse.parse_pg_stat(wrapped)
    # The status pgmap carries the same counts under other names.
    status = raw(fx, "mon", "status")
    by_status = parse.parse_pgs_by_state(status["pgmap"])
    assert by_status.num_pgs == parse.parse_pg_stat(wrapped).num_pgs == num_pgs(fx)


@pytest.mark.parametrize("fx", OSD_DOWN)
def test_health_summary_as_plain_string(fx: Path) -> None:
    detail = raw(fx, "mon", "health", detail="detail")
    for c in detail["checks"].values():
        c["summary"] = c["summary"]["message"]  # pre-Luminous-12.2 shape
    h = parse.parse_health(detail)
    assert {c.code for c in h.checks} >= {"OSD_DOWN"}
    assert all(c.count == 0 and c.summary for c in h.checks)


@pytest.mark.parametrize("fx", HEALTHY)
def test_bare_nan_and_inf_are_survived(fx: Path) -> None:
    text = json.dumps(raw(fx, "mon", "df", detail="detail"))
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



@pytest.mark.parametrize("fx", OSD_DOWN)
def test_progress_events_absent_or_empty(fx: Path) -> None:
    # The captures hold no progress events (the sandbox recovers too fast to raise one).
    status = raw(fx, "mon", "status")
    assert parse.parse_progress(status.get("progress_events")) == ()
    assert parse.parse_progress(None) == ()


@pytest.mark.parametrize("fx", HEALTHY)
def test_quorum_names_the_mons_release(fx: Path) -> None:
    """quorum_status's monmap says the oldest mon's release: the users wizard checks caps as it would."""
    mons = parse.parse_quorum(raw(fx, "mon", "quorum_status"))
    assert mons.release == major_of(fx) > 0 and mons.quorum == ("a",)
