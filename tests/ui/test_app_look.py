"""The TUI driven through Pilot on a replayed capture (no cluster: these only look): the PG table's filter
against the capture's own `pg stat`, the help and the command palette."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from textual.command import CommandPalette
from textual.widgets import Input, TabbedContent

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.help import HelpScreen
from cephtui.ui.widgets.virtualtable import VirtualTable
from tests.ui.helpers import SIZE, cells, palette_shows, wait_for, wait_screen

LookApp = Callable[..., CephTUI]


async def test_pg_table_filter(look_app: LookApp) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await wait_for(pilot, lambda: app.query_one("#pgs-table", VirtualTable).row_count > 0, 15, "the PG table")
        table = app.query_one("#pgs-table", VirtualTable)
        total = len(app.snapshot.pg_table)
        assert table.row_count == total == app.client.mgr("pg stat")["pg_summary"]["num_pgs"]
        rbd_id = next(p.id for p in app.snapshot.capacity.pools if p.name == "rbd")

        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*f"{rbd_id}.")
        await wait_for(pilot, lambda: table.row_count == 32, 5, "only the rbd pool's 32 PGs")
        assert all(pgid.startswith(f"{rbd_id}.") for pgid in cells(app, "#pgs-table", 0))
        assert "32 of" in str(app.query_one("#pgs-table-box").border_subtitle)

        await pilot.press(*" zzz")
        await wait_for(pilot, lambda: table.row_count == 0, 5, "no rows for a filter that matches nothing")
        await pilot.press("escape")
        await wait_for(pilot, lambda: table.row_count == total, 5, "all rows back after escape")
        # pgids sort numerically, as `ceph pg ls` lists them
        ids = cells(app, "#pgs-table", 0)
        assert ids.index(f"{rbd_id}.a") < ids.index(f"{rbd_id}.10")


async def test_help_and_command_palette(look_app: LookApp) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("ctrl+p")
        await wait_screen(pilot, CommandPalette)
        await pilot.press(*"Go to Bench")
        await wait_for(pilot, lambda: palette_shows(app, "Go to Bench"), 10, "the palette's search done")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette), 5, "the palette closed")
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "bench"


async def test_a_tab_opened_during_the_first_poll_is_filled_at_once(look_app: LookApp) -> None:
    """`3` typed while the first poll runs (asked for the Health tab's needs, no OSD tree): the OSDs tab gets its
    tree from a poll right after, not one refresh interval later (an hour here; 5 s by default)."""
    app = look_app()
    gate = threading.Event()
    answer = app.client.raw

    def held(target: str, prefix: str, args: dict[str, Any]) -> bytes:
        gate.wait(30)  # the first poll waits here until the tab is switched
        return answer(target, prefix, args)

    app.client.raw = held  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.poller.polling, 10, "the first poll under way")
        await pilot.press("3")
        await wait_for(pilot, lambda: app.tabs.active == "osds", 5, "the OSDs tab")
        assert app.snapshot is None
        gate.set()
        await wait_for(pilot, lambda: app.pane(OSDsPane).vtable.row_count > 0, 15, "the OSD tree, without a refresh")
