"""The dialog-flow helpers (ui/dialog_flows.py) on a bare Textual app: no cluster needed."""
from __future__ import annotations

import threading
from typing import Any

import pytest
from textual import work
from textual.app import App
from textual.screen import ModalScreen
from textual.widgets import Static

from cephtui.ui.dialog_flows import flow_running, in_thread
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)


class Ask(ModalScreen[str]):
    def compose(self) -> Any:
        yield Static("?")


class FlowApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    @work(group="flow")
    async def flow(self) -> None:
        ui_thread = threading.get_ident()
        self.seen.append(await in_thread(self, lambda: threading.get_ident() != ui_thread, "off the UI thread"))
        try:
            await in_thread(self, lambda: int("x"), "raises")
        except ValueError as e:  # the function's own exception, not Textual's WorkerFailed
            self.seen.append(type(e).__name__)
        self.seen.append(await self.push_screen_wait(Ask()))


async def test_a_flow_awaits_threads_and_screens_in_turn() -> None:
    app = FlowApp()
    async with app.run_test() as pilot:
        assert not flow_running(app, "flow")
        app.flow()
        await wait_for(pilot, lambda: isinstance(app.screen, Ask), 10, "the flow's dialog")
        assert app.seen == [True, "ValueError"]
        assert flow_running(app, "flow") and not flow_running(app, "other")
        app.screen.dismiss("answer")
        await wait_for(pilot, lambda: not flow_running(app, "flow"), 10, "the flow's end")
        assert app.seen == [True, "ValueError", "answer"]
