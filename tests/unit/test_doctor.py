"""The Doctor's pure side on a real cluster's answers (scripts/capture_doctor_fixtures.py: many checks raised at
once on a sandbox): which entities each check names, the cluster context, the fixes offered and their exact
commands, mutes with their expiry; and the refusals of bad input."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephtui.ceph.doctor import fixes
from cephtui.ceph.doctor.diagnose import diagnose
from cephtui.ceph.doctor.entities import extract
from cephtui.ceph.doctor.model import Finding
from cephtui.ceph.ops import health as health_ops
from cephtui.ceph.recording import ReplayClient
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.models import HealthCheck
from cephtui.cli.doctor import finding_json
from tests.releases import release_params


def findings(path: Path) -> dict[str, Finding]:
    snap = SnapshotBuilder(ReplayClient.load(path)).build(osd_tree=True, pools=True)
    return {f.code: f for f in diagnose(snap)}


@pytest.mark.parametrize("fx", release_params("doctor"))
def test_what_each_check_names_on_the_captured_cluster(fx: Path) -> None:
    got = findings(fx)
    meta = json.loads(fx.read_text())["meta"]
    assert set(meta["checks"]) <= set(got)  # every check raised at capture time is diagnosed
    assert [c for c, f in got.items() if f.explanation is None] == []  # and explained by the catalog
    assert got["POOL_APP_NOT_ENABLED"].affected.pools == ("noapp",)
    assert got["POOL_NO_REDUNDANCY"].affected.pools == ("single",)
    assert got["POOL_PG_NUM_NOT_POWER_OF_TWO"].affected.pools == ("odd",)
    crashed = meta["crashed"]  # osd.2, unless it was the scrubbed PG's primary (the capture's docstring)
    assert got["OSD_DOWN"].affected.osds == (crashed,)
    assert got["OSD_FLAGS"].affected.osds == (0,)
    # What the release could not raise is named with its reason, never silently missing.
    assert "RECENT_CRASH" in set(meta["checks"]) ^ set(meta["unraisable"]) and all(meta["unraisable"].values())
    if meta["crash_id"]:  # Debian's Reef mgr has no crash module (RELEASE.json says so)
        assert got["RECENT_CRASH"].affected.daemons == (f"osd.{crashed}",)
        assert got["RECENT_CRASH"].affected.osds == (crashed,)
    assert got["AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED"].affected.daemons == ("mon.a",)
    # the crashed OSD may have reported before its crash
    assert {0, 1, 2} - {crashed} <= set(got["OSD_NEARFULL"].affected.osds)
    for code in ("PG_NOT_DEEP_SCRUBBED", "PG_NOT_SCRUBBED", "PG_DEGRADED"):
        a = got[code].affected
        assert a.pgs and all("." in p for p in a.pgs), code
    # No line of these checks went unread (the tip line Ceph appends is advice, not an entity).
    for code, f in got.items():
        assert f.affected.unparsed == (), (code, f.affected.unparsed)


@pytest.mark.parametrize("fx", release_params("doctor"))
def test_context_and_fixes_from_this_cluster(fx: Path) -> None:
    got = findings(fx)
    crashed = json.loads(fx.read_text())["meta"]["crashed"]
    down = got["OSD_DOWN"].context
    assert any(f"osd.{crashed} down of 3" in line for line in down), down
    assert any("noout flag is set" in line for line in down), down  # why nothing re-replicates
    scrub = got["PG_NOT_DEEP_SCRUBBED"].context
    assert any("nodeep-scrub flag is set" in line for line in scrub), scrub
    assert any("pool 'single': replicated size 1/" in line for line in got["POOL_NO_REDUNDANCY"].context)
    assert [(x.label, x.cli) for x in got["POOL_APP_NOT_ENABLED"].fixes] == [
        ("Enable an application on pool 'noapp'", "ceph osd pool application enable noapp <app>")]
    assert [x.cli for x in got["OSDMAP_FLAGS"].fixes] == [
        "ceph osd unset nodeep-scrub", "ceph osd unset noout", "ceph osd unset noscrub"]
    assert [x.cli for x in got["OSD_FLAGS"].fixes] == ["ceph osd unset-group noout osd.0"]
    assert [x.cli for x in got["AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED"].fixes] == [
        "ceph config set mon auth_allow_insecure_global_id_reclaim false"]
    # The operations are exactly what the offers said, with what the operator gave.
    offer = got["POOL_APP_NOT_ENABLED"].fixes[0]
    (op,) = fixes.build(offer, {"app": "rbd"})
    assert op.cli == "ceph osd pool application enable noapp rbd" and op.command == {
        "prefix": "osd pool application enable", "pool": "noapp", "app": "rbd"}
    with pytest.raises(ValueError, match="application"):
        fixes.build(offer, {"app": "two words"})
    (op,) = fixes.build(got["OSD_FLAGS"].fixes[0])
    assert op.command == {"prefix": "osd unset-group", "flags": "noout", "who": ["osd.0"]}


@pytest.mark.parametrize("fx", release_params("doctor"))
def test_mutes_with_their_expiry(fx: Path) -> None:
    got = findings(fx)
    flags, odd = got["OSDMAP_FLAGS"], got["POOL_PG_NUM_NOT_POWER_OF_TWO"]
    assert flags.check.muted and flags.mute is not None and flags.mute.ttl and not flags.mute.sticky
    assert odd.check.muted and odd.mute is not None and odd.mute.sticky and odd.mute.ttl == ""
    assert got["OSD_DOWN"].mute is None
    out = finding_json(flags)
    assert out["mute"] == {"ttl": flags.mute.ttl, "sticky": False}
    assert json.loads(json.dumps(out))["affected"]["osds"] == []


def test_every_release_has_a_doctor_capture() -> None:
    """The tests above are parametrized by capture: without a release's own, they would silently not run."""
    for capture in ("doctor", "slowops"):
        assert {p.values[0].parent.name for p in release_params(capture)} >= {"pacific", "reef", "tentacle"}


