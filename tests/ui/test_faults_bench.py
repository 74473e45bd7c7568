"""Faults during a bench, through Pilot on the shared sandbox: an OSD dies in the middle of a run.

Each test kills osd.1 for real (SIGKILL: a crash, not a clean shutdown), checks what the Bench
pane shows, that the history and the temporary pool are consistent, and that the app still
answers keys; then brings the OSD back and waits for HEALTH_OK.
"""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from cephtui.ceph.bench.engine import run_bench
from cephtui.ceph.bench.params import BenchParams
from cephtui.ceph.bench.results import STALL_NOTABLE, BenchResult
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox, stop_process
from tests.ui.helpers import SIZE, cells, open_screen, wait_for
from tests.ui.test_bench import fill, flat, open_bench, start_run, submit_and_run


@pytest.fixture(autouse=True)
def own_history(tmp_path: Path, monkeypatch: Any) -> Path:
    monkeypatch.setenv("CEPHTUI_DATA_DIR", str(tmp_path))
    return tmp_path / "bench-history.jsonl"


def crash(sandbox: Sandbox, daemon: str) -> None:
    """SIGKILL: the daemon dies without telling the mon (its peers report it)."""
    sandbox.tool("kill", str(sandbox.dir), daemon, "--hard")


def freeze(sandbox: Sandbox, daemon: str) -> None:
    """SIGSTOP: the daemon stops answering (a hung disk would look the same) until crash() ends it."""
    pid = json.loads((sandbox.dir / "pids" / f"{daemon}.json").read_text())["pid"]
    assert str(sandbox.conf).encode() in Path(f"/proc/{pid}/cmdline").read_bytes(), "not the sandbox's daemon"
    stop_process(pid)


def pool_names(sandbox: Sandbox) -> list[str]:
    return sorted(p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail"))


def bench_objects(sandbox: Sandbox, pool: str) -> list[str]:
    out = subprocess.run(["rados", "-c", str(sandbox.conf), "-p", pool, "ls"], capture_output=True, text=True,
                         check=True).stdout
    return [o for o in out.split() if o.startswith("benchmark_")]


async def still_answers(app: CephTUI, pilot: Pilot, pane: BenchPane) -> None:
    """The app is not wedged: a new-run form opens (nothing is running any more) and closes."""
    await pilot.press("b")
    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), 5, "the new-run form")
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(app.screen, FormScreen), 5, "the form to close")
    assert not pane._busy()


async def crash_mid_run(pilot: Pilot, pane: BenchPane, sandbox: Sandbox, running: str,
                        ended: str) -> tuple[BenchResult | None, float]:
    """osd.1 crashes once the run has 50 ops done: the run's result once it has ended, and when the crash was."""
    await wait_for(pilot, lambda: pane.engine is not None and pane.engine.progress().finished > 50, 40, running)
    crash(sandbox, "osd.1")
    killed = time.monotonic()
    await wait_for(pilot, lambda: pane.last_result is not None and pane.engine is None and not pane.phase, 60, ended)
    return pane.last_result, killed


async def test_osd_crash_during_a_temp_pool_write_names_the_osd_and_deletes_the_pool(
        make_app: Any, sandbox: Sandbox, own_history: Path) -> None:
    """Size-1 temporary pool: the PGs on the dead OSD have no other copy, so their ops can only time out."""
    before = pool_names(sandbox)
    sandbox.ceph("config", "set", "global", "mon_allow_pool_size_one", "true")
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_bench(app, pilot)
            await start_run(app, pilot, "b", {"seconds": "60", "op_size": "64K", "op_timeout": "5"}, {"temp": "yes"})
            r, killed = await crash_mid_run(pilot, pane, sandbox, "ops completing in the temporary pool",
                                            "the run to end after the OSD died")
            assert r is not None and r.status == "error" and r.ops > 0 and r.failed_ops > 0
            # what timed out and which OSD: the op timeout, the down OSD, where the ops were waiting
            assert r.error is not None and "no reply within 5 s" in r.error, r.error
            assert "down and in: osd.1" in r.error, r.error
            assert "timed out were waiting on PG" in r.error and "with no OSD acting" in r.error, r.error
            assert time.monotonic() - killed < 45  # ended by the op timeout, not by the 60 s duration
            status = flat(app, "#bench-status")
            assert status.startswith("idle") and "✖ an op got no reply within 5 s" in status, status
            assert "osd.1" in status
            assert cells(app, "#bench-history", 9) == ["error"]
            assert flat(app, "#bench-summary").startswith("error write at")
            # the objects went with the pool: no `rados cleanup` to run on a pool that is gone
            assert r.cleanup_note == f"the temporary pool {r.params.pool} was deleted with its objects"
            await still_answers(app, pilot, pane)
        saved = [json.loads(line) for line in own_history.read_text().splitlines()]
        assert len(saved) == 1 and saved[0]["status"] == "error" and saved[0]["ops"] == r.ops
        assert saved[0]["error"] == r.error
        assert pool_names(sandbox) == before
    finally:
        sandbox.revive("osd.1")
        sandbox.ceph("config", "rm", "global", "mon_allow_pool_size_one")
        sandbox.heal()


