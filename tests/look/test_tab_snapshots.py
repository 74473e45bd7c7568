"""Every tab's screen, on every release's look capture, at 80x24 (an ssh window's default) and 120x36: a
change of one character in what a tab draws fails here. After a deliberate change, look at the new
screens (`pytest tests/look --snapshot-update`, then the SVGs under __snapshots__/) before committing them.

One app per release and size walks the tabs in their order, as an admin pressing 1, 2, 3 … would, and each
tab's screen is compared with its own baseline (`test_tabs[pacific-80x24][osds].svg`): starting the app
(composing eleven panes) cost more than showing a tab, and 66 starts were a third of the look tier's time.
A test names every tab whose screen differs, not only the first."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension
from textual.app import App
from textual.pilot import Pilot

from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.tabs import TABS
from tests.look.conftest import RELEASES, SIZES, snapshots_here
from tests.look.settle import keys_for, settle

pytestmark = snapshots_here

# What a tab draws from a timer of its own rather than from a worker: the Bench tab's host panel comes with
# its next quarter-second tick after the tab is shown.
READY: dict[str, Callable[[App], bool]] = {
    "bench": lambda app: app.query_one(BenchPane).host is not None,
}


def tab_screens(app: App, size: tuple[int, int]) -> dict[str, str]:
    """Each tab's screen, in TABS order, taken as pytest-textual-snapshot takes one (textual._doc's
    take_svg_screenshot: a pause, the scheduled animations, a pause, then the simplified SVG)."""
    screens: dict[str, str] = {}

    async def walk(pilot: Pilot) -> None:
        await settle(pilot)
        for tab in TABS:
            await pilot.press(*keys_for(tab.key))
            await settle(pilot, ready=READY.get(tab.key, lambda app: True))
            assert app.query_one("TabbedContent").active == tab.key  # type: ignore[attr-defined]
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            screens[tab.key] = app.export_screenshot(title=app.title, simplify=True)
        app.exit()

    app.run(headless=True, auto_pilot=walk, size=size)
    assert list(screens) == [t.key for t in TABS], f"the walk ended at {list(screens)}"
    return screens


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("release", RELEASES)
def test_tabs(release: str, size: tuple[int, int], look_app: Any, snapshot: Any) -> None:
    screens = tab_screens(look_app(release), size)
    svg = snapshot.use_extension(SVGImageExtension)
    differ = [tab for tab, screen in screens.items() if not svg(name=tab) == screen]
    assert not differ, (f"{release} at {size[0]}x{size[1]}: the screen of {', '.join(differ)} differs from its "
                        "baseline (tests/look/__snapshots__/test_tab_snapshots/); after a deliberate change, "
                        "`pytest tests/look --snapshot-update` and look at the new SVGs")
