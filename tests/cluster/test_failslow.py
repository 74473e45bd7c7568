"""Fail-slow for real: `cephtui doctor --json` on a 6-OSD sandbox under a steady rados writer names an OSD
whose process is throttled by a cgroup CPU quota (tests/cluster/slowing.py), names a CRUSH host when both of
its OSDs are, names nobody without a fault, and says the mgr is down rather than tracing back.

The module's own sandbox (6 OSDs; the session's has 3): CEPHTUI_FAILSLOW_SANDBOX=DIR reuses one (kept), and
CEPHTUI_FAILSLOW_OSDS=N gives it N OSDs and runs the late-onset test, a soak (scripts/soak.sh
`failslow-sizes`: 4, then 6)."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.slowing import (
    available,
    cleanup_objects,
    client_load,
    crush_hosts,
    osd_pid,
    throttled,
    wait_for_load,
)
from tests.cluster.test_cli import CEPHTUI, run
from tests.conftest import Sandbox, own_sandbox, wait_until

WINDOW = "15"  # seconds sampled per doctor run: 4 frames at the 5 s interval, one more than MIN_FRAMES
RANK_WITHIN = 90.0  # seconds from the throttle to the first doctor run that names it (measured: one run, ~16 s)
LAYOUT = {"fh1": [0, 1], "fh2": [2, 3], "fh3": [4, 5]}


@pytest.fixture(scope="module")
def box() -> Iterator[Sandbox]:
    why = available()
    if why:
        pytest.skip(f"cannot throttle an OSD here: {why}")
    reuse = os.environ.get("CEPHTUI_FAILSLOW_SANDBOX")
    if reuse:
        b = Sandbox(Path(reuse), Path(reuse) / "ceph.conf")
        b.heal()
        yield b
        b.close()
        return
    with own_sandbox("ctt-slow-", "--osds", os.environ.get("CEPHTUI_FAILSLOW_OSDS", "6"), "--pool", "rbd:32") as b:
        yield b


@pytest.fixture(scope="module")
def load(box: Sandbox) -> Iterator[None]:
    """The writer for the whole module; its objects removed after (a reused sandbox is left as found)."""
    with client_load(box.conf):
        wait_for_load(box.ceph, wait_until)
        yield
    cleanup_objects(box.conf)


def doctor(box: Sandbox, *extra: str, env: dict[str, str] | None = None) -> tuple[dict[str, Any], float]:
    res, took = run("-c", str(box.conf), "doctor", "--json", "--window", WINDOW, *extra, timeout=120, env=env)
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode in (0, 3, 4), res.stderr
    return json.loads(res.stdout), took


def ours(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in out["findings"] if f["code"].startswith("CEPHTUI_")]


def clean(box: Sandbox) -> bool:
    states = box.ceph("pg", "stat")["pg_summary"]["num_pg_by_state"]
    return bool(states) and all(s["name"] == "active+clean" for s in states)


def test_no_fault_no_finding(box: Sandbox, load: None) -> None:
    out, took = doctor(box)
    assert ours(out) == [], ours(out)
    assert out["failslow"]["suspects"] == [] and out["failslow"]["hosts"] == []
    assert len(out["failslow"]["ranking"]) == 6  # all judged: a quiet answer, not a blind one
    assert out["failslow"]["window"]["frames"] >= 4
    assert any(n.startswith(f"fail-slow: sampled osd perf for {WINDOW} s") for n in out["notes"]), out["notes"]
    assert took >= float(WINDOW)


def test_a_throttled_osd_ranks_first(box: Sandbox, load: None) -> None:
    culprit = 2
    runs: list[dict[str, Any]] = []

    def named() -> bool:
        out, _ = doctor(box)
        runs.append(out)
        for f in ours(out):  # never a healthy OSD, in any run, while it forms
            assert f["affected"]["osds"] == [culprit], f
        return any(f["code"] == "CEPHTUI_SLOW_OSD" for f in ours(out))

    with throttled([osd_pid(box.dir, culprit)]):
        t0 = time.monotonic()
        wait_until(named, RANK_WITHIN, f"osd.{culprit} named by CEPHTUI_SLOW_OSD", interval=0)
        first = time.monotonic() - t0

        def pings_agree() -> bool:  # once the mgr's 1-minute heartbeat averages have filled with the fault
            if not named():
                return False
            top = runs[-1]["failslow"]["ranking"][0]
            return any(x.startswith("heartbeat pings (") for x in top["sources"])
        wait_until(pings_agree, 120, f"the heartbeat pings agree on osd.{culprit}", interval=0)
        agreed = time.monotonic() - t0
    out = runs[-1]
    (f,) = ours(out)
    assert f["affected"]["osds"] == [culprit] and f["severity"] == "HEALTH_WARN"
    top = out["failslow"]["ranking"][0]
    # The first window named may still hold frames from before the mgr reported the throttled latency (one run:
    # median 10 ms vs 1): the contrast asked here is the suspect's own bar; the full-window contrast (~60x) is
    # checked by the unit tests on recorded frames.
    assert top["osd"] == culprit and top["suspect"] and top["median_ms"] >= 2 * max(top["peer_median_ms"], 1)
    assert not any(s["suspect"] for s in out["failslow"]["ranking"][1:])
    assert f["fixes"][0]["command"].startswith(f"ceph tell osd.{culprit} bench")
    assert any("robust z" in c for c in f["context"])
    assert any("heartbeat pings (" in c and "name it too" in c for c in f["context"]), f["context"]
    assert not any(n.startswith("heartbeat pings: not read") for n in out["failslow"]["notes"]), out["failslow"]
    print(f"osd.{culprit} named after {first:.0f} s, heartbeats agreeing after {agreed:.0f} s ({len(runs)} doctor "
          f"runs of {WINDOW} s): {top['median_ms']} ms vs {top['peer_median_ms']} ms, z {top['z']}; {top['sources']}")


def test_a_slow_host_is_named_as_the_host(box: Sandbox, load: None) -> None:
    runs: list[dict[str, Any]] = []

    def host_named() -> bool:
        out, _ = doctor(box)
        runs.append(out)
        for f in ours(out):
            assert set(f["affected"]["osds"]) <= set(LAYOUT["fh2"]), f
        return any(f["code"] == "CEPHTUI_SLOW_HOST" for f in ours(out))

    with crush_hosts(box.ceph, LAYOUT):
        wait_until(lambda: clean(box), 120, "PGs active+clean on the new CRUSH hosts")
        with contextlib.ExitStack() as stack:
            for osd in LAYOUT["fh2"]:
                stack.enter_context(throttled([osd_pid(box.dir, osd)]))  # a quota each, as two slow disks
            t0 = time.monotonic()
            wait_until(host_named, RANK_WITHIN + 30, "CEPHTUI_SLOW_HOST for fh2", interval=0)
            print(f"fh2 named after {time.monotonic() - t0:.0f} s ({len(runs)} doctor runs of {WINDOW} s)")
        out = runs[-1]
        (f,) = ours(out)  # the host, not its two disks as well
        assert f["code"] == "CEPHTUI_SLOW_HOST"
        assert f["affected"]["hosts"] == ["fh2"] and f["affected"]["osds"] == LAYOUT["fh2"]
        assert "network" in f["summary"] and "network" in f["explanation"]["causes"][0]
    wait_until(lambda: clean(box), 120, "PGs active+clean with the CRUSH hosts undone")
    hosts = [n["name"] for n in box.ceph("osd", "tree")["nodes"] if n["type"] == "host"]
    assert not set(hosts) & set(LAYOUT), hosts


async def test_the_ui_names_a_throttled_osd_from_its_own_recording(box: Sandbox, load: None) -> None:
    """The open UI records, ranks every 30 s over what it recorded, and says it in the Doctor and OSDs tabs."""
    from cephtui.ui.panes.doctor import DoctorPane
    from cephtui.ui.panes.osds import OSDsPane
    from tests.ui.helpers import SIZE, app_factory, show_tab, wait_for

    culprit = 4
    with throttled([osd_pid(box.dir, culprit)]), app_factory(box.conf) as make:
        app = make(history=True)
        async with app.run_test(size=SIZE) as pilot:
            t0 = time.monotonic()
            await wait_for(pilot, lambda: app.history.failslow is not None and app.history.failslow.suspects, 180,
                           "a fail-slow ranking with a suspect")
            first = time.monotonic() - t0
            report = app.history.failslow
            assert [s.osd for s in report.suspects] == [culprit]  # nobody else, in the UI's own window
            assert report.window.source == "recorded history"
            await show_tab(pilot, "0", "doctor")
            doctor = app.query_one(DoctorPane)
            await wait_for(pilot, lambda: any(f.code == "CEPHTUI_SLOW_OSD" for f in doctor.findings), 10,
                           "CEPHTUI_SLOW_OSD in the Doctor tab")
            (f,) = [f for f in doctor.findings if f.code.startswith("CEPHTUI_")]
            assert f.affected.osds == (culprit,)
            await show_tab(pilot, "3", "osds")
            osds = app.query_one(OSDsPane)
            await wait_for(pilot, lambda: osds.slow_osds == {culprit}, 10, "the suspect flagged in the OSDs tab")
            row = next(r for r in osds.vtable.rows if getattr(r.node, "id", None) == culprit and r.is_osd)
            assert osds._cells(row)[11][0].startswith("⚠ slow vs peers")
            print(f"the UI named osd.{culprit} {first:.0f} s after it started recording "
                  f"({report.window.describe()})")


HEALTHY_FIRST = 150.0  # seconds of healthy recorded load before the throttle: as long as the slow part
NAMED_WITHIN = 120.0  # the bar: named within two minutes of the throttle
CLEARED_WITHIN = 150.0  # normal for a minute (CLEAR_SECONDS), plus the mgr's and the recorder's lag


@contextlib.contextmanager
def recording(box: Sandbox, data: Path) -> Iterator[dict[str, str]]:
    """`cephtui record` into `data` for the block (stopped by its pid), and the env that points a doctor at it."""
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")}
    env.update(CEPHTUI_DATA_DIR=str(data), XDG_CONFIG_HOME="/nonexistent/cephtui-tests")
    proc = subprocess.Popen([*CEPHTUI, "-c", str(box.conf), "record"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        yield {"CEPHTUI_DATA_DIR": str(data)}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def named_then_cleared(box: Sandbox, culprit: int, data: Path) -> tuple[dict[str, Any], float, float, dict]:
    """A recorder from the start, 150 s of healthy load, then `culprit` throttled: `doctor --json` (over the
    recorded history) names it, and only it, within two minutes, held against `ceph osd perf` then; the
    throttle lifted, the finding clears and says when. Returns the naming run's report, the seconds to name
    and to clear, and osd perf's commit latency at the naming."""
    with recording(box, data) as env:
        def recorded(seconds: float) -> dict[str, Any] | None:
            out, _ = doctor(box, env=env)
            window = out["failslow"]["window"] if out["failslow"] else None
            return out if window and window["source"].startswith("recorded history") and \
                window["seconds"] >= seconds else None

        out = wait_until(lambda: recorded(HEALTHY_FIRST), HEALTHY_FIRST + 90, "150 s of recorded history",
                         interval=5)
        assert ours(out) == [] and out["failslow"]["suspects"] == [], ours(out)
        runs: list[dict[str, Any]] = []

        def named() -> bool:
            out, _ = doctor(box, env=env)
            runs.append(out)
            for f in ours(out):
                assert f["affected"]["osds"] == [culprit], f
            return any(f["code"] == "CEPHTUI_SLOW_OSD" for f in ours(out))

        with throttled([osd_pid(box.dir, culprit)]):
            t0 = time.monotonic()
            wait_until(named, NAMED_WITHIN, f"osd.{culprit} named within two minutes of its throttle", interval=2)
            took = time.monotonic() - t0
            perf = {i["id"]: i["perf_stats"]["commit_latency_ms"]
                    for i in box.ceph("osd", "perf")["osdstats"]["osd_perf_infos"]}
        named_out = runs[-1]
        (top,) = named_out["failslow"]["suspects"]
        assert top["osd"] == culprit and top["recent_rule"] and top["state"] == "suspect"
        assert named_out["failslow"]["window"]["seconds"] >= HEALTHY_FIRST  # the healthy part was in the window
        others = [ms for o, ms in perf.items() if o != culprit]
        assert perf[culprit] >= 5 and perf[culprit] >= 2 * max(max(others), 1), perf  # as `ceph osd perf` said
        (f,) = ours(named_out)
        assert "since " in f["context"][0] and "ms median against" in f["context"][0], f["context"]
        lifted = time.monotonic()

        def cleared() -> dict[str, Any] | None:
            out, _ = doctor(box, env=env)
            assert [s["osd"] for s in out["failslow"]["suspects"]] in ([], [culprit])
            return out if out["failslow"]["cleared"] else None
        out = wait_until(cleared, CLEARED_WITHIN, f"osd.{culprit}'s finding cleared", interval=2)
        gone = time.monotonic() - lifted
        (c,) = out["failslow"]["cleared"]
        assert c["osd"] == culprit and out["failslow"]["suspects"] == [] and ours(out) == []
        assert any(n.startswith(f"osd.{culprit} was slow from ") and "normal since" in n
                   for n in out["failslow"]["notes"]), out["failslow"]["notes"]
    return named_out, took, gone, perf


