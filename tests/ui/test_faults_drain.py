"""An OSD dies while the guided replacement drains another one (Pilot, on the session's sandbox).

Three OSDs: the pools go to two copies for the module, so one OSD can really drain onto the other
two (as in test_removal.py), and backfill is slowed down so that the drain is still running when
the fault is injected. Replace mode keeps the OSD id: the test puts a fresh OSD back with the
sandbox's `recreate` (what ceph-volume would do), so the cluster ends as it began.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.ui.app import CephTUI
from tests.conftest import Sandbox, wait_until
from tests.ui.helpers import SIZE, app_factory, text_of, wait_for
from tests.ui.test_removal import at_size_two, start_wizard, stop_cmd


def osd(sandbox: Sandbox, i: int) -> dict[str, Any]:
    return next(o for o in sandbox.ceph("osd", "dump")["osds"] if o["osd"] == i)


@pytest.fixture
def make(sandbox: Sandbox, tmp_path: Path) -> Iterator[Any]:
    store = WorkflowStore(tmp_path)  # this test's own: an unfinished removal must not greet other tests
    with app_factory(sandbox.conf, op_timeout=10, osd_stop_cmd=stop_cmd(sandbox), workflow_store=store) as factory:
        yield factory


async def finish_replacement(sandbox: Sandbox, pilot: Any, engine: Any, target: int) -> None:
    """Destroyed (id kept), then the new disk, then backfill to active+clean."""
    await wait_for(pilot, lambda: "ceph-volume" in engine.state.waiting_for or engine.state.status != "running",
                   240, "the destroy, then the request for a new disk")
    assert engine.state.status == "running", engine.state.waiting_for
    assert "destroyed" in osd(sandbox, target)["state"]
    sandbox.tool("recreate", str(sandbox.dir), f"osd.{target}")
    await wait_for(pilot, lambda: engine.state.status in ("done", "failed", "blocked"), 240, "backfill to active+clean")
    assert engine.state.status == "done", engine.state.waiting_for


async def drain_under_way(sandbox: Sandbox, app: CephTUI, pilot: Any, target: int) -> Any:
    """The replacement of `target` started, its drain running: the workflow's engine."""
    # Two copies, min_size 2: Ceph's ok-to-stop says no by fresh stats; the drain moves the data first.
    wait_until(lambda: at_size_two(sandbox), 90, "PG stats showing two copies")
    engine = await start_wizard(app, pilot, target, mode="replace", overrides=("ok-to-stop",))
    try:
        await wait_for(pilot, lambda: engine.state.step == "wait_safe"
                       and "waiting before the stop" in engine.state.waiting_for, 90, "the drain under way")
    except AssertionError as e:  # where the workflow stood instead, to tell a slow cluster from a wrong step
        s = engine.state
        raise AssertionError(f"{e}: step {s.step!r}, status {s.status!r}, waiting for {s.waiting_for!r}, "
                             f"log {[x['text'] for x in s.log[-5:]]}") from None
    return engine


async def test_another_osd_dies_during_the_drain(sandbox: Sandbox, slow_two_copies: Sandbox, make) -> None:
    target, other = 1, 2
    app = make()
    try:
        async with app.run_test(size=SIZE) as pilot:
            engine = await drain_under_way(sandbox, app, pilot, target)
            sandbox.kill(f"osd.{other}")
            await wait_for(pilot, lambda: engine.state.waiting_for.startswith("HOLDING"), 60, "the hold")
            s = engine.state
            assert f"osd.{other} went down (not part of this removal)" in s.waiting_for
            assert "safe-to-destroy says:" in s.waiting_for and "continues by itself" in s.waiting_for
            assert s.held_by == [other] and s.status == "running"
            await wait_for(pilot, lambda: text_of(app, "#rm-status").startswith("HOLDING"), 10,
                           "HOLDING in the removal screen's Now box")
            now = text_of(app, "#rm-status")
            print(f"\nRemovalScreen 'Now' box while osd.{other} is down:\n{now}")
            assert now.startswith("HOLDING") and f"osd.{other} went down" in now
            assert any(f"osd.{other} went down" in e["text"] for e in s.log)
            # Backfill at full speed now: whatever safe-to-destroy says, nothing moves on while osd.2 is down.
            sandbox.ceph("config", "rm", "osd", "osd_recovery_sleep")
            polled = s.updated
            await wait_for(pilot, lambda: s.updated > polled + 15, 40, "15 s more of polls")
            assert s.step == "wait_safe" and not s.removed and not s.stopped
            assert osd(sandbox, target)["up"] == 1 and "destroyed" not in osd(sandbox, target)["state"]

            sandbox.revive(f"osd.{other}")  # back: the workflow continues by itself
            await wait_for(pilot, lambda: s.step != "wait_safe", 180, "the workflow going on after the revive")
            assert s.held_by == [] and any(f"osd.{other} is back up" in e["text"] for e in s.log)
            texts = [e["text"] for e in s.log]
            assert next(i for i, t in enumerate(texts) if t.startswith("safe-to-destroy: yes")) > \
                next(i for i, t in enumerate(texts) if "is back up" in t)
            await finish_replacement(sandbox, pilot, engine, target)
    finally:
        sandbox.heal()
    wait_until(lambda: osd(sandbox, target)["up"] and osd(sandbox, target)["in"], 60, f"osd.{target} up and in")


async def test_the_draining_osd_dies(sandbox: Sandbox, slow_two_copies: Sandbox, make) -> None:
    target = 2
    app = make()
    try:
        async with app.run_test(size=SIZE) as pilot:
            engine = await drain_under_way(sandbox, app, pilot, target)
            sandbox.kill(f"osd.{target}")
            s = engine.state
            await wait_for(pilot, lambda: target in s.dead, 60, "the workflow noticing")
            assert any(f"osd.{target} (being removed) went down during the drain" in e["text"] for e in s.log)
            assert not s.held_by and not s.removed
            await wait_for(pilot, lambda: "went down during the drain" in text_of(app, "#rm-log-text"), 10,
                           "the death in the removal screen's log")
            print(f"\nafter osd.{target} died mid-drain: {s.waiting_for}")
            # Its PGs recover from their other copies; nothing is lost, so the replacement goes on.
            sandbox.ceph("config", "rm", "osd", "osd_recovery_sleep")
            await finish_replacement(sandbox, pilot, engine, target)
            clis = [e.get("cli", "") for e in s.log]
            assert f"ceph osd destroy-actual {target} --yes-i-really-mean-it" in clis
    finally:
        sandbox.heal()
