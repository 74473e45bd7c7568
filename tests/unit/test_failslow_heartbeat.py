"""Heartbeat ping times as a fail-slow source, on the mgr's `dump_osd_network 0` captured from real runs
(scripts/capture_heartbeat_fixture.py: a 6-OSD sandbox under a rados writer; osd.2, then both OSDs of CRUSH
host fh2, throttled by a cgroup CPU quota), with the `osd perf` frames of the same faults
(tests/fixtures/history/failslow_*.json)."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.doctor.failslow import findings, heartbeat_signals
from cephtui.ceph.history.failslow import (
    PING_SLOW_MS,
    Signals,
    Window,
    heartbeat_odd,
    places_from_tree,
    report_json,
    slow_pairs,
    with_heartbeats,
)
from cephtui.ceph.history.failslow_judge import rank
from cephtui.ceph.history.model import OsdFrame

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "history"
CAPTURES = sorted(HERE.glob("heartbeat_*.json"))


def frames_of(scenario: dict[str, Any]) -> list[OsdFrame]:
    return [OsdFrame(t=f["t"], commit_ms={int(k): v for k, v in f["commit_ms"].items()},
                     apply_ms={int(k): v for k, v in f["apply_ms"].items()}) for f in scenario["frames"]]


@pytest.fixture(params=CAPTURES, ids=lambda p: p.stem)
def capture(request: pytest.FixtureRequest) -> dict[str, Any]:
    return json.loads(request.param.read_text())


@pytest.fixture
def perf(capture: dict[str, Any]) -> dict[str, Any]:
    """The `osd perf` capture of the same release (same sandbox layout and faults)."""
    release = capture["meta"]["ceph_version"].split()[-2]
    return json.loads((HERE / f"failslow_{release}.json").read_text())


def judged(perf_scenario: dict[str, Any], signals: Signals):  # type: ignore[no-untyped-def]
    frames = frames_of(perf_scenario)
    window = Window(frames[-1].t - frames[0].t, len(frames), "fixture")
    return rank(frames, places_from_tree(perf_scenario["tree"]), window, signals)


def test_there_is_a_capture() -> None:
    assert CAPTURES, "tests/fixtures/history/heartbeat_*.json: run scripts/capture_heartbeat_fixture.py"


def test_healthy_pings_stay_far_below_the_threshold(capture: dict[str, Any]) -> None:
    entries = capture["scenarios"]["healthy"]["network"]["entries"]
    assert len(entries) >= 30  # every pair of the 6 OSDs, both interfaces: the capture saw them all
    assert max(e["average"]["1min"] for e in entries) < PING_SLOW_MS / 2
    assert slow_pairs(capture["scenarios"]["healthy"]["network"]) == {}


@pytest.mark.parametrize("scenario", ["one_osd", "slow_host"])
def test_the_throttled_osds_are_the_ones_their_slow_pings_share(capture: dict[str, Any], scenario: str) -> None:
    sc = capture["scenarios"][scenario]
    odd, lone = heartbeat_odd(slow_pairs(sc["network"]))
    assert sorted(odd) == sc["throttled"] and lone == []
    for hb in odd.values():
        assert hb.partners >= 2 and hb.median_ms >= PING_SLOW_MS


def test_the_pings_agree_in_the_finding(capture: dict[str, Any], perf: dict[str, Any]) -> None:
    signals = with_heartbeats(Signals(), capture["scenarios"]["one_osd"]["network"])
    report = judged(perf["scenarios"]["one_osd"], signals)
    (suspect,) = report.suspects
    assert suspect.osd == 2 and suspect.sources[0] == "osd perf"
    assert suspect.sources[1].startswith("heartbeat pings (") and "ms with 5 peers)" in suspect.sources[1]
    (finding,) = findings(report)
    assert "heartbeat pings (" in finding.context[0] and finding.context[0].endswith("name it too")
    assert report_json(report)["suspects"][0]["sources"] == list(suspect.sources)


def test_a_slow_host_s_pings_agree_for_each_of_its_osds(capture: dict[str, Any], perf: dict[str, Any]) -> None:
    signals = with_heartbeats(Signals(), capture["scenarios"]["slow_host"]["network"])
    report = judged(perf["scenarios"]["slow_host"], signals)
    assert [h.host for h in report.hosts] == ["fh2"]
    assert all(any(x.startswith("heartbeat pings") for x in s.sources) for s in report.suspects)


def test_pings_alone_make_no_suspect_but_a_lead(capture: dict[str, Any], perf: dict[str, Any]) -> None:
    # osd perf healthy, the heartbeats slow around osd.2: its host's network, not its disk
    signals = with_heartbeats(Signals(), capture["scenarios"]["one_osd"]["network"])
    report = judged(perf["scenarios"]["healthy"], signals)
    assert report.suspects == ()
    assert any(n.startswith("Heartbeat pings (") and "around osd.2" in n and "network" in n for n in report.notes)


def test_a_pair_slow_on_its_own_is_a_link_not_an_osd(capture: dict[str, Any]) -> None:
    network = copy.deepcopy(capture["scenarios"]["one_osd"]["network"])
    network["entries"] = [e for e in network["entries"] if {e["from osd"], e["to osd"]} == {0, 2}]
    odd, lone = heartbeat_odd(slow_pairs(network))
    assert odd == {} and lone == [(0, 2)]
    assert with_heartbeats(Signals(), network).notes == (
        "heartbeat pings: osd.0 - osd.2 slow on their own (a link between them, not an OSD)",)


def test_stale_entries_are_left_out(capture: dict[str, Any]) -> None:
    network = copy.deepcopy(capture["scenarios"]["one_osd"]["network"])
    assert slow_pairs(network)
    for e in network["entries"]:
        e["stale"] = True
    assert slow_pairs(network) == {}


def test_an_unreadable_heartbeat_is_a_note_and_the_ranking_stands(perf: dict[str, Any]) -> None:
    def gone() -> Any:
        raise RuntimeError("no active mgr")
    signals = heartbeat_signals(Signals(), gone)
    assert signals.notes == ("heartbeat pings: not read (no active mgr)",)
    report = judged(perf["scenarios"]["one_osd"], signals)
    assert [s.osd for s in report.suspects] == [2] and "heartbeat pings: not read (no active mgr)" in report.notes
    assert heartbeat_signals(Signals(), None) == Signals()  # no reader (a replay): nothing said
