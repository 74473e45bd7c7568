"""Pure helpers: PG filter, formatting, recovery estimate, CLI argument handling."""
from __future__ import annotations

import pytest

from cephtui.ceph.format import human_bytes, human_duration
from cephtui.ceph.snapshot.models import IORates, PGBrief, Recovery
from cephtui.ceph.snapshot.pgfilter import PGFilter, pgid_key
from cephtui.cli.dispatch import parse_command_line

PG = PGBrief("3.1a", "active+undersized+degraded", (0, 1), (0, 1), 0, 0)
PG13 = PGBrief("13.4", "active+clean", (2, 1, 0), (2, 1, 0), 2, 2)


@pytest.mark.parametrize("text,pg,expected", [
    ("", PG, True),
    ("degraded", PG, True),
    ("degraded 3.", PG, True),
    ("3.", PG13, False),  # pool 3, not 13
    ("13.", PG13, True),
    ("osd=2", PG, False),
    ("osd=2", PG13, True),
    ("osd.1 undersized", PG, True),
    ("rbd", PG, True),  # pool name
    ("clean rbd", PG, False),
])
def test_pg_filter(text: str, pg: PGBrief, expected: bool) -> None:
    names = {3: "rbd", 13: "other"}
    assert PGFilter(text).matches(pg, names) is expected
    expected = [p for p in (PG, pg, PG13) if PGFilter(text).matches(p, names)]
    assert PGFilter(text).select([PG, pg, PG13], names) == expected


def test_pg_filter_reports_bad_osd_term() -> None:
    assert "expected osd=N" in PGFilter("osd=x").error


def test_pgid_sorts_numerically() -> None:
    assert sorted(["1.10", "1.a", "2.0", "1.2", "10.1"], key=pgid_key) == ["1.2", "1.a", "1.10", "2.0", "10.1"]


def test_human_units_match_ceph() -> None:
    assert human_bytes(871 * 1024**2) == "871 MiB"
    assert human_bytes(30 * 1024**3) == "30.0 GiB"
    assert human_bytes(512) == "512 B"
    assert human_duration(383) == "6m23s" and human_duration(None) == "unknown"


def test_recovery_eta() -> None:
    r = Recovery(degraded_objects=600, degraded_total=1000, misplaced_objects=400, misplaced_total=1000)
    assert r.eta_seconds(IORates(recovering_objects_ps=100)) == 10
    assert r.eta_seconds(IORates()) is None
    assert Recovery().eta_seconds(IORates()) == 0.0


def test_librados_options_pass_through() -> None:
    """Before the command, options librados' own table knows pass in the forms librados takes."""
    _, args, extra = parse_command_line(["-c", "x.conf", "--mon-host", "10.0.0.1", "--debug-ms=1",
                                         "--rados_mon_op_timeout", "7", "--no-log-to-stderr", "--id", "admin",
                                         "snapshot", "--json"])
    assert extra == ["--debug-ms=1", "--rados_mon_op_timeout", "7", "--no-log-to-stderr"]
    assert (args.conf, args.mon_host, args.command, args.json, args.id) == ("x.conf", "10.0.0.1", "snapshot",
                                                                            True, "admin")


def test_fill_colours_follow_the_clusters_own_ratios() -> None:
    from cephtui.ceph.snapshot.models import Ratios
    from cephtui.ui import palette
    from cephtui.ui.panes.health import fill_style

    r = Ratios(nearfull=0.85, backfillfull=0.90, full=0.95)
    warn, err = palette.style("bold warn"), palette.style("bold err")
    assert [fill_style(f, r) for f in (0.5, 0.86, 0.91, 0.96)] == ["", warn, err, palette.badge("err")]
    assert warn == f"bold {palette.color('warn')}" and palette.color("warn") != palette.color("err")
    # A cluster with a lowered nearfull ratio warns earlier, and so does the screen.
    assert fill_style(0.03, Ratios(nearfull=0.02)) == warn
