"""Every tab's screen, on every release's look capture, at 80x24 (an ssh window's default) and 120x36: a
change of one character in what a tab draws fails here. After a deliberate change, look at the new
screens (`pytest tests/look --snapshot-update`, then the SVGs under __snapshots__/) before committing them."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
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


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("tab", [t.key for t in TABS])
@pytest.mark.parametrize("release", RELEASES)
def test_tab(release: str, tab: str, size: tuple[int, int], look_app: Any, snap_compare: Any) -> None:
    app = look_app(release)

    async def show(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press(*keys_for(tab))
        await settle(pilot, ready=READY.get(tab, lambda app: True))
        assert app.query_one("TabbedContent").active == tab

    assert snap_compare(app, terminal_size=size, run_before=show)
