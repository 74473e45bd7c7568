"""update_in_place: no screen-wide layout while a Static keeps its height, a layout when it changes, and
the screen shows the new content either way. No cluster needed."""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from cephtui.ui.widgets.inplace import update_in_place

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)


class TwoStatics(App[None]):
    CSS = "#live { height: auto; } #below { height: 1; }"

    def compose(self) -> ComposeResult:
        yield Static("one line", id="live")
        yield Static("below", id="below")


class FixedHeight(TwoStatics):
    CSS = "#live { height: 3; } #below { height: 1; }"


@asynccontextmanager
async def two_statics(app_class: type[TwoStatics] = TwoStatics) -> AsyncIterator[tuple[Pilot[None], Static, Static]]:
    """The app at 40x8: its pilot, the live Static and the one below it."""
    app = app_class()
    async with app.run_test(size=(40, 8)) as pilot:
        yield pilot, app.query_one("#live", Static), app.query_one("#below", Static)


def layouts_asked(static: Static, content: str) -> int:
    """update_in_place, and how many layouts it asked for (Textual's own, during the next layout, are not
    counted: they follow from ours)."""
    asked = 0
    original = static.refresh

    def refresh(*regions: Any, **kw: Any) -> Any:
        nonlocal asked
        asked += bool(kw.get("layout"))
        return original(*regions, **kw)
    static.refresh = refresh  # type: ignore[method-assign]
    try:
        update_in_place(static, content)
    finally:
        del static.refresh  # the class's method again
    return asked


async def test_same_height_skips_the_layout_a_new_height_gets_one() -> None:
    async with two_statics() as (pilot, live, below):
        assert layouts_asked(live, "first measured") == 1  # nothing measured yet
        await pilot.pause()
        for n in range(5):  # the same height: no layout, yet the text shown is the new one
            assert layouts_asked(live, f"tick {n}") == 0
            await pilot.pause()
            assert str(live.render()) == f"tick {n}"

        assert layouts_asked(live, "two\nlines") == 1  # taller: the layout moves the widget below
        await pilot.pause()
        assert below.region.y == live.region.y + 2

        assert layouts_asked(live, "back to one") == 1  # shorter again
        await pilot.pause()
        assert below.region.y == live.region.y + 1


async def test_a_width_change_is_measured_again() -> None:
    async with two_statics() as (pilot, live, below):
        layouts_asked(live, "x" * 30)  # one line at 40 columns
        await pilot.pause()
        await pilot.resize_terminal(20, 8)  # the resize lays it out as two lines
        await pilot.pause()
        assert layouts_asked(live, "y" * 30) == 1  # same length, but measured at another width
        await pilot.pause()
        assert below.region.y == live.region.y + 2


async def test_hidden_widgets_show_the_latest_content_at_its_height() -> None:
    async with two_statics() as (pilot, live, below):
        live.display = False
        await pilot.pause()
        # A layout all the same (unmeasurable while hidden); it joins the one that shows the tab (panes on
        # other tabs render when their tab is opened).
        assert layouts_asked(live, "three\nline\ncontent") == 1
        live.display = True  # showing it lays it out with what it holds now
        await pilot.pause()
        assert below.region.y == live.region.y + 3


class AutoWidth(App[None]):
    CSS = "Horizontal { height: 1; } #live { width: auto; text-wrap: nowrap; } #right { width: 5; }"

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal
        with Horizontal():
            yield Static("ab", id="live")
            yield Static("right", id="right")


async def test_a_widget_sized_by_its_content_is_always_laid_out() -> None:
    app = AutoWidth()
    async with app.run_test(size=(40, 4)) as pilot:
        live, right = app.query_one("#live", Static), app.query_one("#right", Static)
        for text in ("abcdefgh", "hgfedcba"):  # the second measured at the width the first gave it
            layouts_asked(live, text)
            await pilot.pause()
        assert right.region.x == live.region.x + 8
        # Narrower: still one line at the old width, so only the guard lays it out and moves the neighbour.
        assert layouts_asked(live, "ab") == 1
        await pilot.pause()
        assert right.region.x == live.region.x + 2


async def test_a_height_set_in_cells_is_neither_measured_nor_laid_out() -> None:
    """The Bench tab's host box: its height is set, so a bottleneck line that comes and goes moves nothing."""
    async with two_statics(FixedHeight) as (pilot, live, below):
        for content in ("two\nlines", "one", "three\nlines\nnow"):
            assert layouts_asked(live, content) == 0
            await pilot.pause()
            assert str(live.render()) == content and below.region.y == live.region.y + 3


class HiddenTab(App[None]):
    """The Doctor's shape: a Static in a scroll box on one of two switched panes."""
    CSS = "VerticalScroll { height: 1fr; } #live { height: auto; }"

    def compose(self) -> ComposeResult:
        from textual.containers import VerticalScroll
        from textual.widgets import ContentSwitcher
        with ContentSwitcher(initial="a"):
            with VerticalScroll(id="a"):
                yield Static("nothing to explain", id="live")
            yield Static("the other tab", id="b")


async def test_content_set_while_its_tab_is_hidden_is_laid_out_when_shown() -> None:
    from textual.widgets import ContentSwitcher
    app = HiddenTab()
    async with app.run_test(size=(40, 12)) as pilot:
        live, switcher = app.query_one("#live", Static), app.query_one(ContentSwitcher)
        update_in_place(live, "one line")
        await pilot.pause()
        assert live.size.height == 1
        switcher.current = "b"
        await pilot.pause()
        update_in_place(live, "\n".join(f"line {n}" for n in range(5)))  # while hidden
        await pilot.pause()
        switcher.current = "a"
        await pilot.pause()
        assert live.size.height == 5  # it stayed 1 (its box's arrangement, cached from before, was reused)
