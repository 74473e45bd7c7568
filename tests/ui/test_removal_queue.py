"""A removal a colleague left paused, read from the cluster's queue by a cephtui with an empty cache:
offered at start, shown in the header, listed by P on the OSDs tab, opened with enter; a new removal on
the same OSD is refused. Nothing here runs a step: the workflow stays paused."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Button, DataTable, Input

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.workflows.removal import KIND, Removal
from cephtui.ceph.workflows.store import PREFIX, WorkflowStore
from cephtui.ui.app import CephTUI
from cephtui.ui.screens.removal import RemovalScreen, ResumeScreen
from cephtui.ui.screens.removal_queue import RemovalQueueScreen
from tests.conftest import Sandbox
from tests.ui.helpers import plain, text_of, wait_for


def cells(app: CephTUI, column: int) -> list[str]:
    table = app.screen.query_one("#rq-table", DataTable)
    return [plain(table.get_row_at(i)[column]).strip() for i in range(table.row_count)]


@pytest.fixture
def clients(sandbox: Sandbox) -> Iterator[list[CephClient]]:
    made: list[CephClient] = []
    yield made
    for c in made:
        c.close()
    for key in sandbox.ceph("config-key", "dump", f"{PREFIX}/{KIND}/") or {}:
        sandbox.ceph("config-key", "rm", key)


async def test_colleagues_paused_removal_in_header_queue_and_refused_twice(sandbox: Sandbox, tmp_path: Path,
                                                                         clients: list[CephClient]) -> None:
    for _ in range(2):
        clients.append(CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=5)).connect())
    theirs = Removal(osds=[1], status="paused", step="wait_safe", waiting_for="not yet safe to destroy",
                     stop_template="sudo systemctl stop ceph-osd@{id}")
    WorkflowStore(tmp_path / "colleague", clients[0]).save(KIND, theirs.id, theirs.to_json())

    app = CephTUI(client=clients[1], refresh=1.0, workflow_store=WorkflowStore(tmp_path / "me", clients[1]))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen), 15, "the resume offer")
        await pilot.press("escape")  # later: it stays paused
        await wait_for(pilot, lambda: not isinstance(app.screen, ResumeScreen), 5, "the offer closed")
        assert app.removals.engines[theirs.id].state.status == "paused"
        await wait_for(pilot, lambda: app.statusbar.removals == ("removing osd.1: paused (wait_safe)", "warn"), 5,
                       "the header indicator")
        assert "⇄ removing osd.1: paused (wait_safe)" in text_of(app, "#statusbar")  # what is drawn

        await pilot.press("3", "P")
        await wait_for(pilot, lambda: isinstance(app.screen, RemovalQueueScreen), 5, "the queue")
        await wait_for(pilot, lambda: cells(app, 0) == [theirs.id], 5, "the row")
        assert cells(app, 1) == ["osd.1"] and cells(app, 4) == ["paused"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RemovalScreen), 5, "the workflow's screen")
        assert app.screen.engine.state.id == theirs.id  # type: ignore[attr-defined]
        # p on a paused removal whose stop is still ahead asks for the stop method again, prefilled;
        # cancelling that changes nothing.
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen), 5, "the stop method asked")
        assert app.screen.query_one("#stop-template", Input).value == theirs.stop_template
        assert "Cancel" in str(app.screen.query_one("#resume-later", Button).label)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RemovalScreen), 5, "back on the workflow")
        assert app.removals.engines[theirs.id].state.status == "paused"
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1, 5, "the main screen")

        # Another removal on osd.1 is refused by the cluster's queue; nothing of it is stored.
        app.removals.start(Removal(osds=[1, 2]))
        await wait_for(pilot, lambda: any("already in workflow " + theirs.id in str(n.message)
                                          for n in app._notifications), 5, "the refusal")
        assert list(app.removals.engines) == [theirs.id] and len(app.screen_stack) == 1
    stored = sandbox.ceph("config-key", "dump", f"{PREFIX}/{KIND}/")
    assert list(stored) == [f"{PREFIX}/{KIND}/{theirs.id}"]
    assert json.loads(stored[f"{PREFIX}/{KIND}/{theirs.id}"])["status"] == "paused"