async def test_osd_crash_during_a_replicated_write_run_completes_and_cleans_up(
        make_app: Any, sandbox: Sandbox, own_history: Path) -> None:
    """Size 3, min_size 2: the PGs re-peer on the two OSDs left and the run goes on to its end."""
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_bench(app, pilot)
            await start_run(app, pilot, "b", {"seconds": "8", "op_size": "64K", "op_timeout": "30"})
            r, _ = await crash_mid_run(pilot, pane, sandbox, "ops completing", "the end of the run")
            assert r is not None and r.ok and not r.stopped and r.failed_ops == 0, r.error
            assert r.total_time_run >= 8 and len(r.samples) >= 8
            last = r.samples[-1]  # as in rados bench, the ops in flight at the last second complete after it
            assert last.finished + last.in_flight == r.ops  # every op counted once, in the samples and the total
            assert r.cleanup_note == f"cleanup removed {r.ops} objects"
            status = flat(app, "#bench-status")
            assert "done" in status and r.cleanup_note in status, status
            stall = r.longest_stall  # a stall, when the re-peering took seconds, is said out loud
            if stall is not None and stall[1] >= STALL_NOTABLE:
                assert f"stalled {stall[1]} s" in status and f"stalled {stall[1]} s" in flat(app, "#bench-summary")
            assert cells(app, "#bench-history", 9) == ["done"]
            await still_answers(app, pilot, pane)
        assert bench_objects(sandbox, "rbd") == []
        saved = [json.loads(line) for line in own_history.read_text().splitlines()]
        assert [s["status"] for s in saved] == ["done"] and saved[0]["ops"] == r.ops
    finally:
        sandbox.revive("osd.1")
        sandbox.heal()


async def test_osd_crash_during_a_rand_read_names_the_osd(make_app: Any, sandbox: Sandbox,
                                                            own_history: Path) -> None:
    """min_size = size: with one OSD gone the pool's PGs stop serving reads; the read ends with the reason."""
    sandbox.ceph("osd", "pool", "create", "ctreads", "8")
    try:
        sandbox.ceph("osd", "pool", "application", "enable", "ctreads", "rbd")
        sandbox.ceph("osd", "pool", "set", "ctreads", "min_size", "3")
        written = run_bench(ConnectionSpec(conffile=str(sandbox.conf)),
                            BenchParams(pool="ctreads", seconds=2, op_size=64 << 10, cleanup=False))
        assert written.ok and written.ops > 10
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_bench(app, pilot, "ctreads")
            await start_run(app, pilot, "b", {"seconds": "60", "op_timeout": "5"}, {"pool": "ctreads", "mode": "rand"})
            r, _ = await crash_mid_run(pilot, pane, sandbox, "reads completing", "the read to end after the OSD died")
            assert r is not None and r.params.mode == "rand" and r.status == "error" and r.ops > 0
            assert r.error is not None and "no reply within 5 s" in r.error and "osd.1" in r.error, r.error
            assert "fewer OSDs acting than the pool's min_size 3" in r.error, r.error
            assert r.cleanup_note is None  # a read removes nothing
            assert "✖ an op got no reply within 5 s" in flat(app, "#bench-status")
            assert cells(app, "#bench-history", 9) == ["error"]
            await still_answers(app, pilot, pane)
        saved = [json.loads(line) for line in own_history.read_text().splitlines()]
        assert [(s["mode"], s["status"]) for s in saved] == [("rand", "error")]
    finally:
        sandbox.revive("osd.1")
        sandbox.ceph("osd", "pool", "delete", "ctreads", "ctreads", "--yes-i-really-really-mean-it")
        sandbox.heal()


async def test_osd_crash_during_its_per_osd_bench_is_reported_and_the_sweep_goes_on(
        make_app: Any, sandbox: Sandbox) -> None:
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_bench(app, pilot)
            await open_screen(pilot, "o", FormScreen)
            await fill(app, pilot, {"osds": "1,2", "total": "2G", "block": "4M"})
            # osd.1 hangs before its bench is sent, so it cannot finish before the crash (2 GiB take 2 s here).
            freeze(sandbox, "osd.1")
            await submit_and_run(app, pilot)
            await wait_for(pilot, lambda: "benching osd.1" in pane.osd_table.progress, 20, "osd.1's bench to start")
            crash(sandbox, "osd.1")
            await wait_for(pilot, lambda: pane.osd_table.runner is None and not pane.osd_table.progress, 120,
                           "the end of the sweep")
            by_osd = {r.osd: r for r in pane.osd_table.results}
            assert sorted(by_osd) == [1, 2]
            assert by_osd[1].error == "osd.1 went down during its bench (no result)"
            assert by_osd[2].ok and by_osd[2].bytes_written == 2 << 30  # the sweep went on to the next OSD
            assert cells(app, "#bench-osds", 1) == ["osd.2", "osd.1"]  # failures last
            assert cells(app, "#bench-osds", 0) == ["1", "-"]
            assert cells(app, "#bench-osds", 6)[1] == "osd.1 went down during its bench (no result)"
            assert "per-OSD bench: 2 OSD(s), 1 failed" in flat(app, "#bench-status")
            await still_answers(app, pilot, pane)
    finally:
        sandbox.revive("osd.1")
        sandbox.heal()