@pytest.mark.timeout(720)  # 150 s healthy, ~70 s to name, ~70 s to clear, and the sandbox
def test_a_disk_turning_slow_after_a_healthy_recording_is_named_then_cleared(box: Sandbox, load: None,
                                                                             tmp_path: Path) -> None:
    """4 or 6 OSDs (CEPHTUI_FAILSLOW_OSDS), judged against their peers. On landed main the window's rule named
    nobody here: the healthy part outweighed the slow one. A soak (scripts/soak.sh failslow-sizes runs it on 4
    and 6 OSDs, about 5 minutes each): CI keeps the same late onset on the 3-OSD sandbox (the next test), and the
    peers' yardstick over a recording with a healthy first half on captured frames
    (tests/unit/test_failslow_timeline.py: 3, 4 and 6 OSDs)."""
    if "CEPHTUI_FAILSLOW_OSDS" not in os.environ:
        pytest.skip("a soak: scripts/soak.sh failslow-sizes (CI runs the late onset on 3 OSDs)")
    culprit = 3
    out, took, gone, perf = named_then_cleared(box, culprit, tmp_path)
    assert out["failslow"]["suspects"][0]["yardstick"] == "peers", out["failslow"]["suspects"]
    print(f"{len(perf)} OSDs: osd.{culprit} named {took:.0f} s after its throttle (after {HEALTHY_FIRST:.0f} s of "
          f"healthy recording), cleared {gone:.0f} s after it was lifted; osd perf then {perf}")


