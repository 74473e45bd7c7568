"""Quitting while a run goes on: the run's worker process is stopped and ends, the temporary pool is deleted."""
from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from typing import Any

from cephtui.ceph.bench.params import BenchParams
from cephtui.ceph.bench.pool import temp_pool_name
from cephtui.ceph.bench.remote import RemoteEngine
from cephtui.ui.panes.bench import BenchPane
from tests.cluster.test_bench_worker import gone
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, show_tab, wait_for


def pool_names(sandbox: Sandbox) -> list[str]:
    return [p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")]


async def settle(cond: Callable[[], Any], timeout: float, what: str) -> None:
    """wait_until without blocking the loop: the run's thread still calls into the (exited) app's loop."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f}s waiting for {what}"
        await asyncio.sleep(0.2)


async def test_q_q_during_a_temp_pool_run_stops_the_worker_and_deletes_the_pool(make_app: Any,
                                                                                 sandbox: Sandbox) -> None:
    before = pool_names(sandbox)
    subprocess.run(["ceph", "-c", str(sandbox.conf), "config", "set", "global", "mon_allow_pool_size_one", "true"],
                   check=True, capture_output=True)
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
            await show_tab(pilot, "8", "bench")
            pane = app.pane(BenchPane)
            pane._start(BenchParams(pool=temp_pool_name(), seconds=300, op_size=4096), True)
            await wait_for(pilot, lambda: isinstance(pane.engine, RemoteEngine) and pane.engine.progress().samples,
                           60, "the run's first second")
            assert isinstance(pane.engine, RemoteEngine) and pane.running is not None
            pid, pool = pane.engine.pid, pane.running.pool
            assert pid is not None and not gone(pid) and pool in pool_names(sandbox)
            await pilot.press("q")  # "a benchmark is running: q again stops it and quits"
            await pilot.press("q")
        await settle(lambda: gone(pid), 60, f"the worker {pid} to end")
        await settle(lambda: pool_names(sandbox) == before, 60, f"the temporary pool {pool} to be deleted")
    finally:
        subprocess.run(["ceph", "-c", str(sandbox.conf), "config", "rm", "global", "mon_allow_pool_size_one"],
                       check=True, capture_output=True)
