"""The yes/no dialogs on their one base (screens/dialog.py YesNoDialog), on a bare Textual app: no cluster needed.

Each opens with the focus on its own default button (what Enter answers), its yes button answers True, its no
button and escape False.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rich.text import Text
from textual.app import App

from cephtui.ui.screens.bench_views import BenchConfirmScreen
from cephtui.ui.screens.crush_editor import DiscardScreen
from cephtui.ui.screens.dialog import YesNoDialog
from cephtui.ui.screens.maintenance_preflight import PreflightScreen
from tests.ui.helpers import click, wait_for, wait_screen

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)

DIALOGS: dict[str, tuple[Callable[[], YesNoDialog], str, str, str]] = {
    # name: (the dialog, its yes button, its no button, the button that has the focus as it opens)
    "preflight": (lambda: PreflightScreen("ok-to-stop says no", Text("why")), "preflight-continue",
                  "preflight-cancel", "preflight-cancel"),
    "bench": (lambda: BenchConfirmScreen("Run the benchmark?", [], "what it does"), "bench-confirm-run",
              "bench-confirm-cancel", "bench-confirm-run"),
    "discard": (lambda: DiscardScreen("Discard the edits?", "1 line differs", "Discard"), "discard-yes",
                "discard-keep", "discard-keep"),
}


async def answer(make: Callable[[], YesNoDialog], how: Callable[[Any], Any]) -> bool | None:
    app: App[None] = App()
    answers: list[bool | None] = []
    async with app.run_test() as pilot:
        dialog = make()
        app.push_screen(dialog, answers.append)
        await wait_screen(pilot, type(dialog))
        await how(pilot)
        await wait_for(pilot, lambda: bool(answers), 5, "the answer")
    return answers[0]


@pytest.mark.parametrize("name", DIALOGS)
async def test_yes_no_focus_and_escape(name: str) -> None:
    make, yes, no, focus = DIALOGS[name]
    assert (make().YES, make().NO, make().FOCUS) == (yes, no, focus)

    async def enter(pilot: Any) -> None:
        assert pilot.app.focused is not None and pilot.app.focused.id == focus
        await pilot.press("enter")

    assert await answer(make, enter) is (focus == yes)
    assert await answer(make, lambda pilot: click(pilot, f"#{yes}")) is True
    assert await answer(make, lambda pilot: click(pilot, f"#{no}")) is False
    assert await answer(make, lambda pilot: pilot.press("escape")) is False
