"""The TUI driven through Pilot against the real sandbox cluster."""
from __future__ import annotations

import time

from textual.widgets import TabbedContent

from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.widgets.statusbar import StatusBar
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, cells, plain, text_of, wait_for


async def test_health_pane_shows_ok_and_osd_counts(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
        bar = plain(app.query_one(StatusBar).content)
        assert " OK " in bar and "connected" in bar
        assert sandbox.ceph("fsid")["fsid"][:8] in bar
        services = text_of(app, "#health-services")
        assert "3 osds: 3 up, 3 in" in services
        assert "1/1 in quorum" in services and "x active" in services
        assert "No health checks raised" in text_of(app, "#health-checks")
        assert "rbd" in cells(app, "#health-pools", 0)


async def test_osd_down_turns_warn_and_degrades_pgs_then_recovers(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.query_one(StatusBar).badge == "OK", 15, "HEALTH_OK")
            sandbox.kill("osd.2")
            await wait_for(pilot, lambda: app.query_one(StatusBar).badge == "WARN", 30, "the WARN badge")
            await wait_for(pilot, lambda: "OSD_DOWN" in text_of(app, "#health-checks"), 30, "the OSD_DOWN check")
            assert "osd.2" in text_of(app, "#health-checks")
            await wait_for(pilot, lambda: "2 up" in text_of(app, "#health-services"), 10, "2 OSDs up")

            await pilot.press("2")
            assert app.query_one(TabbedContent).active == "pgs"

            def degraded_shown() -> bool:
                states = cells(app, "#pgs-states", 2)
                return any("degraded" in s or "undersized" in s for s in states)
            await wait_for(pilot, degraded_shown, 30, "degraded/undersized PGs")
            await wait_for(pilot, lambda: any("undersized" in s for s in cells(app, "#pgs-table", 1)), 30,
                           "undersized rows in the PG table")
            assert "degraded" in text_of(app, "#pgs-recovery")

            sandbox.revive("osd.2")
            await wait_for(pilot, lambda: app.query_one(StatusBar).badge == "OK", 60, "HEALTH_OK again")
            await wait_for(pilot, lambda: set(cells(app, "#pgs-states", 2)) == {"active+clean"}, 60,
                           "all PGs active+clean")
    finally:
        sandbox.heal()


async def test_mon_down_keeps_ui_alive_and_reconnects(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.connected is True, 10, "connected")
            # A snapshot while the Health tab is hidden: it is drawn when opened again, during the outage.
            await pilot.press("2")
            shown = app.snapshot
            await wait_for(pilot, lambda: app.snapshot is not shown, 10, "a snapshot on the PGs tab")
            sandbox.kill("mon.a")
            bar = app.query_one(StatusBar)
            seen: dict[str, bool] = {}

            def disconnected() -> bool:
                if "disconnected" not in plain(bar.content):
                    return False
                seen["polling"] = app.poller.polling
                return True
            await wait_for(pilot, disconnected, 20, "the disconnected state")
            # Not after librados' 5 s op timeout: the watchdog says so while the poll still waits.
            assert seen["polling"], "disconnected shown only once the poll gave up, not while it waited"
            assert "no answer from the monitors" in plain(bar.content)
            # Keys still work while the poller waits on a dead mon.
            tabs = app.query_one(TabbedContent)
            for key, tab in (("2", "pgs"), ("1", "health"), ("2", "pgs")):
                # A fresh poll waiting on the dead mon (its op timeout is 5 s): the key is handled while it waits.
                await wait_for(pilot, lambda: app.poller.polling and time.monotonic() - app.poller.started < 1, 20,
                               "a poll waiting on the dead mon")
                poll = app.poller.started
                await pilot.press(key)
                assert tabs.active == tab
                assert app.poller.polling and app.poller.started == poll, "the key waited for the poll to end"
            # The last data stays, dimmed under a STALE banner in every tab's body; the Health pane shows
            # no last HEALTH_OK or quorum as if current (issue 16 item 8).
            assert "last seen: 3/3 up" in text_of(app, "#health-services")
            services, status = text_of(app, "#health-services"), text_of(app, "#health-status")
            assert "in quorum" not in services and "HEALTH_OK" not in status.split("last seen")[0]
            assert app.query_one("#tabs").has_class("-stale")
            for banner in app.query(".stale-banner"):
                assert banner.display and "STALE" in plain(banner.content)  # type: ignore[attr-defined]
            await wait_for(pilot, lambda: "data" in plain(bar.content) and "s old" in plain(bar.content), 10,
                           "the age of the data in the status bar")

            sandbox.revive("mon.a")
            await wait_for(pilot, lambda: app.connected is True and "connected" in plain(bar.content)
                           and "disconnected" not in plain(bar.content), 45, "reconnection")
            assert not app.query_one("#tabs").has_class("-stale")
            await pilot.press("1")
            await wait_for(pilot, lambda: "1/1 in quorum" in text_of(app, "#health-services"), 10, "quorum again")
    finally:
        sandbox.heal()


async def test_dead_mgr_is_a_state_not_a_disconnect(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.connected is True, 10, "connected")
            sandbox.kill("mgr.x")
            bar = app.query_one(StatusBar)
            # First the mgr stops answering (a note), then the mon declares it gone (MGR_DOWN).
            await wait_for(pilot, lambda: any("mgr" in n for n in app.snapshot.notes), 45, "a note about the mgr")
            assert app.connected is True and "disconnected" not in plain(bar.content)
            assert "⚠" in text_of(app, "#health-status")
            # Mgr-backed panes say so; mon-backed ones keep working (the OSD tree is the mon's).
            await pilot.press("2")
            assert app.query_one(TabbedContent).active == "pgs"
            box = app.query_one("#pgs-table-box")
            await wait_for(pilot, lambda: "PG list unavailable" in str(box.border_subtitle), 30,
                           "the PGs tab saying its list is not current")
            assert "mgr" in str(box.border_subtitle)
            await pilot.press("3")
            await wait_for(pilot, lambda: "usage and latency unavailable" in text_of(app, "#osds-summary"), 30,
                           "the OSDs tab saying usage comes from the mgr")
            assert app.pane(OSDsPane).vtable.row_count > 0  # the tree itself, from the mon
            sandbox.revive("mgr.x")
            await wait_for(pilot, lambda: app.snapshot.mgr.available and not app.snapshot.notes, 60,
                           "the mgr back and no notes")
            assert "x active" in text_of(app, "#health-services")
    finally:
        sandbox.heal()
