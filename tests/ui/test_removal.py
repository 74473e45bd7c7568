"""Guided OSD removal and replacement through Pilot on a real 4-OSD cluster.

One sandbox with four OSDs for the module (the session's has three). The tests
run in order: a refusal while safe-to-destroy says no, a replacement, a removal
that keeps every object, and a removal interrupted by quitting cephtui.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Select

from cephtui.ceph.client import CephClient, ConnectionSpec
from cephtui.ceph.workflows.removal import RemovalEngine
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.ui.app import CephTUI
from cephtui.ui.screens.removal import PlanScreen, RemovalScreen, ResumeScreen
from cephtui.ui.wizards.form import FormScreen
from tests.conftest import SANDBOX_PY, Sandbox, wait_until
from tests.ui.helpers import SIZE, wait_for

POOL = "ctr-data"


@pytest.fixture(scope="module")
def box() -> Iterator[Sandbox]:
    reuse = os.environ.get("CEPHTUI_SANDBOX4")
    d = Path(reuse) if reuse else Path(tempfile.mkdtemp(prefix="ctt4-", dir="/tmp"))
    b = Sandbox(d, d / "ceph.conf")
    b.tool("start", str(d), "--osds", "4")
    try:
        yield b
    finally:
        if not reuse:
            b.tool("stop", str(d), "--purge")


@pytest.fixture(scope="module")
def checksums(box: Sandbox) -> dict[str, str]:
    """A size-2 pool with objects of known content."""
    import rados

    if POOL not in [p["pool_name"] for p in box.ceph("osd", "pool", "ls", "detail")]:
        box.ceph("osd", "pool", "create", POOL, "16")
        box.ceph("osd", "pool", "set", POOL, "size", "2")
        box.ceph("osd", "pool", "application", "enable", POOL, "rbd")
    sums = {}
    r = rados.Rados(conffile=str(box.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    try:
        with r.open_ioctx(POOL) as io:
            for i in range(40):
                data = os.urandom(128 * 1024)
                io.write_full(f"obj-{i}", data)
                sums[f"obj-{i}"] = hashlib.sha256(data).hexdigest()
    finally:
        r.shutdown()
    box.heal()
    return sums


def read_back(box: Sandbox) -> dict[str, str]:
    import rados

    r = rados.Rados(conffile=str(box.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    try:
        with r.open_ioctx(POOL) as io:
            return {name: hashlib.sha256(io.read(name, 1024 * 1024)).hexdigest()
                    for name in (f"obj-{i}" for i in range(40))}
    finally:
        r.shutdown()


def osd_ids(box: Sandbox) -> list[int]:
    return sorted(n["id"] for n in box.ceph("osd", "tree")["nodes"] if n["id"] >= 0)


def all_clean(box: Sandbox) -> bool:
    st = box.ceph("status")["pgmap"]
    return all(s["state_name"] == "active+clean" for s in st["pgs_by_state"])


def stop_cmd(box: Sandbox) -> str:
    return f"/usr/bin/python3 {SANDBOX_PY} kill {box.dir} osd.{{id}}"


@pytest.fixture
def store(tmp_path: Path) -> WorkflowStore:
    """Each test's own workflow state (shared by the apps within it): a removal left unfinished by a
    failed test must not greet the next test's app with a resume offer."""
    return WorkflowStore(tmp_path)


@pytest.fixture
def make(box: Sandbox, store: WorkflowStore) -> Iterator[Callable[[], CephTUI]]:
    clients: list[CephClient] = []

    def _make() -> CephTUI:
        client = CephClient(ConnectionSpec(conffile=str(box.conf), op_timeout=10)).connect()
        clients.append(client)
        return CephTUI(client=client, refresh=1.0, osd_stop_cmd=stop_cmd(box), workflow_store=store)

    yield _make
    for c in clients:
        c.close()


def pools_at_size_two(box: Sandbox) -> None:
    """The mgr creates device_health_metrics (size 3) on its own schedule: bring every pool to 2 copies."""
    for p in box.ceph("osd", "pool", "ls", "detail"):
        if p["size"] > 2:
            box.ceph("osd", "pool", "set", p["pool_name"], "size", "2")


