"""The Health tab's cluster log is wrapped for the box it is in, whatever its width was when a line came: Textual's
RichLog wraps a line once, when it is written, so a line written before the tab's last layout (or before the
admin resized the terminal) kept the old width, cut off behind a scroll bar (the 80x24 snapshot differed between
runs). widgets/cluster_log.py draws the lines again on a change of width."""
from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import RichLog

from tests.look.settle import keys_for, settle

pytestmark = pytest.mark.look


def drawn(log: RichLog) -> list[str]:
    return [strip.text.rstrip() for strip in log.lines]


async def test_the_log_is_wrapped_again_for_a_narrower_terminal(look_app: Any) -> None:
    app = look_app("pacific")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*keys_for("health"))
        await settle(pilot)
        log = app.query_one("#health-log", RichLog)
        wide = drawn(log)
        assert len(wide) == 1 and wide[0].startswith("— live since") and wide[0].endswith("UTC —"), wide
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        width = log.scrollable_content_region.width
        narrow = drawn(log)
        assert width < len(wide[0]), (width, wide)
        assert max(len(line) for line in narrow) <= width, (width, narrow)
        assert " ".join(narrow).split() == wide[0].split(), narrow  # the same words, none lost
        assert log.virtual_size.width <= width, "a horizontal scroll bar for a line that was not wrapped again"
