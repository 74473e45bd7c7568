"""Helpers shared by the Pilot tests: plain text of widgets, waiting on the UI.

Synchronisation is always a condition: wait_for polls one and fails with what it was waiting for;
ready/click wait until a widget can take a press (click also until it stays put under the pointer, and
checks that the click landed). A fixed pilot.pause(seconds) is never a wait; pilot.pause() with no
argument (let the message queues drain) is.
"""
from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from textual.app import App
from textual.command import CommandList, CommandPalette
from textual.errors import NoWidget
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ui.app import CephTUI
from cephtui.ui.pane import Pane
from cephtui.ui.tabs import NUMBER_KEYS, number_key
from tests.conftest import TRANSIENT

SIZE = (160, 48)
POLL = 0.05  # seconds between two looks at a condition: quick, but the app still gets the loop
S = TypeVar("S", bound=Screen)


@contextmanager
def app_factory(conf: Path, op_timeout: float = 5, **settings: Any) -> Iterator[Callable[..., CephTUI]]:
    """Makes apps on the cluster of `conf`, each on a client of its own (all closed at the end): refresh 1 s
    and `settings`, which one call's own keywords override (`make(refresh=30.0)`)."""
    clients: list[CephClient] = []

    def make(**kw: Any) -> CephTUI:
        client = CephClient(ConnectionSpec(conffile=str(conf), op_timeout=op_timeout)).connect()
        clients.append(client)
        # No history recorder unless a test asks (history=True): each app's recorder adds commands every 5 s to
        # the audit channel that other tests read for who set a flag, on the sandbox the session shares.
        return CephTUI(client=client, **{"refresh": 1.0, "history": False, **settings, **kw})

    try:
        yield make
    finally:
        for c in clients:
            c.close()


def plain(renderable: Any) -> str:
    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def text_of(app: App, selector: str) -> str:
    return plain(app.screen.query_one(selector).content)


def cells(app: App, selector: str, column: int) -> list[str]:
    """One column's plain text, from a DataTable or a VirtualTable."""
    table = app.query_one(selector)
    return [plain(table.get_row_at(i)[column]).strip() for i in range(table.row_count)]


async def wait_for(pilot: Pilot, cond: Callable[[], Any], timeout: float, what: str,
                   interval: float = POLL) -> None:
    """Until cond() is true, the app running meanwhile; fails naming `what` after `timeout` seconds.
    A cond that asks the cluster (a `ceph` CLI call) takes a longer `interval`."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            if cond():
                return
        except TRANSIENT as e:  # a state still forming is "not yet" (tests/conftest.py)
            last = e
        if time.monotonic() > deadline:
            why = f" (the last look raised {type(last).__name__}: {last})" if last is not None else ""
            raise AssertionError(f"UI did not show {what} within {timeout:.0f}s{why}")
        await pilot.pause(interval)


async def wait_screen(pilot: Pilot, kind: type[S], timeout: float = 10, what: str = "",
                      other_than: Screen | None = None) -> S:
    """The app's screen once it is a `kind` (and not `other_than`), mounted and laid out (it can take a click)."""
    app = pilot.app

    def shown() -> bool:
        screen = app.screen
        return (isinstance(screen, kind) and screen is not other_than and screen.is_mounted
                and screen.size.area > 0)

    await wait_for(pilot, shown, timeout, what or f"the {kind.__name__}")
    await pilot.pause()  # its mount handlers have run
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


async def open_screen(pilot: Pilot, key: str, kind: type[S], timeout: float = 10, what: str = "") -> S:
    """Press a key that opens a new screen of `kind`; return that screen once it can take input."""
    before = pilot.app.screen
    await pilot.press(key)
    return await wait_screen(pilot, kind, timeout, what, other_than=before)


def _clickable(widget: Widget) -> bool:
    # A Button ignores a press while it still shows its last one ("-active", 0.2 s): wait that out.
    return (widget.is_mounted and widget.display and not widget.disabled and widget.region.area > 0
            and not widget.has_class("-active"))