def test_mute_and_config_refuse_bad_input() -> None:
    assert health_ops.health_mute("OSD_DOWN", "4h", sticky=True).cli == "ceph health mute OSD_DOWN 4h --sticky"
    assert health_ops.health_mute("OSD_DOWN").command == {"prefix": "health mute", "code": "OSD_DOWN"}
    for bad_ttl in ("forever", "4 h", "-1h", "1y", "9999999s"):
        with pytest.raises(ValueError, match="not a duration"):
            health_ops.health_mute("OSD_DOWN", bad_ttl)
    for bad_code in ("osd_down", "OSD DOWN", "", "X" * 80, "OSD_DOWN;rm"):
        with pytest.raises(ValueError, match="health check code"):
            health_ops.health_unmute(bad_code)
    with pytest.raises(ValueError, match="config section"):
        health_ops.config_set("everyone", "x_y", "1")
    with pytest.raises(ValueError, match="option name"):
        health_ops.config_set("mon", "Bad-Name", "1")
    with pytest.raises(ValueError, match="line break"):
        health_ops.config_set("mon", "x_y", "a\nb")
    with pytest.raises(ValueError, match="PG id"):
        health_ops.pg_repair("2.zz")


def test_unknown_lines_are_kept_not_dropped() -> None:
    """A detail line in a shape no pattern knows (a newer release) is shown verbatim, never lost."""
    check = HealthCheck(code="OSD_DOWN", severity="HEALTH_WARN", summary="1 osds down",
                        detail=("osd.3 (root=default,host=n1) is down", "something new about osd.4"))
    a = extract(check)
    assert a.osds == (3,) and a.hosts == ("n1",)
    assert a.unparsed == ("something new about osd.4",)


@pytest.mark.parametrize("fx", release_params("doctor"))
def test_crash_reports_grouped_and_explained(fx: Path) -> None:
    from cephtui.ceph.doctor.crashes import group_crashes, info_lines, parse_crash_ls
    from tests.releases import answer

    meta = json.loads(fx.read_text())["meta"]
    if not meta["crash_id"]:
        pytest.skip(f"{fx.parent.name}: no crash module in this release's Debian build (RELEASE.json)")

    osd = f"osd.{meta['crashed']}"
    crashes = parse_crash_ls(answer(fx, "mgr", "crash ls"))
    (c,) = crashes  # the one crash the capture made: that OSD, aborted
    assert c.entity == osd and c.new and c.process == "ceph-osd" and c.stack_sig
    (g,) = group_crashes(crashes)
    assert g.new == 1 and g.daemons == (osd,) and g.newest is c
    lines = info_lines(answer(fx, "mgr", "crash info", id=c.crash_id))
    assert lines[0].startswith(f"{osd} (ceph-osd) on ") and "new (not archived)" in lines
    assert lines.index("backtrace:") < len(lines) - 2  # frames follow, then the signature
    op = health_ops.crash_rm(c.crash_id, c.entity)
    assert op.confirm_text == osd and op.cli == f"ceph crash rm {c.crash_id}"
    with pytest.raises(ValueError, match="crash id"):
        health_ops.crash_archive("../../etc")


