"""Moving around as in k9s and less, on a replayed capture (no cluster: moving only looks): `:` jump, `/`
search, `n`/`N`, `g`/`G`, `q`, `?`, the palette reaching every tab's actions, and the mouse."""
from __future__ import annotations

import time
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import Input, Markdown

from cephtui.ui.app import TABS, CephTUI, pane_bindings
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.panes.pools import PoolsPane
from cephtui.ui.panes.users import UsersPane
from cephtui.ui.screens.help import HelpScreen
from cephtui.ui.screens.wizards.pool import PoolWizard
from cephtui.ui.widgets.virtualtable import VirtualTable
from tests.ui.helpers import SIZE, cells, click, palette_shows, wait_for


def cursor_name(app: CephTUI, selector: str, column: int = 0) -> str:
    table = app.query_one(selector)
    index = table.cursor if isinstance(table, VirtualTable) else table.cursor_row
    return cells(app, selector, column)[index].split()[-1]


async def jump(pilot: Any, text: str) -> None:
    app = pilot.app
    await pilot.press("colon")
    await wait_for(pilot, lambda: app.prompt.is_open and app.focused is app.prompt.input, 5, "the : prompt")
    await pilot.press(*text, "enter")
    await wait_for(pilot, lambda: not app.prompt.is_open, 5, f"the jump to {text}")
    await pilot.pause()  # what the jump posted is handled


async def test_jump_search_and_match_keys(look_app: Any) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a snapshot")
        # :osd.2 -> the OSDs tab, cursor on osd.2 (its data arrives after the tab is shown)
        await jump(pilot, "osd.2")
        assert app.tabs.active == "osds"
        await wait_for(pilot, lambda: app.pane(OSDsPane).vtable.row_count
                       and cursor_name(app, "#osds-table") == "osd.2",
                       10, "the cursor on osd.2")
        # g / G: first and last row
        await pilot.press("g")
        assert app.pane(OSDsPane).vtable.cursor == 0
        await pilot.press("G")
        assert app.pane(OSDsPane).vtable.cursor == app.pane(OSDsPane).vtable.row_count - 1
        # A filter keeps the buckets around the OSDs it matches; n / N step over OSDs only, wrapping.
        await pilot.press("slash", *"up", "enter")
        await wait_for(pilot, lambda: "3 of 3" in str(app.query_one("#osds-box").border_subtitle), 5, "the filter")
        await pilot.press("g", "n")
        assert cursor_name(app, "#osds-table") == "osd.0"
        await pilot.press("n", "n")
        assert cursor_name(app, "#osds-table") == "osd.2"
        await pilot.press("n")  # wraps to the first OSD, past the root and host rows
        assert cursor_name(app, "#osds-table") == "osd.0"
        await pilot.press("N")
        assert cursor_name(app, "#osds-table") == "osd.2"
        # :rbd -> Pools, cursor on rbd; `/` on a tab without a filter searches its rows (the capture's other
        # pool is the VM pool scripts/capture_look.py made).
        pools = [p["pool_name"] for p in app.client.mon("osd pool ls", detail="detail")]
        other = next(p for p in pools if p != "rbd")
        await jump(pilot, "rbd")
        assert app.tabs.active == "pools"
        await wait_for(pilot, lambda: app.pane(PoolsPane).table.row_count >= 2 and cursor_name(app, "#pools-table", 1)
                       == "rbd", 10, "the cursor on rbd")
        await pilot.press("slash", *other, "enter")
        await wait_for(pilot, lambda: cursor_name(app, "#pools-table", 1) == other, 5, f"the cursor on {other}")
        await pilot.press("n")  # the only match: stays, and says it wrapped
        assert cursor_name(app, "#pools-table", 1) == other
        app.clear_notifications()
        await pilot.press("slash", *"no-such-pool", "enter", "n")
        await wait_for(pilot, lambda: app._notifications, 5, "what n says")
        assert any("Pattern not found" in n.message for n in app._notifications)
        # :client.admin -> Users, cursor on it; a PG id -> the PG table filtered to it.
        await jump(pilot, "client.admin")
        assert app.tabs.active == "users"
        await wait_for(pilot, lambda: app.pane(UsersPane).vtable.row_count and cursor_name(app, "#users-table")
                       .startswith("client.admin") or "client.admin" in cells(app, "#users-table", 0)[
                           app.pane(UsersPane).vtable.cursor], 10, "the cursor on client.admin")
        # rbd's last PG: pool 1 on Pacific, 2 where the mgr made .mgr first (Quincy and later)
        rbd_id = next(p["pool_id"] for p in app.client.mon("osd pool ls", detail="detail") if p["pool_name"] == "rbd")
        pgid = f"{rbd_id}.1f"
        await jump(pilot, pgid)
        assert app.tabs.active == "pgs"
        await wait_for(pilot, lambda: cells(app, "#pgs-table", 0) == [pgid], 15, f"the PG table filtered to {pgid}")
        # An unknown word goes to the OSD filter and says so; a typo'd tab name is not silently ignored.
        app.clear_notifications()
        await jump(pilot, "nosuchhost")
        assert app.tabs.active == "osds" and any("nosuchhost" in n.message for n in app._notifications)
        await wait_for(pilot, lambda: "0 of 3" in str(app.query_one("#osds-box").border_subtitle), 5, "no OSDs")


