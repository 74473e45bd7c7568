"""The cluster log floods (over a thousand lines a second): the Health pane keeps going and counts
every line it does not show.

The flood is real: another process sends `ceph log` commands through the sandbox's mon, which
publishes them to cephtui's librados subscription. The mon commits the log through paxos every
paxos_propose_interval (1 s), so the test lowers it for the flood and restores it after.
Performance numbers: scripts/bench_logflood.py (this test only has a generous sanity bound).
"""
from __future__ import annotations

import time

from textual.widgets import RichLog

from cephtui.ui.panes.health import HealthPane
from scripts.bench_logflood import FloodProcess, fast_paxos
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, wait_for


async def test_log_flood_is_shown_or_counted(make_app, sandbox: Sandbox) -> None:
    app = make_app(refresh=1.0)
    gaps: list[float] = []
    fast_paxos(str(sandbox.conf), True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.snapshot is not None and app.cluster_log.started, 15,
                           "a first snapshot and the log subscription")
            pane = app.query_one(HealthPane)
            log = pane.query_one("#health-log", RichLog)
            assert "dropped" not in str(log.border_title)
            last = [time.monotonic()]

            def beat() -> None:
                now = time.monotonic()
                gaps.append(now - last[0])
                last[0] = now
            app.set_interval(0.02, beat)

            flood = FloodProcess(str(sandbox.conf), threads=32, tag="ctflood")
            try:
                # More lines arrive between two polls than the queue holds: drops, and the title says so.
                await wait_for(pilot, lambda: app.cluster_log.dropped > 0 and "lines dropped" in str(log.border_title),
                               40, "the dropped-lines count in the log's title")
                # The flood goes on; the UI keeps refreshing: three more snapshots drawn during it.
                seen = [app.snapshot]

                def refreshed() -> bool:
                    if app.snapshot is not seen[-1]:
                        seen.append(app.snapshot)
                    return len(seen) > 3
                await wait_for(pilot, refreshed, 30, "three refreshes during the flood")
            finally:
                flood.stop()
            assert flood.errors == 0 and flood.sent > 1000, (flood.sent, flood.errors)
            await wait_for(pilot, lambda: app.cluster_log.received >= flood.sent, 30, "every flood line received")
            # Two more polls: the last lines are drained, snapshotted and written.
            polls = app.snapshot.taken_at if app.snapshot else 0
            await wait_for(pilot, lambda: app.snapshot is not None and app.snapshot.taken_at > polls + 1.5, 15,
                           "two more refreshes")
            snap = app.snapshot
            assert snap is not None
            dropped = snap.log_dropped + pane._log_missed
            # Every line received is either written to the pane or counted as dropped.
            assert app.cluster_log.received == pane.log_written + dropped
            assert dropped > 0 and f"{dropped:,} lines dropped" in str(log.border_title)
            # The newest lines are the ones kept: the flood's last line is on screen.
            assert "ctflood" in log.lines[-1].text
            assert snap.log[-1].message.startswith("ctflood")
    finally:
        fast_paxos(str(sandbox.conf), False)
    beats = sorted(gaps[5:])
    print(f"\nheartbeat gaps during the flood: p50 {beats[len(beats) // 2] * 1000:.0f} ms, "
          f"max {beats[-1] * 1000:.0f} ms over {len(beats)} beats")
    assert beats and beats[-1] < 3.0  # a sanity bound only: a frozen UI would show seconds
