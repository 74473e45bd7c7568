"""The fail-slow ranking on `osd perf` frames recorded from real runs (scripts/capture_failslow_fixture.py: a
6-OSD sandbox under a rados writer; one OSD, then both OSDs of one CRUSH host, throttled by a cgroup CPU
quota), and the health-check signals on captured clusters."""
from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.doctor.failslow import findings
from cephtui.ceph.history.failslow import (
    Window,
    bluestore_alerts_exist,
    frame_from_perf,
    places_from_tree,
    report_json,
    signals_from_checks,
)
from cephtui.ceph.history.failslow_judge import MIN_FRAMES, OWN_PAST_MIN_FRAMES, rank
from cephtui.ceph.history.model import OsdFrame
from cephtui.ceph.recording import ReplayClient
from cephtui.ceph.snapshot.parse import parse_health
from tests.releases import release_params

CAPTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "history").glob("failslow_*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def frames_of(scenario: dict[str, Any]) -> list[OsdFrame]:
    return [OsdFrame(t=f["t"], commit_ms={int(k): v for k, v in f["commit_ms"].items()},
                     apply_ms={int(k): v for k, v in f["apply_ms"].items()}) for f in scenario["frames"]]


def judge(scenario: dict[str, Any], frames: list[OsdFrame] | None = None):  # type: ignore[no-untyped-def]
    frames = frames_of(scenario) if frames is None else frames
    window = Window(frames[-1].t - frames[0].t if frames else 0.0, len(frames), "fixture")
    return rank(frames, places_from_tree(scenario["tree"]), window)


@pytest.fixture(params=CAPTURES, ids=lambda p: p.stem)
def capture(request: pytest.FixtureRequest) -> dict[str, Any]:
    return load(request.param)


def test_there_is_a_capture() -> None:
    assert CAPTURES, "tests/fixtures/history/failslow_*.json: run scripts/capture_failslow_fixture.py"


def test_the_throttled_osd_ranks_first_and_alone(capture: dict[str, Any]) -> None:
    sc = capture["scenarios"]["one_osd"]
    report = judge(sc)
    assert [s.osd for s in report.suspects] == sc["throttled"]
    top = report.scores[0]
    assert top.osd == sc["throttled"][0] and top.suspect
    assert top.median_ms >= 10 * max(top.peer_median_ms, 1.0)  # the fault is strong: a z far past the cut-off
    assert top.z > 10 and top.elevated >= 0.6 and top.frames >= MIN_FRAMES
    assert report.hosts == ()  # one OSD of the sandbox's one host is not a slow host
    assert all(not s.suspect and s.z < 3.5 for s in report.scores[1:])


def test_a_healthy_cluster_under_load_names_no_one(capture: dict[str, Any]) -> None:
    report = judge(capture["scenarios"]["healthy"])
    assert len(report.scores) == 6  # every OSD was judged, not skipped
    assert report.suspects == () and report.hosts == ()
    assert findings(report) == []


def test_a_slow_host_is_reported_as_the_host(capture: dict[str, Any]) -> None:
    sc = capture["scenarios"]["slow_host"]
    report = judge(sc)
    slow = capture["meta"]["layout"]
    host = next(h for h, osds in slow.items() if sorted(osds) == sorted(sc["throttled"]))
    assert [(h.host, h.osds) for h in report.hosts] == [(host, tuple(sorted(sc["throttled"])))]
    assert sorted(s.osd for s in report.suspects) == sorted(sc["throttled"])
    assert report.lone_suspects == ()
    (f,) = findings(report)
    assert f.code == "CEPHTUI_SLOW_HOST" and f.check.severity == "HEALTH_WARN"
    assert f.affected.hosts == (host,) and f.affected.osds == tuple(sorted(sc["throttled"]))
    assert f.explanation is not None and "network" in f.explanation.causes[0]
    assert any("network" in a for a in f.explanation.actions[:1])  # the host before its disks


def test_one_spike_flags_nobody(capture: dict[str, Any]) -> None:
    """One frame of the throttled run among healthy ones: a single elevated frame is not sustained."""
    healthy = frames_of(capture["scenarios"]["healthy"])
    slow_frames = frames_of(capture["scenarios"]["one_osd"])
    spike = max(slow_frames, key=lambda f: max(f.commit_ms.values()))
    mixed = [*healthy[:6], replace(spike, t=healthy[5].t + 5), *[replace(f, t=f.t + 10) for f in healthy[6:12]]]
    report = judge(capture["scenarios"]["healthy"], mixed)
    assert report.suspects == ()
    culprit = capture["scenarios"]["one_osd"]["throttled"][0]
    (score,) = [s for s in report.scores if s.osd == culprit]
    assert 0 < score.elevated < 0.6  # it was elevated, once


def test_sustained_means_most_of_the_window(capture: dict[str, Any]) -> None:
    """The slow run's frames diluted with healthy ones: named at 2 slow of 3, not at 1 of 3."""
    healthy = frames_of(capture["scenarios"]["healthy"])
    slow = [f for f in frames_of(capture["scenarios"]["one_osd"]) if max(f.commit_ms.values()) >= 20][:6]
    assert len(slow) == 6 and len(healthy) >= 12
    culprit = capture["scenarios"]["one_osd"]["throttled"][0]

    def named(frames: list[OsdFrame]) -> bool:
        stamped = [replace(f, t=i * 5.0) for i, f in enumerate(frames)]
        return culprit in [s.osd for s in judge(capture["scenarios"]["one_osd"], stamped).suspects]

    assert named(slow[:6] + healthy[:3])
    assert not named(slow[:3] + healthy[:6])


def test_a_quiet_cluster_flags_no_one(capture: dict[str, Any]) -> None:
    """The healthy run's frames with the load taken out (every OSD at 0 ms, one at 1 ms): the MAD is 0 and
    1 ms would be a huge z without the scale and absolute floors."""
    frames = []
    for f in frames_of(capture["scenarios"]["healthy"]):
        quiet = {o: 0.0 for o in f.commit_ms}
        quiet[min(quiet)] = 1.0
        frames.append(replace(f, commit_ms=quiet, apply_ms=dict(quiet)))
    report = judge(capture["scenarios"]["healthy"], frames)
    assert report.suspects == ()
    assert all(s.z <= 1.0 for s in report.scores)  # the scale floor: 1 ms over a 0 ms median is z 1, not inf


def test_too_short_a_window_names_nobody(capture: dict[str, Any]) -> None:
    slow = frames_of(capture["scenarios"]["one_osd"])[-(MIN_FRAMES - 1):]
    assert judge(capture["scenarios"]["one_osd"], slow).suspects == ()


def test_classes_are_judged_apart(capture: dict[str, Any]) -> None:
    """The throttled OSD alone in a class of its own is not compared with the others. Slow in every frame of
    the window, its own recorded past is slow too: not named, and the note says which yardstick that was and
    what it cannot see; with less than a minute of its own values it is not judged, and that is said."""
    sc = capture["scenarios"]["one_osd"]
    culprit = sc["throttled"][0]
    places = {o: replace(p, device_class="nvme" if o == culprit else p.device_class)
              for o, p in places_from_tree(sc["tree"]).items()}
    frames = frames_of(sc)
    report = rank(frames, places, Window(60, len(frames), "fixture"))
    assert report.suspects == ()
    (note,) = [n for n in report.notes if "nvme" in n]
    assert "own recorded past" in note and "slow for more than half" in note
    short = frames[-(OWN_PAST_MIN_FRAMES - 1):]
    report = rank(short, places, Window(50, len(short), "fixture"))
    assert report.suspects == () and culprit not in {s.osd for s in report.scores}
    (note,) = [n for n in report.notes if "nvme" in n]
    assert note.endswith("not judged") and f"fewer than {OWN_PAST_MIN_FRAMES} frames" in note


def test_places_come_from_the_crush_tree(capture: dict[str, Any]) -> None:
    sc = capture["scenarios"]["slow_host"]
    places = places_from_tree(sc["tree"])
    for host, osds in capture["meta"]["layout"].items():
        for o in osds:
            assert places[o].host == host and places[o].device_class
    assert set(places_from_tree(capture["scenarios"]["one_osd"]["tree"])) == set(range(6))


def test_frames_parse_as_osd_perf_says_them(capture: dict[str, Any]) -> None:
    """The recorded frames went through frame_from_perf; its input shape is osd perf's own."""
    f = frames_of(capture["scenarios"]["healthy"])[-1]
    perf = {"osdstats": {"osd_perf_infos": [{"id": o, "perf_stats": {"commit_latency_ms": f.commit_ms[o],
                                                                        "apply_latency_ms": f.apply_ms[o]}}
                                            for o in f.commit_ms]}}
    assert frame_from_perf(f.t, perf) == f
    assert frame_from_perf(f.t, perf["osdstats"]) == f  # before Pacific: the list at the top
    assert frame_from_perf(f.t, None) == OsdFrame(t=f.t)


def test_slow_osd_finding_says_the_numbers_and_offers_the_bench_first(capture: dict[str, Any]) -> None:
    sc = capture["scenarios"]["one_osd"]
    report = judge(sc)
    (f,) = findings(report)
    culprit = sc["throttled"][0]
    assert f.code == "CEPHTUI_SLOW_OSD" and f.affected.osds == (culprit,)
    assert f.check.summary.endswith(f"osd.{culprit}")
    assert f.context[0].startswith(f"osd.{culprit} (host ") and "robust z" in f.context[0]
    assert f"{report.suspects[0].median_ms:.0f} ms median" in f.context[0]
    assert f.context[-1] == f"window: {report.window.describe()}"
    bench = f.fixes[0]
    assert bench.kind == "osd_bench" and bench.cli.startswith(f"ceph tell osd.{culprit} bench")
    peers = [int(t) for t in bench.targets[1:]]
    assert len(peers) == 2 and culprit not in peers  # healthy peers benched beside it, as a yardstick
    assert f.fixes[1].cli == "ceph osd perf"
    steps = f.explanation.actions if f.explanation else ()
    out_at = next(i for i, a in enumerate(steps) if "osd out" in a)
    assert out_at > next(i for i, a in enumerate(steps) if "bench" in a)  # bench before out


def test_report_json_is_plain(capture: dict[str, Any]) -> None:
    sc = capture["scenarios"]["one_osd"]
    out = json.loads(json.dumps(report_json(judge(sc))))
    assert [s["osd"] for s in out["suspects"]] == sc["throttled"]
    assert out["window"]["frames"] == len(sc["frames"]) and out["window"]["source"] == "fixture"
    assert len(out["ranking"]) == 6


def test_window_says_where_it_came_from() -> None:
    assert Window(30, 7, "sampled osd perf").describe() == "sampled osd perf for 30 s, 7 frames (no recorded history)"
    assert Window(900, 180, "recorded history (/x.sqlite)").describe() == \
        "from recorded history (/x.sqlite), last 15 min, 180 frames"


@pytest.mark.parametrize("fx", release_params("slowops"))
def test_slow_ops_on_captured_clusters_agree_with_the_doctor(fx: Path) -> None:
    """SLOW_OPS as each release raised it (an OSD hung under writes): the OSDs the Doctor names are the ones
    the fail-slow signals name."""
    from cephtui.ceph.doctor.entities import extract

    health = parse_health(ReplayClient.load(fx).mon("health", detail="detail"))
    (check,) = [c for c in health.checks if c.code == "SLOW_OPS"]
    version = json.loads(fx.read_text())["meta"]["ceph_version"].split()[2]
    signals = signals_from_checks(health.checks, version)
    assert signals.slow_ops and signals.slow_ops == frozenset(extract(check).osds)
    assert signals.agreeing(min(signals.slow_ops)) == ("SLOW_OPS",)
    assert bool(signals.absent) == (bluestore_alerts_exist(version) is False)


def test_bluestore_alerts_by_release() -> None:
    assert bluestore_alerts_exist("16.2.15") is False
    assert bluestore_alerts_exist("18.2.4") is False and bluestore_alerts_exist("18.2.5") is True
    assert bluestore_alerts_exist("19.2.0") is False and bluestore_alerts_exist("19.2.1") is True
    assert bluestore_alerts_exist("20.1.0") is True and bluestore_alerts_exist("") is None


def test_a_captured_health_detail_parses(capture: dict[str, Any]) -> None:
    """Whatever the throttled runs raised (slow ops, slow pings, or nothing at this quota) parses into OSDs
    that exist. SLOW_OPS may name healthy primaries waiting on the slow replica: agreement is per OSD."""
    for sc in capture["scenarios"].values():
        raw = sc["health"].get("checks", {})
        s = signals_from_checks(parse_health(sc["health"]).checks)
        named = s.slow_ops | set(s.slow_ping) | s.bluestore_slow | s.stalled_read
        assert named <= set(range(6))
        assert bool(s.slow_ops) == ("SLOW_OPS" in raw)


# ------------------------------------------------------------------ the window from recorded history

def _store_with(tmp_path: Path, frames: list[OsdFrame], end: float):  # type: ignore[no-untyped-def]
    """The recorded frames written to a real history store as a recorder would, the last one at `end`."""
    store_mod = pytest.importorskip("cephtui.ceph.history.store")
    from cephtui.ceph.history.model import Sample

    store = store_mod.HistoryStore.for_cluster(tmp_path, "fsid-1")
    shift = end - frames[-1].t
    for f in frames:
        store.write(Sample(t=f.t + shift, fsid="fsid-1", cluster={}, osd=replace(f, t=f.t + shift)))
    store.close()


def test_recorded_history_is_the_window_when_current(capture: dict[str, Any], tmp_path: Path) -> None:
    from cephtui.ceph.doctor.failslow import recorded_frames

    sc = capture["scenarios"]["one_osd"]
    now = time.time()
    _store_with(tmp_path, frames_of(sc), now - 1)
    frames, label, why = recorded_frames(tmp_path, "fsid-1", 30, now)
    assert why == "" and label.startswith("recorded history (") and len(frames) >= len(sc["frames"]) - 1
    window = Window(frames[-1].t - frames[0].t, len(frames), label)
    report = rank(frames, places_from_tree(sc["tree"]), window)
    assert [s.osd for s in report.suspects] == sc["throttled"]
    assert window.describe() == f"from {label}, last {window.seconds:.0f} s, {len(frames)} frames"


def test_recorded_history_not_used_when_stale_short_or_absent(capture: dict[str, Any], tmp_path: Path) -> None:
    from cephtui.ceph.doctor.failslow import recorded_frames

    frames = frames_of(capture["scenarios"]["healthy"])
    now = time.time()
    assert recorded_frames(tmp_path, "fsid-1", 30, now)[2] in ("no recorded history", "no history store in this build")
    _store_with(tmp_path, frames, now - 120)  # a recorder that stopped two minutes ago
    got, _, why = recorded_frames(tmp_path, "fsid-1", 30, now)
    assert got == [] and why.startswith("recorded history is not current (last sample 12")
    _store_with(tmp_path / "short", frames[-3:], now)  # current, but 10 s of it: less than the 30 s wanted
    got, _, why = recorded_frames(tmp_path / "short", "fsid-1", 30, now)
    assert got == [] and why == "recorded history covers less than 30 s"


# ------------------------------------------------------------------ a mgr that does not answer yet

def test_a_mgr_seen_down_is_a_finding_until_the_monitors_say_it() -> None:
    """The snapshot saw the mgr down (its commands unanswered) while `health` is still HEALTH_OK, as in the
    30 s before MGR_DOWN: a warning of cephtui's own, so `cephtui doctor` exits 3, not 0; none once the
    monitors raise MGR_DOWN, and none with the mgr up."""
    from cephtui.ceph.doctor.diagnose import diagnose
    from cephtui.ceph.doctor.mgrgone import CODE, mgr_unreachable
    from cephtui.ceph.snapshot.builder import SnapshotBuilder

    rel = release_params("healthy")[0].values[0]
    snap = SnapshotBuilder(ReplayClient.load(rel)).build()
    assert snap.health.status == "HEALTH_OK" and not snap.mgr_down
    assert mgr_unreachable(snap, diagnose(snap)) is None
    down = replace(snap, mgr_down="mgr down: nothing listens at 127.0.0.1:6800")
    f = mgr_unreachable(down, diagnose(down))
    assert f is not None and f.code == CODE and f.check.severity == "HEALTH_WARN"
    assert "nothing listens at 127.0.0.1:6800" in f.check.summary and f.explanation is not None
    assert f.explanation.raised_by == "cephtui"
    raised = replace(f, check=replace(f.check, code="MGR_DOWN"))
    assert mgr_unreachable(down, [raised]) is None