async def test_q_closes_then_quits_and_help_shows_the_tab_keys(look_app: Any) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one(Markdown).source
        # every key of the OSDs tab, from its bindings, and none of the Pools tab's
        for binding in pane_bindings(app.pane(OSDsPane)):
            assert f"`{app.get_key_display(binding)}`" in text
        assert "toggle per-OSD noout" in text and "create-pool wizard" not in text
        await pilot.press("a")
        assert "create-pool wizard" in app.screen.query_one(Markdown).source
        await pilot.press("q")
        assert not isinstance(app.screen, HelpScreen)
        # q on a form closes the form, not the app
        await pilot.press("5", "c")
        await wait_for(pilot, lambda: isinstance(app.screen, PoolWizard), 5, "the pool wizard")
        app.set_focus(None)
        await pilot.press("q")
        await wait_for(pilot, lambda: not isinstance(app.screen, PoolWizard), 5, "the wizard closed")
        await pilot.pause()
        assert not isinstance(app.screen, PoolWizard) and app.is_running
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, 5, "the app quit")


async def test_palette_reaches_every_tab_action(look_app: Any) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        titles = {c.title for c in app.get_system_commands(app.screen)}
        count = 0
        for (_, title), pane in zip(TABS, app.panes):
            for binding in pane_bindings(pane):
                assert f"{title}: {binding.description}" in titles
                count += 1
        assert count >= 45  # every tab's actions, not a sample
        # run one from the palette while another tab is shown: its tab comes up and the action runs
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), 5, "the palette")
        await pilot.press(*"Pools: Create pool")
        await wait_for(pilot, lambda: palette_shows(app, "Pools: Create pool"), 10, "the palette's search done")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PoolWizard), 10, "the pool wizard from the palette")
        assert app.tabs.active == "pools"


async def test_mouse_tabs_rows_and_double_click(look_app: Any) -> None:
    from cephtui.ui.screens.osd_detail import OSDDetailScreen
    from cephtui.ui.screens.pool_detail import PoolDetailScreen

    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        await click(pilot, "#--content-tab-osds")
        assert app.tabs.active == "osds"
        table = app.pane(OSDsPane).vtable
        await wait_for(pilot, lambda: table.row_count >= 5, 15, "the OSD tree")
        names = cells(app, "#osds-table", 0)
        row = next(i for i, n in enumerate(names) if n.endswith("osd.1"))
        await click(pilot, "#osds-table", offset=(4, row + 1))  # +1: the header line
        assert table.cursor == row
        await click(pilot, "#osds-table", offset=(4, row + 1), times=2)
        await wait_for(pilot, lambda: isinstance(app.screen, OSDDetailScreen), 5, "the OSD detail on double click")
        await pilot.press("q")
        # the footer keys are buttons too: `?` opens the help
        await click(pilot, "#--content-tab-pools")
        assert app.tabs.active == "pools"
        await wait_for(pilot, lambda: app.pane(PoolsPane).table.row_count >= 1, 15, "the pools")
        await pilot.press("enter")  # the table's own enter used to swallow this
        await wait_for(pilot, lambda: isinstance(app.screen, PoolDetailScreen), 5, "the pool settings on enter")
        await pilot.press("q")
        await click(pilot, "#pools-table", offset=(10, 2))
        await click(pilot, "#pools-table", offset=(10, 2))  # a click on the highlighted row opens it
        await wait_for(pilot, lambda: isinstance(app.screen, PoolDetailScreen), 5, "the pool settings on click")
        await pilot.press("q")
        from cephtui.ui.compat import FooterKey

        help_key = next(k for k in app.query(FooterKey) if k.action == "help")
        await click(pilot, help_key)
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help from the footer")


