"""The layout at 200x60 and 120x36 on a replayed capture (no cluster): the room a big terminal gives is used,
asserted as text on the screen (tests/ui/test_layout.py's way: the compositor's full render as plain text)."""
from __future__ import annotations

import re
from collections.abc import Callable

from textual.widgets import Sparkline

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.wizards.form import FormScreen
from tests.ui.test_layout import BIG, PG_ROW, TAB_KEYS, on_screen, screen_text, until

LookApp = Callable[..., CephTUI]


async def test_200x60_uses_the_room(look_app: LookApp) -> None:
    app = look_app()
    async with app.run_test(size=BIG) as pilot:
        assert app.screen.has_class("-wide", "-tall")
        await until(pilot, app, lambda t: "connected" in t.splitlines()[0], "the first snapshot")

        # PGs: the table fills the height (every PG of the sandbox, where 80x24 shows a handful) and
        # gains a pool column.
        await pilot.press(TAB_KEYS["pgs"])
        text = await until(pilot, app, lambda t: len(PG_ROW.findall(t)) >= 25, "25 PG rows")
        assert re.search(r"pgid\s+pool\s+state\s+up\s+acting\s+primary", text), text
        assert re.search(r"│\s+1\.0\s+rbd\s+active\+clean", text), text
        assert "Per pool" in text and re.search(r"│\s+rbd\s+32\s+32", text), text

        # OSDs: every column, plus used and avail; the table reaches down to the footer.
        await pilot.press(TAB_KEYS["osds"])
        text = await until(pilot, app, lambda t: re.search(r"osd\.2\s+hdd\s+up in", t), "the OSD rows")
        assert re.search(r"name\s+class\s+status\s+weight\s+reweight\s+pri-aff\s+size\s+used\s+avail\s+%use\s+var"
                         r"\s+pgs\s+lat c/a\s+trend\s+flags", text), text
        assert app.pane(OSDsPane).vtable.region.bottom >= BIG[1] - 3

        # Bench: taller sparklines.
        await pilot.press(TAB_KEYS["bench"])
        await until(pilot, app, lambda t: "Live" in t, "the bench pane")
        sparks = app.pane(BenchPane).query(Sparkline)
        assert sparks and all(s.region.height == 3 for s in sparks)

        # In between (36 rows, the screenshots' size): the longest form (ten fields) keeps its buttons.
        await pilot.resize_terminal(120, 36)
        await until(pilot, app, lambda t: "Live" in t and app.screen.has_class("-medium"), "the resize")
        app.pane(BenchPane).action_new_run()
        await until(pilot, app, lambda t: "New benchmark run" in t and "Next" in t, "the new-run form")
        assert isinstance(app.screen, FormScreen)
        for button in ("#form-ok", "#form-cancel"):
            assert on_screen(app, app.screen.query_one(button)), screen_text(app)
        await pilot.press("escape")
        await until(pilot, app, lambda t: "New benchmark run" not in t, "the form closed")

        # OSDs at 120 columns: the latency trend whole on screen (its newest cells are its right end), before
        # the flags.
        await pilot.press(TAB_KEYS["osds"])
        text = await until(pilot, app, lambda t: re.search(r"osd\.2\s+up in", t), "the OSD rows at 120x36")
        header = next((line for line in text.splitlines() if re.search(r"\bname\s+status\b", line)), "")
        assert re.search(r"lat c/a\s+trend\s+flags", header), text
        assert header.index("trend") + 12 < header.rindex("│"), header  # its 12 cells inside the box
