"""The removal form alone, no cluster: how an OSD is drained follows what the admin is doing (remove or replace),
and the costlier choice says what it costs. The removal itself, its waits and its quitting, are the cluster tier's
(tests/ui/test_removal.py, test_removal_quit.py)."""
from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Select

from cephtui.ui.dialog_types import Field
from cephtui.ui.screens.wizards.removal_form import RemovalForm
from tests.ui.helpers import plain, wait_for, wait_screen

pytestmark = pytest.mark.look


async def test_the_form_drain_follows_the_kind_and_explains_the_costlier_one() -> None:
    """crush0 for a removal, out for a replacement, unless chosen."""
    form = RemovalForm("Remove or replace osd.3", [
        Field("mode", "What", "remove", choices=("remove", "replace")),
        Field("drain", "Drain by", "crush0", choices=("crush0", "out"))], lambda v: [], [3])
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.push_screen(form)
        await wait_screen(pilot, RemovalForm)
        mode, drain = form.query_one("#field-mode", Select), form.query_one("#field-drain", Select)

        def status() -> str:
            return plain(form.query_one("#form-status").content)

        assert drain.value == "crush0" and "⚠" not in status()
        mode.value = "replace"
        await wait_for(pilot, lambda: drain.value == "out", 5, "out for a replacement")
        assert "⚠" not in status()
        drain.value = "crush0"  # the operator's choice: kept, and its cost said
        await wait_for(pilot, lambda: "sets the old weight back" in status(), 5, "the cost of crush0 for a replace")
        mode.value = "remove"
        await wait_for(pilot, lambda: "⚠" not in status(), 5, "crush0 for a removal: nothing to warn about")
        assert drain.value == "crush0"
        drain.value = "out"
        await wait_for(pilot, lambda: "SECOND MOVE AT THE PURGE" in status(), 5, "what out costs at the purge")
