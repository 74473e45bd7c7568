"""A burst typed into a tab before its list has been read, on the look capture (no cluster): the keys meant for
the form wait for the read and go to the form, as typed.

Seen twice in clean-clone CI runs (tests/ui/test_keybursts.py, tmux on a sandbox under load): `6`, then
`c vmhost4⏎ZZ` as soon as the Users tab's footer showed, landed on the CRUSH tab. The Users tab had not had its
first `auth ls` yet, so `c` only said "not read yet", and the name's `4` switched tabs. Here the Users tab's
`auth ls` is held back a second (a slow mon), so the burst always comes first.
"""
from __future__ import annotations

import time
from typing import Any

import pytest
from textual.widgets import Input

from cephtui.ui.panes.users import UsersPane
from cephtui.ui.screens.wizards.form import FormScreen
from tests.ui.helpers import SIZE, wait_for
from tests.ui.test_navigation import burst

AUTH_LS_DELAY = 1.0


@pytest.fixture
def slow_auth_ls(look_app: Any) -> Any:
    app = look_app()
    real = app.client.raw

    def raw(target: str, prefix: str, args: dict[str, Any]) -> bytes:
        if prefix == "auth ls":
            time.sleep(AUTH_LS_DELAY)  # a thread worker's read: the UI goes on meanwhile
        return real(target, prefix, args)

    app.client.raw = raw
    return app


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
