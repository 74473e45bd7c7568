"""The Health tab in an 80x24 terminal on the sandbox: the cluster log's lines carry their text inside the box
(RichLog drew each line at least 78 columns wide, so a 26-column box showed the stamp and the daemon, and
the text was cut off)."""
from __future__ import annotations

from textual.widgets import RichLog

from cephtui.ui.panes.health import HealthPane
from tests.conftest import Sandbox
from tests.ui.helpers import wait_for


async def test_the_cluster_log_fits_its_box_at_80_columns(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            pane = app.query_one(HealthPane)
            await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
            written = pane.log_written
            sandbox.ceph("osd", "set", "noout")  # a long line: "Health check failed: noout flag(s) set …"
            await wait_for(pilot, lambda: pane.log_written > written and app.snapshot is not None
                           and "noout" in app.snapshot.log[-1].message, 30, "the mon's line about noout")
            log = app.query_one("#health-log", RichLog)
            width = log.scrollable_content_region.width
            assert 20 <= width < 60, width
            entry = app.snapshot.log[-1]
            drawn = [strip.text.rstrip() for strip in log.lines]
            assert all(len(line) <= width for line in drawn), (width, drawn)
            words = " ".join(" ".join(drawn).split())
            # The newest entry's whole text after its stamp; a mon's name left out to give the text room.
            assert " ".join(f"{entry.stamp[11:19]} {entry.priority} {entry.message}".split()) in words, \
                (entry, drawn)
    finally:
        sandbox.ceph("osd", "unset", "noout")