async def ready(pilot: Pilot, selector: str, timeout: float = 10) -> Widget:
    """The widget on the current screen once it is mounted, visible, enabled, and not mid-press."""
    app = pilot.app
    found: list[Widget] = []

    def look() -> bool:
        found[:] = app.screen.query(selector).results()
        return bool(found) and _clickable(found[0])

    await wait_for(pilot, look, timeout, f"{selector} ready for a press")
    return found[0]


async def click(pilot: Pilot, target: str | Widget, timeout: float = 10, offset: tuple[int, int] = (0, 0),
                times: int = 1) -> None:
    """Click a widget (a selector on the current screen, or the widget) once it can take the click, at
    `offset` from its top left corner, and check that the click landed on it.

    Pilot.click aims at the widget's region as it is at the call, pauses, then clicks whatever is at that spot.
    A dialog sized to its content moves meanwhile when a line is added (a recomputed preview with a warning
    grows, and re-centres), and the click went beside Run, silently. So first: the same region on two
    consecutive looks, and the widget itself at the spot (nothing on top of it); then the click must land.
    """
    app = pilot.app
    what = target if isinstance(target, str) else repr(target)
    if isinstance(target, str):
        widget = await ready(pilot, target, timeout)
    else:
        widget = target
        await wait_for(pilot, lambda: _clickable(widget), timeout, f"{what} ready for a press")
    seen: list[Region] = []

    def still_and_on_top() -> bool:
        region = widget.region
        steady = seen == [region]
        seen[:] = [region]
        if not steady or not _clickable(widget):
            return False
        x, y = region.offset + offset
        try:
            at, _ = app.screen.get_widget_at(x, y)
        except NoWidget:
            return False
        return at is widget

    await wait_for(pilot, still_and_on_top, timeout, f"{what} in the same place on two looks, under the pointer")
    assert await pilot.click(widget, offset=offset, times=times), f"the click on {what} did not land on it"


def tab_presses(place: int, key: str) -> tuple[str, ...]:
    """The keys that open the tab at `place` (1-based): its number key, or `:key` past the number row."""
    return (number_key(place),) if place <= NUMBER_KEYS else ("colon", *key, "enter")


async def show_tab(pilot: Pilot, digit: str, key: str, timeout: float = 10) -> None:
    """Press a tab's digit ("": jump there with `:key`); return once that tab is up and holds the focus, so the
    next key reaches its pane."""
    app: Any = pilot.app
    await pilot.press(*((digit,) if digit else ("colon", *key, "enter")))

    def shown() -> bool:
        if app.tabs.active != key:
            return False
        tab = app.query_one(f"TabPane#{key}")
        if not any(isinstance(w, Pane) and type(w).focus_table is not Pane.focus_table for w in tab.children):
            return True  # a pane that takes no focus (Health keeps the Pane base's no-op): its tab up is enough
        focused = app.focused
        return focused is not None and tab in focused.ancestors_with_self

    await wait_for(pilot, shown, timeout, f"the {key} tab with the focus")
    await pilot.pause()


async def press_ready(pilot: Pilot, *keys: str, timeout: float = 10) -> None:
    """Press keys once the focused widget can take them (a Button just pressed ignores presses for 0.2 s)."""
    app = pilot.app
    await wait_for(pilot, lambda: app.focused is None or not app.focused.has_class("-active"), timeout,
                   f"the focused widget ready for {' '.join(keys)}")
    await pilot.press(*keys)


def palette_shows(app: Any, entry: str) -> bool:
    """The palette has searched for what was typed and highlights `entry`."""
    palette = app.screen
    if not isinstance(palette, CommandPalette):
        return False
    if any(not w.is_finished for w in app.workers if w.node is palette):
        return False
    found = palette.query_one(CommandList)
    return found.highlighted is not None and entry in plain(found.get_option_at_index(found.highlighted).prompt)
