"""Quitting while this cephtui drives a removal, and the queue's PGs left (Pilot, on the session's sandbox).

The removal here is one resumed at `wait_safe` whose drain never ran: osd.1 keeps its PGs, so the workflow
polls (reads only: osd df, pg dump, safe-to-destroy) and never reaches the stop, whose command is
/bin/false anyway. That is a removal really running, driven by this cephtui, that changes nothing.

- `q` asks ("osd.1's removal is running, driven by this cephtui"): stay keeps it running; quit and pause
  leaves it paused in the cluster's queue (config-key, read back with the real CLI). ctrl+q does not ask,
  and pauses it too. SIGTERM and SIGHUP of the real app on a pty: tests/cluster/test_removal_signals.py.
- the queue's PGs left is the live count (the number the header shows, osd df's PGs on osd.1), and a
  finished removal shows "—", not the count it last saved.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.workflows.removal import KIND, Removal
from cephtui.ceph.workflows.store import PREFIX, WorkflowStore
from cephtui.ui.app import CephTUI
from cephtui.ui.screens.removal import RemovalScreen, ResumeScreen
from cephtui.ui.screens.removal_queue import RemovalQueueScreen
from cephtui.ui.screens.removal_quit import QuitRemovalScreen
from tests.conftest import Sandbox
from tests.ui.helpers import click, plain, text_of, wait_for, wait_screen

SIZE = (140, 40)


@pytest.fixture
def clients(sandbox: Sandbox) -> Iterator[list[CephClient]]:
    made: list[CephClient] = []
    yield made
    for c in made:
        c.close()
    for key in sandbox.ceph("config-key", "dump", f"{PREFIX}/{KIND}/") or {}:
        sandbox.ceph("config-key", "rm", key)


def left_at_wait_safe(sandbox: Sandbox, tmp_path: Path, client: CephClient, osd: int = 1) -> Removal:
    """A removal of `osd` paused at wait_safe, its drain never run, saved in the cluster's queue."""
    epoch = sandbox.ceph("osd", "dump")["epoch"]
    r = Removal(osds=[osd], status="paused", step="wait_safe", drain_epoch=epoch, stop_template="/bin/false {id}",
                waiting_for="not yet safe to destroy")
    WorkflowStore(tmp_path / "earlier", client).save(KIND, r.id, r.to_json())
    return r


def stored(sandbox: Sandbox, wf_id: str) -> dict[str, Any]:
    """The workflow as the cluster's queue holds it, read with the real CLI."""
    return sandbox.ceph("config-key", "get", f"{PREFIX}/{KIND}/{wf_id}")  # type: ignore[no-any-return]


def app_on(client: CephClient, tmp_path: Path) -> CephTUI:
    return CephTUI(client=client, refresh=1.0, workflow_store=WorkflowStore(tmp_path / "me", client))


async def resume_offered(app: CephTUI, pilot: Any, wf_id: str) -> Any:
    """Resume the workflow offered at start; back on the main screen once it runs here."""
    await wait_screen(pilot, ResumeScreen, 20, "the resume offer")
    await click(pilot, "#resume-go")
    engines = app.removals.engines
    await wait_for(pilot, lambda: wf_id in engines and engines[wf_id].state.status == "running", 10,
                   "the removal running here")
    await wait_screen(pilot, RemovalScreen)
    await pilot.press("escape")
    await wait_for(pilot, lambda: len(app.screen_stack) == 1, 5, "the main screen")
    return app.removals.engines[wf_id]


def osd_df_pgs(sandbox: Sandbox, osd: int) -> int:
    return next(n["pgs"] for n in sandbox.ceph("osd", "df")["nodes"] if n["id"] == osd)


async def test_q_asks_stay_keeps_it_quit_pauses_it_and_pgs_left_is_live(
        sandbox: Sandbox, tmp_path: Path, clients: list[CephClient]) -> None:
    for _ in range(2):
        clients.append(CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=5)).connect())
    r = left_at_wait_safe(sandbox, tmp_path, clients[0])
    old = Removal(osds=[2], replace=True, status="done", step="done", progress={"pgs_on_osds": 18})
    WorkflowStore(tmp_path / "earlier", clients[0]).save(KIND, old.id, old.to_json())  # a finished one
    app = app_on(clients[1], tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        engine = await resume_offered(app, pilot, r.id)
        live = osd_df_pgs(sandbox, 1)
        assert live > 0
        await wait_for(pilot, lambda: engine.state.progress.get("pgs_on_osds") == live, 20, "osd.1's PGs counted")

        # The queue: PGs left is the live count, the header's number; the finished one shows "—".
        await pilot.press("3", "P")
        await wait_screen(pilot, RemovalQueueScreen)
        table = app.screen.query_one("#rq-table", DataTable)

        def column(col: int) -> dict[str, str]:
            rows = [table.get_row_at(i) for i in range(table.row_count)]
            return {str(row[0]): plain(row[col]).strip() for row in rows}

        await wait_for(pilot, lambda: column(5) == {r.id: str(live), old.id: "—"}, 10, "PGs left per row")
        header = f"removing osd.1: running (wait_safe, {live} PGs left)"
        await wait_for(pilot, lambda: app.statusbar.removals[0] == header, 5, "the header's count")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1, 5, "the main screen")
        assert header in text_of(app, "#statusbar")  # as drawn

        # q asks; stay (escape) keeps it running and cephtui open.
        await pilot.press("q")
        dialog = await wait_screen(pilot, QuitRemovalScreen)
        assert "osd.1's removal is running, driven by this cephtui." in text_of(app, "#quit-question")
        assert dialog.FOCUS == "quit-stay"  # enter stays
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1, 5, "back on the main screen")
        assert app.return_code is None and engine.state.status == "running"

        # q, then quit and pause: paused in the cluster's queue before cephtui ends.
        await pilot.press("q")
        await wait_screen(pilot, QuitRemovalScreen)
        await click(pilot, "#quit-pause")
        await wait_for(pilot, lambda: app.return_code is not None, 20, "cephtui ending")
    back = stored(sandbox, r.id)
    assert back["status"] == "paused" and back["step"] == "wait_safe", back
    assert any(e["text"].startswith("paused: cephtui quit (") for e in back["log"]), back["log"][-3:]
    assert json.loads(json.dumps(stored(sandbox, old.id)))["status"] == "done"  # untouched


async def test_ctrl_q_does_not_ask_and_pauses(sandbox: Sandbox, tmp_path: Path,
                                              clients: list[CephClient]) -> None:
    for _ in range(2):
        clients.append(CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=5)).connect())
    r = left_at_wait_safe(sandbox, tmp_path, clients[0])
    app = app_on(clients[1], tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await resume_offered(app, pilot, r.id)
        await wait_for(pilot, lambda: stored(sandbox, r.id)["status"] == "running", 20, "running in the queue",
                       interval=0.5)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.return_code is not None, 20, "cephtui ending")
        assert not isinstance(app.screen, QuitRemovalScreen)
    back = stored(sandbox, r.id)
    assert back["status"] == "paused", back
    assert any(e["text"].startswith("paused: cephtui quit (") for e in back["log"]), back["log"][-3:]