@pytest.mark.timeout(720)
def test_on_three_osds_the_slow_one_is_named_against_its_two_peers(sandbox: Sandbox, tmp_path: Path) -> None:
    """The homelab's 3 OSDs (the session's sandbox): the two that agree say which third one is odd, and the
    finding says the judgement rests on few peers. On landed main: 'too few to tell which one is odd'."""
    if available():
        pytest.skip(f"cannot throttle an OSD here: {available()}")
    culprit = 1
    try:
        with client_load(sandbox.conf):
            wait_for_load(sandbox.ceph, wait_until)
            out, took, gone, perf = named_then_cleared(sandbox, culprit, tmp_path)
    finally:
        cleanup_objects(sandbox.conf)
    (top,) = out["failslow"]["suspects"]
    assert top["yardstick"] == "few peers" and top["peers"] == 2, top
    (f,) = ours(out)
    assert "its 2 peers, both agreeing" in " ".join(f["context"]), f["context"]
    print(f"3 OSDs: osd.{culprit} named {took:.0f} s after its throttle, cleared {gone:.0f} s after; "
          f"osd perf then {perf}")


def test_a_dead_mgr_is_said_not_traced_back(box: Sandbox, tmp_path: Path) -> None:
    box.kill("mgr.x")
    try:
        # A data directory of its own: the UI test before this one recorded a current history in the session's.
        res, _ = run("-c", str(box.conf), "doctor", "--json", "--window", WINDOW, timeout=120,
                     env={"CEPHTUI_DATA_DIR": str(tmp_path)})
        assert "Traceback" not in res.stderr, res.stderr
        out = json.loads(res.stdout)
        assert out["failslow"] is None
        assert any(n.startswith("fail-slow: not judged") for n in out["notes"]), out["notes"]
        # Seconds after the kill the monitors still say what they said (MGR_DOWN waits for the beacon grace):
        # the doctor's own finding says the mgr does not answer, and the exit is a warning's, not 0.
        codes = [f["code"] for f in out["findings"]]
        assert "CEPHTUI_MGR_UNREACHABLE" in codes or "MGR_DOWN" in codes, (codes, out["notes"])
        assert res.returncode in (3, 4), (res.returncode, codes)
    finally:
        box.revive("mgr.x")
        box.heal()