@pytest.mark.parametrize("fx", release_params("doctor"))
def test_a_ceph_conf_value_shadowing_the_database(fx: Path) -> None:
    """The issue's own case: ceph.conf's `mon allow pool delete = true` silently beat `ceph config set mon
    mon_allow_pool_delete false`. cephtui names the daemon, both values, and what to do."""
    from cephtui.ceph.doctor.configdb import blocked_set, daemons_for, help_lines, parse_dump, parse_show, shadowed
    from tests.releases import answer

    dump = parse_dump(answer(fx, "mon", "config dump"))
    assert any(e.who == "mon" and e.name == "mon_allow_pool_delete" and e.value == "false" for e in dump)
    running = parse_show(answer(fx, "mgr", "config show", who="mon.a"))
    (s,) = [s for s in shadowed("mon.a", running) if s.name == "mon_allow_pool_delete"]
    assert (s.running, s.source, s.db_value) == ("true", "file", "false")
    assert "ceph.conf" in s.text and "assimilate-conf" in s.remedy
    assert blocked_set("mon.a", running, "mon_allow_pool_delete", "false") is not None
    assert blocked_set("mon.a", running, "mon_allow_pool_delete", "true") is None  # what it runs already
    assert daemons_for("mon", ["a"], "x") == ["mon.a"] and daemons_for("global", ["a"], "x") == ["mon.a", "mgr.x"]
    assert daemons_for("osd/class:ssd", ["a"], "x") == []  # never every OSD
    lines = help_lines(answer(fx, "mon", "config help", key="mon_allow_pool_delete"))
    assert lines[0].startswith("mon_allow_pool_delete (bool") and any(x.startswith("default") for x in lines)


@pytest.mark.parametrize("fx", release_params("doctor"))
def test_scrub_errors_name_the_object_and_the_bad_copy(fx: Path) -> None:
    from cephtui.ceph.doctor.scrub import parse_inconsistent_obj, parse_pg_ls
    from tests.releases import answer

    meta = json.loads(fx.read_text())["meta"]
    pgid = meta["list_inconsistent_obj"]["pgid"]
    (pg,) = parse_pg_ls(answer(fx, "mgr", "pg ls", states=["inconsistent"]))
    assert pg.pgid == pgid and "inconsistent" in pg.state and pg.scrub_errors >= 1
    (obj,) = parse_inconsistent_obj(json.loads(meta["list_inconsistent_obj"]["out"]))
    assert obj.name == "damaged" and "data_digest_mismatch" in obj.errors and obj.authoritative
    (bad,) = obj.bad
    assert not bad.primary and bad.errors == ("data_digest_mismatch_info",) and bad.osd not in obj.good
    assert f"bad copy on osd.{bad.osd}" in obj.verdict
    got = findings(fx)
    assert got["PG_DAMAGED"].affected.pgs == (pgid,)
    assert [x.kind for x in got["PG_DAMAGED"].fixes] == ["pg_repair"]


@pytest.mark.parametrize("fx", release_params("slowops"))
def test_slow_ops_name_the_hung_peer(fx: Path) -> None:
    """osd.1 hung under writes: SLOW_OPS names only the primaries waiting on it; their ops, grouped, say
    "waiting for sub ops" and the one peer common to all of them is the hung OSD."""
    from cephtui.ceph.doctor.slowops import group, parse_ops
    from cephtui.ceph.snapshot.parse import parse_health
    from tests.releases import answer

    meta = json.loads(fx.read_text())["meta"]
    health = parse_health(answer(fx, "mon", "health", detail="detail"))
    (check,) = [c for c in health.checks if c.code == "SLOW_OPS"]
    named = extract(check).osds
    assert named and meta["hung"] not in named and set(meta["tell"]) == {str(i) for i in named}
    ops = [op for osd, dumps in meta["tell"].items() for prefix, raw in dumps.items()
           for op in parse_ops(int(osd), raw, historic=prefix == "dump_historic_slow_ops")]
    live = [o for o in ops if not o.historic]
    assert live and all(o.kind == "osd_op" and o.client.startswith("client.") and o.pgid for o in live)
    g = group(ops)
    assert dict(g.by_state).get("waiting for sub ops", 0) >= 1
    assert meta["hung"] in g.suspects and set(g.suspects) <= {0, 1, 2} - ({int(named[0])} if len(named) == 1 else set())
    if len(named) > 1:  # more than one primary waits: the one peer common to all of them is the hung one
        assert g.suspects == (meta["hung"],)
    assert g.oldest >= 5  # older than the complaint time it was raised at


