"""History through the real app on a sandbox: `cephtui record` keeps it while no UI is open, a UI started
afterwards shows it (sparklines, the OSDs' trends, the timeline with the cluster log, the time cursor), and
the UI's own recorder writes the same file beside it without counting an interval twice."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cephtui.ceph.history.model import INTERVAL
from cephtui.ceph.history.store import HistoryStore, history_path
from cephtui.ceph.snapshot.parse import parse_stamp
from cephtui.paths import data_dir
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.timeline import TimelineScreen
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, open_screen, plain, show_tab, text_of, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _wait(cond: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"not within {timeout:.0f}s: {what}"
        time.sleep(0.2)


def _events(store: HistoryStore, since: float) -> list[tuple[str, str]]:
    """The changes recorded since `since` (the session's data directory holds earlier tests' too)."""
    return [(e.code, e.change) for e in store.events(since, time.time() + 60)]


@pytest.mark.tier  # the recorder reads `status`, `log last`, `osd perf`, `osd pool stats`: every release's JSON
async def test_recorded_history_is_shown_after_a_restart(sandbox: Sandbox, make_app: Callable[..., CephTUI]) -> None:
    fsid = sandbox.ceph("fsid")["fsid"]
    path = history_path(data_dir(), fsid)
    rec = subprocess.Popen([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "record"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert rec.stdout is not None
        said = rec.stdout.readline()  # printed once its first sample is written: the file's open checks are now
        assert "recording cluster" in said, said  # the cluster's, whatever an earlier test's app left there
        store = HistoryStore(path, fsid)
        first = time.time()
        sandbox.ceph("osd", "set", "noout")  # OSDMAP_FLAGS raised …
        try:
            _wait(lambda: ("OSDMAP_FLAGS", "raised") in _events(store, first), 60, "OSDMAP_FLAGS raised in the history")
        finally:
            sandbox.ceph("osd", "unset", "noout")  # … and cleared
        _wait(lambda: ("OSDMAP_FLAGS", "cleared") in _events(store, first), 60, "OSDMAP_FLAGS cleared in the history")
        # Each change at the moment the mon logged it, not when the recorder next looked (up to 5 s later). The
        # mon commits its log a moment after the change, so the line may reach the recorder a sample later.
        def logged() -> dict[str, float | None]:
            return {e["message"]: parse_stamp(e["stamp"]) for e in sandbox.ceph("log", "last", "200", "info", "cluster")
                    if (parse_stamp(e["stamp"]) or 0) >= first - 1}  # newest last: the dict keeps the newest

        def stamped() -> bool:
            events = {(e.code, e.change): e.t for e in store.events(first, time.time() + 60)}
            lines = logged()
            return (events.get(("OSDMAP_FLAGS", "raised"))
                    == lines.get("Health check failed: noout flag(s) set (OSDMAP_FLAGS)", -1)
                    and events.get(("OSDMAP_FLAGS", "cleared"))
                    == lines.get("Health check cleared: OSDMAP_FLAGS (was: noout flag(s) set)", -1))
        _wait(stamped, 30, "the raise and the clear at the mon's own log stamps")
        _wait(lambda: len(store.cluster_frames(first - 60, time.time(), tier=0)) >= 3, 60, "three samples")
    finally:
        rec.send_signal(signal.SIGTERM)
        out, err = rec.communicate(timeout=30)
    assert rec.returncode == 0, err
    assert "stopped:" in out
    # The session's data directory is shared: earlier tests' apps recorded this sandbox too. What this
    # recorder wrote is what the Health tab must show now.
    recorded = [t for t, _ in store.cluster_frames(first - 30, time.time(), tier=0)]

    app = make_app(history=True)
    async with app.run_test(size=SIZE) as pilot:
        def shown() -> bool:
            view = app.history.view
            return view is not None and set(recorded) <= {t for t, _ in view.series.get("write_bps", [])}

        await wait_for(pilot, shown, 30, "the recorded history in the Health tab")
        box = text_of(app, "#health-history")
        assert "wr" in box and "max" in box and "▁" in box, box
        assert "15m" in str(app.query_one("#health-history").border_subtitle)

        await pilot.press("w")  # the window: 1 h
        await wait_for(pilot, lambda: app.history.view is not None and app.history.view.window == 3600, 15,
                       "the 1 h window")

        screen = await open_screen(pilot, "t", TimelineScreen, what="the timeline")
        await wait_for(pilot, lambda: len(screen.events) >= 2, 15, "the timeline's events")
        changes = [(e.code, e.change) for e in screen.events]
        assert changes.index(("OSDMAP_FLAGS", "cleared")) < changes.index(("OSDMAP_FLAGS", "raised"))  # newest first
        raised = next(i for i, e in enumerate(screen.events) if (e.code, e.change) == ("OSDMAP_FLAGS", "raised"))
        await pilot.press(*["down"] * raised)
        await wait_for(pilot, lambda: "noout" in plain(screen.query_one("#timeline-log").content), 15,
                       "the cluster log around the moment noout was set")
        moment = screen.events[raised].t
        await pilot.press("enter")  # the time cursor to that moment
        await wait_for(pilot, lambda: app.history.view is not None and app.history.view.at is not None, 15,
                       "the cluster at the cursor")
        assert app.history.cursor == moment
        await wait_for(pilot, lambda: "OSDMAP_FLAGS" in text_of(app, "#health-history"), 15,
                       "the checks raised then")
        assert "⏪" in text_of(app, "#health-history")

        await show_tab(pilot, "3", "osds")
        pane = app.query_one(OSDsPane)
        await wait_for(pilot, lambda: pane.history_view is not None and len(pane.history_view.osd_trend) == 3, 20,
                       "the OSDs' latency trends")
        assert "⏪" in str(app.query_one("#osds-box").border_title)
        await pilot.press(*["right_square_bracket"] * 5)  # forward past now (a step is a minute at least): live again
        await wait_for(pilot, lambda: app.history.cursor is None and app.history.view is not None
                       and app.history.view.at is None, 15, "back to now")

    # The UI recorded beside `cephtui record` on the same file: one row per interval, the file whole.
    rows = store.cluster_frames(first - 30, time.time(), tier=0)
    assert len(rows) == len({t for t, _ in rows}) > len(recorded)
    assert all(b - a >= INTERVAL for (a, _), (b, _) in zip(rows, rows[1:]))
    assert store.integrity() == "ok"
