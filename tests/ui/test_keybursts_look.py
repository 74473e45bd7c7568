"""A burst typed into a tab before its list has been read, on the look capture (no cluster): the keys meant for
the form wait for the read and go to the form, as typed.

Seen twice in clean-clone CI runs (tests/ui/test_keybursts.py, tmux on a sandbox under load): `6`, then
`c vmhost4⏎ZZ` as soon as the Users tab's footer showed, landed on the CRUSH tab. The Users tab had not had its
first `auth ls` yet, so `c` only said "not read yet", and the name's `4` switched tabs. Here the Users tab's
`auth ls` is held back a second (a slow mon), so the burst always comes first. The CRUSH tab's forms had the same
gap before its first `osd crush dump` (`4anode9`: "not read yet", and the `9` switched tabs). A jump to an OSD had
it before its tab's first `osd tree` (`:osd.1⏎w` put the cursor on osd.1, and `w` found no OSD to reweight).
"""
from __future__ import annotations

import time
from typing import Any

import pytest
from textual.widgets import Input

from cephtui.ui.panes.crush import CrushPane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.panes.users import UsersPane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.ui.helpers import SIZE, text_of, wait_for
from tests.ui.test_navigation import burst

READ_DELAY = 1.0


def slowed(app: Any, slow: str) -> Any:
    """The app with the mon's answer to `slow` held back READ_DELAY seconds (every other answer at once)."""
    real = app.client.raw

    def raw(target: str, prefix: str, args: dict[str, Any]) -> bytes:
        if prefix == slow:
            time.sleep(READ_DELAY)  # a thread worker's read: the UI goes on meanwhile
        return real(target, prefix, args)

    app.client.raw = raw
    return app


@pytest.fixture
def slow_auth_ls(look_app: Any) -> Any:
    return slowed(look_app(), "auth ls")


@pytest.fixture
def slow_crush_dump(look_app: Any) -> Any:
    return slowed(look_app(), "osd crush dump")


@pytest.fixture
def slow_osd_tree(look_app: Any) -> Any:
    return slowed(look_app(), "osd tree")


async def test_a_name_typed_before_the_users_were_read_goes_to_the_wizard(slow_auth_ls: Any) -> None:
    app = slow_auth_ls
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
        burst(app, "6cvmhost4\rZZ")
        def step2_holds_zz() -> bool:
            screen = app.screen
            return (isinstance(screen, FormScreen) and "step 2 of 2" in screen.title_text and screen.is_mounted
                    and isinstance(app.focused, Input) and app.focused.value.endswith("ZZ"))

        await wait_for(pilot, step2_holds_zz, 15, "the wizard's step 2 with ZZ in its first field")
        form = app.screen
        assert isinstance(form, FormScreen)
        assert app.tabs.active == "users", app.tabs.active
        assert "client.vmhost4:" in form.title_text, form.title_text
        values = [i.value for i in form.query(Input)]
        assert not any("vmhost4ZZ" in v for v in values), values


async def test_the_burst_really_came_before_the_users(slow_auth_ls: Any) -> None:
    """The case above is the one that failed: `c` reached the Users tab while it had no users yet."""
    app = slow_auth_ls
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
        burst(app, "6")
        pane = app.pane(UsersPane)
        await wait_for(pilot, lambda: app.tabs.active == "users", 5, "the Users tab")
        assert pane.entities is None, "the users came before the burst: the delay does not hold the read back"
        await wait_for(pilot, lambda: pane.entities is not None, 15, "the users, a second later")


async def test_a_bucket_typed_before_the_crush_map_was_read_goes_to_the_form(slow_crush_dump: Any) -> None:
    app = slow_crush_dump
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
        burst(app, "4anode9")

        def form_holds_name() -> bool:
            screen = app.screen
            return (isinstance(screen, FormScreen) and screen.is_mounted and isinstance(app.focused, Input)
                    and app.focused.value == "node9")

        await wait_for(pilot, form_holds_name, 15, "the add-bucket form with node9 in its name field")
        assert "Add a CRUSH bucket" in app.screen.title_text, app.screen.title_text
        assert app.tabs.active == "crush", app.tabs.active


async def test_the_burst_really_came_before_the_crush_map(slow_crush_dump: Any) -> None:
    app = slow_crush_dump
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
        burst(app, "4")
        pane = app.pane(CrushPane)
        await wait_for(pilot, lambda: app.tabs.active == "crush", 5, "the CRUSH tab")
        assert pane.cmap is None, "the map came before the burst: the delay does not hold the read back"
        await wait_for(pilot, lambda: pane.cmap is not None, 15, "the map, a second later")


async def test_keys_typed_behind_a_jump_to_an_osd_act_on_that_osd(slow_osd_tree: Any) -> None:
    """`:osd.1⏎w⌫0.5⏎` in one read: the reweight form of osd.1, its default taken out, 0.5 typed and sent on to
    the confirmation (found by hand in tmux: the cursor landed on osd.1, `w` was lost, and `5` switched to Pools
    and Enter opened a pool's detail)."""
    app = slow_osd_tree
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
        burst(app, ":osd.1\rw\x7f0.5\r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen.is_mounted, 15,
                       "the reweight's confirmation")
        assert app.tabs.active == "osds", app.tabs.active
        assert "$ ceph osd reweight 1 0.5" in text_of(app, "#confirm-commands"), text_of(app, "#confirm-commands")


async def test_the_jump_really_came_before_the_osd_tree(slow_osd_tree: Any) -> None:
    app = slow_osd_tree
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
        pane = app.pane(OSDsPane)
        assert pane.table_data is None
        burst(app, ":osd.1\r")
        await wait_for(pilot, lambda: app.tabs.active == "osds", 5, "the OSDs tab")
        assert pane.table_data is None, "the tree came before the jump: the delay does not hold the read back"
        await wait_for(pilot, lambda: pane.targets() == (1,), 15, "the cursor on osd.1, a second later")