async def start_wizard(app: CephTUI, pilot: Pilot, osd: int, mode: str = "remove") -> RemovalEngine:
    await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
    await pilot.press("3")
    await wait_for(pilot, lambda: any(r.is_osd and r.node.id == osd for r in app.osds_pane.vtable.rows), 15,
                   f"osd.{osd} in the tree")
    rows = app.osds_pane.vtable.rows
    await pilot.press("home", *["down"] * next(i for i, r in enumerate(rows) if r.is_osd and r.node.id == osd))
    await pilot.press("X")
    form = app.screen
    assert isinstance(form, FormScreen)
    form.query_one("#field-mode", Select).value = mode
    await pilot.pause(0.1)
    await pilot.click("#form-ok")
    await pilot.pause(0.2)
    plan = app.screen
    assert isinstance(plan, PlanScreen)
    await pilot.press(*"osd.x", "enter")  # a wrong name starts nothing
    assert isinstance(app.screen, PlanScreen) and not app.removals
    await pilot.press("ctrl+u", *f"osd.{osd}", "enter")
    await pilot.pause(0.2)
    assert isinstance(app.screen, RemovalScreen)
    return app.screen.engine


async def test_refuses_while_safe_to_destroy_says_no(box: Sandbox, checksums: dict[str, str], make) -> None:
    """A size-1 pool whose only copy sits on a dead OSD: the wizard waits, says why, and destroys nothing."""
    box.ceph("config", "set", "global", "mon_allow_pool_size_one", "true")
    box.ceph("osd", "pool", "create", "ctr-one", "8")
    box.ceph("osd", "pool", "set", "ctr-one", "size", "1", "--yes-i-really-mean-it")
    box.ceph("osd", "pool", "application", "enable", "ctr-one", "rbd")
    pool_id = next(p["pool_id"] for p in box.ceph("osd", "pool", "ls", "detail") if p["pool_name"] == "ctr-one")
    victim = box.ceph("pg", "map", f"{pool_id}.0")["acting"][0]
    import rados

    wait_until(lambda: all_clean(box), 60, "the new pool's PGs created")
    r = rados.Rados(conffile=str(box.conf), conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    r.connect(timeout=10)
    with r.open_ioctx("ctr-one") as io:
        for i in range(16):
            io.write_full(f"o{i}", b"x" * 4096)
    r.shutdown()
    box.kill(f"osd.{victim}")
    wait_until(lambda: not next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == victim)["up"], 60,
               f"osd.{victim} down")
    # The other pools' PGs re-peer for a moment after an OSD dies; preflight waits for that by itself.
    app = make()
    try:
        async with app.run_test(size=SIZE) as pilot:
            engine = await start_wizard(app, pilot, victim)
            await wait_for(pilot, lambda: engine.state.step == "wait_safe" and "only copy" in engine.state.waiting_for,
                           90, "the refusal with its reason")
            s = engine.state
            assert "not yet safe to destroy" in s.waiting_for and "would lose" in s.waiting_for
            assert any(c["name"] == "pgs" and c["level"] == "warn" for c in s.checks)
            await pilot.pause(3)  # and it keeps waiting: nothing irreversible happens
            assert s.step == "wait_safe" and not s.removed
            assert victim in osd_ids(box)
            assert "destroyed" not in next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == victim)["state"]
            await pilot.press("a", "a")  # abort (twice: confirm); marks the OSD back in
            await wait_for(pilot, lambda: s.status == "aborted", 20, "the abort")
            assert next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == victim)["in"] == 1
    finally:
        box.revive(f"osd.{victim}")
        box.ceph("osd", "in", str(victim))
        box.ceph("osd", "pool", "delete", "ctr-one", "ctr-one", "--yes-i-really-really-mean-it")
        box.heal()