def burst(app: CephTUI, text: str) -> None:
    """Keys as a terminal delivers a fast typist's burst: all queued at the app before any is handled
    (pilot.press lets the app settle between keys, which hides the race of issue 16)."""
    from textual import events
    from textual.keys import _character_to_key

    for ch in text:
        key = "enter" if ch == "\r" else _character_to_key(ch)
        app.post_message(events.Key(key, ch))


async def test_keys_typed_while_the_prompt_opens_go_to_it_and_tab_completes(look_app: Any) -> None:
    from textual.widgets import Input

    from cephtui.ui.screens.confirm import ConfirmScreen

    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a snapshot")
        await pilot.press("3")
        osds = app.pane(OSDsPane)
        await wait_for(pilot, lambda: osds.vtable.row_count > 0 and app.focused is osds.vtable,
                       10, "the OSD table, focused")
        app.pane(OSDsPane).vtable.cursor = 0  # root default: `o` here opens "mark out" for every OSD
        # No enter in the burst: had a key leaked, enter would press Run in that dialog.
        burst(app, ":osd.2")
        await wait_for(pilot, lambda: app.prompt.value == "osd.2" or len(app.screen_stack) > 1, 10,
                       "the prompt to hold what was typed")
        assert len(app.screen_stack) == 1 and not isinstance(app.screen, ConfirmScreen), "a key reached the table"
        assert app.prompt.value == "osd.2" and app.focused is app.prompt.input
        await pilot.press("enter")
        await wait_for(pilot, lambda: cursor_name(app, "#osds-table") == "osd.2", 10, "the cursor on osd.2")

        # `/` then a burst: the OSD filter gets every key.
        burst(app, "/up")
        await wait_for(pilot, lambda: app.query_one("#osds-filter", Input).value == "up", 5, "the filter text")
        await pilot.press("escape")

        # Tab completes in the prompt, and the prompt keeps the focus.
        prompt = app.prompt
        await pilot.press("colon", *"poo", "tab")
        assert prompt.value == "pools" and prompt.is_open and app.focused is prompt.input
        await pilot.press("ctrl+u", *"rb", "tab")
        assert prompt.value == "rbd"
        await pilot.press("ctrl+u", *"osd.", "tab")  # several: the first, the list beside it, tab steps on
        assert prompt.value == "osd.0" and "osd.1" in str(prompt.query_one("#prompt-matches").content)
        await pilot.press("tab")
        assert prompt.value == "osd.1"
        await pilot.press("shift+tab", "shift+tab")
        assert prompt.value.startswith("osd.")
        await pilot.press("ctrl+u", *"zzz", "tab")
        assert prompt.value == "zzz" and "no completion" in str(prompt.query_one("#prompt-matches").content)
        await pilot.press("ctrl+u", *"osd.1", "enter")
        await wait_for(pilot, lambda: cursor_name(app, "#osds-table") == "osd.1", 10, "the cursor on osd.1")
        assert not prompt.is_open


async def test_keys_typed_behind_a_tab_wait_for_its_data(look_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The File systems tab's map comes with the first poll after it opens. With a mon slow to answer `fs dump`
    (1.5 s) the keys typed behind the jump once found no file system: `m` said "No file system shown.", the
    Backspace did nothing and the `2` opened the PGs tab. They wait for the tab's data now, and reach the max_mds
    form."""
    from cephtui.ui.screens.wizards.form import FormScreen

    app = look_app()
    real = app.client.raw

    def slow(target: str, prefix: str, args: dict[str, Any]) -> bytes:
        if prefix == "fs dump":
            time.sleep(1.5)  # on the poll's thread, as a busy mon would
        return real(target, prefix, args)
    monkeypatch.setattr(app.client, "raw", slow)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a snapshot")
        assert app.snapshot is not None and app.snapshot.cephfs is None  # not fetched until the tab opens
        burst(app, ":fs\rm\x7f2")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), 10, "the max_mds form")
        await wait_for(pilot, lambda: app.screen.query_one("#field-max_mds", Input).value == "2", 5,
                       "the 2 typed in the form")
        assert app.tabs.active == "fs"