def test_slow_ops_are_asked_of_named_osds_only() -> None:
    from cephtui.ceph.doctor.slowops import named_osds

    assert named_osds(range(5000)) == list(range(10))  # Ceph's own cap on the summary: never all 5,000


def test_scrubs_are_paced_one_per_primary_and_four_at_most() -> None:
    """The pacing rule itself (pure logic): oldest first, never two PGs of one primary OSD at once, at most
    MAX_IN_FLIGHT in all, the next only once a PG's stamp has moved, a PG stuck for STUCK_AFTER given up."""
    from cephtui.ceph.doctor.pacing import MAX_IN_FLIGHT, STUCK_AFTER, PGStamp, ScrubPacer, overdue

    old = "2026-01-01T00:00:00"
    stamps = {f"1.{i:x}": PGStamp(f"1.{i:x}", i % 6, f"{old}.{i:06d}") for i in range(12)}
    plan = overdue(stamps, named=("1.b",), count=3)
    assert [p.pgid for p in plan] == ["1.0", "1.1", "1.2", "1.b"]  # the 3 oldest, and the one Ceph named
    pacer = ScrubPacer(pending=sorted(stamps.values(), key=lambda p: p.stamp))
    first = pacer.next_batch()
    assert len(first) == MAX_IN_FLIGHT and len({p.primary for p in first}) == MAX_IN_FLIGHT
    for p in first:
        pacer.sent(p, 0.0)
    assert pacer.next_batch() == []  # full: nothing more until a stamp moves
    pacer.observe({**stamps, "1.0": PGStamp("1.0", 0, "2026-11-24T07:00:00")}, 1.0)
    assert pacer.done == ["1.0"]
    (nxt,) = pacer.next_batch()
    assert nxt.primary not in {p.primary for p, _ in pacer.in_flight.values()}
    pacer.sent(nxt, 1.0)
    pacer.observe(stamps, STUCK_AFTER + 1)  # no stamp moved for too long: the first three given up
    assert sorted(pacer.given_up) == ["1.1", "1.2", "1.3"] and list(pacer.in_flight) == [nxt.pgid]


@pytest.mark.parametrize("fx", release_params("doctor"))
def test_headless_doctor_names_the_crash_reports(fx: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`cephtui doctor` on RECENT_CRASH: the real reports (id, daemon, host, time, signature, as the crash view
    groups them) and fix commands with those ids, never `ceph crash info <id>`; in JSON too."""
    import argparse

    from cephtui.cli.doctor import doctor_command

    meta = json.loads(fx.read_text())["meta"]
    if not meta["crash_id"]:
        pytest.skip(f"{fx.parent.name}: no crash module in this release's Debian build (RELEASE.json)")
    crash_id, osd = meta["crash_id"], f"osd.{meta['crashed']}"

    assert doctor_command(ReplayClient.load(fx), argparse.Namespace(json=False, muted=False, window=0)) == 4
    text = capsys.readouterr().out
    part = text[text.index("] RECENT_CRASH"):]
    part = part[:part.index("\n\n")]
    assert "New crash reports (crash ls), by backtrace signature:" in part
    sig_line = next(line for line in part.splitlines() if line.strip().startswith("signature "))
    assert "ceph-osd, 1 new on " + osd in sig_line
    report = next(line for line in part.splitlines() if crash_id in line and "crash info" not in line)
    assert f"{crash_id}  {osd} on " in report and crash_id[:10] in report.split(" at ")[-1]
    assert f"ceph crash info {crash_id}; ceph crash archive {crash_id}" in part
    assert "<id>" not in "".join(line for line in part.splitlines() if "cephtui offers" in line)

    assert doctor_command(ReplayClient.load(fx), argparse.Namespace(json=True, muted=False, window=0)) == 4
    (f,) = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "RECENT_CRASH"]
    (c,) = f["crashes"]
    assert (c["id"], c["daemon"]) == (crash_id, osd) and len(c["signature"]) == 64 and c["time"]
    assert [x["command"] for x in f["fixes"]] == [f"ceph crash info {crash_id}; ceph crash archive {crash_id}"]
    assert f["fixes"][0]["label"].startswith(f"Read and archive {osd}'s crash at ")