async def test_replace_keeps_the_id_and_follows_backfill(box: Sandbox, checksums: dict[str, str], make) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        engine = await start_wizard(app, pilot, 2, mode="replace")
        await wait_for(pilot, lambda: "ceph-volume" in engine.state.waiting_for or engine.state.status == "failed",
                       240, "the destroy, then the request for a new disk")
        assert engine.state.status == "running", engine.state.waiting_for
        osd2 = next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == 2)
        assert "destroyed" in osd2["state"] and 2 in osd_ids(box)  # id and CRUSH position kept
        assert "ceph-volume lvm create --osd-id 2" in engine.state.waiting_for
        box.tool("recreate", str(box.dir), "osd.2")  # the new disk, as ceph-volume would make it
        await wait_for(pilot, lambda: engine.state.status in ("done", "failed"), 240, "backfill to active+clean")
        assert engine.state.status == "done", engine.state.waiting_for
    osd2 = next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == 2)
    assert osd2["up"] == 1 and osd2["in"] == 1 and "destroyed" not in osd2["state"]
    assert all_clean(box) and read_back(box) == checksums


async def test_remove_an_osd_and_every_object_survives(box: Sandbox, checksums: dict[str, str], make) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        engine = await start_wizard(app, pilot, 3)
        await wait_for(pilot, lambda: engine.state.status in ("done", "failed", "blocked"), 240, "the removal")
        assert engine.state.status == "done", engine.state.waiting_for
        clis = [e.get("cli", "") for e in engine.state.log]
        assert "ceph osd out 3" in clis and "ceph osd purge-actual 3 --yes-i-really-mean-it" in clis
        # safe-to-destroy said yes before the stop and the purge
        steps = [e["text"] for e in engine.state.log]
        assert steps.index("safe-to-destroy: yes") < next(i for i, c in enumerate(clis) if "purge-actual" in c)
    box.tool("forget", str(box.dir), "osd.3")
    assert 3 not in osd_ids(box)
    wait_until(lambda: all_clean(box), 120, "every PG active+clean")
    assert read_back(box) == checksums


async def test_quit_mid_drain_then_resume(box: Sandbox, checksums: dict[str, str], make) -> None:
    # Two OSDs would remain: with a size-3 pool the wizard refuses in preflight and says why.
    box.ceph("osd", "pool", "create", "ctr-three", "8")
    box.ceph("osd", "pool", "set", "ctr-three", "size", "3")
    try:
        app = make()
        async with app.run_test(size=SIZE) as pilot:
            engine = await start_wizard(app, pilot, 1)
            await wait_for(pilot, lambda: engine.state.status == "blocked", 30, "the preflight blocker")
            check = next(c for c in engine.state.checks if c["name"] == "pool sizes")
            assert check["level"] == "block" and "ctr-three (size 3)" in check["detail"]
            assert next(o for o in box.ceph("osd", "dump")["osds"] if o["osd"] == 1)["in"] == 1  # untouched
            await pilot.press("a", "a")
            await wait_for(pilot, lambda: engine.state.status == "aborted", 20, "the abort")
    finally:
        box.ceph("osd", "pool", "delete", "ctr-three", "ctr-three", "--yes-i-really-really-mean-it")
    pools_at_size_two(box)
    wait_until(lambda: all_clean(box), 60, "pools at size 2")
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        engine = await start_wizard(app, pilot, 1)
        await wait_for(pilot, lambda: engine.state.step in ("wait_safe", "stop"), 60, "the drain under way")
        wf_id = engine.state.id
    # cephtui is gone; the state file says where it stopped. A new cephtui offers to resume.
    app2 = make()
    async with app2.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app2.screen, ResumeScreen), 15, "the resume offer")
        assert app2.screen.removal.id == wf_id
        await pilot.click("#resume-go")
        await pilot.pause(0.2)
        engine2 = app2.removals[wf_id]
        await wait_for(pilot, lambda: engine2.state.status in ("done", "failed"), 240, "the resumed removal")
        assert engine2.state.status == "done", engine2.state.waiting_for
        assert engine2.state.started == engine.state.started  # the same workflow, continued
    box.tool("forget", str(box.dir), "osd.1")
    assert 1 not in osd_ids(box)
    wait_until(lambda: all_clean(box), 120, "every PG active+clean")
    assert read_back(box) == checksums
