"""Helpers shared by the Pilot tests: plain text of widgets, waiting on the UI."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

SIZE = (160, 48)


def plain(renderable: Any) -> str:
    console = Console(width=200, record=True, color_system=None, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text()


def text_of(app: App, selector: str) -> str:
    return plain(app.screen.query_one(selector).content)


def cells(app: App, selector: str, column: int) -> list[str]:
    """One column's plain text, from a DataTable or a VirtualTable."""
    table = app.query_one(selector)
    return [plain(table.get_row_at(i)[column]).strip() for i in range(table.row_count)]


async def wait_for(pilot: Pilot, cond: Callable[[], Any], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"UI did not show {what} within {timeout:.0f}s")
        await pilot.pause(0.25)
