"""The flags manager says who set each flag and when, from durable sources, after a restart (a new app, nothing
in memory): a flag this cephtui set, from this host's cephtui audit log; one set with the ceph CLI while no
cephtui ran, long forgotten by the mons' `log last`, from their audit log file on this host. Each with the time
of the osdmap that set it. Real sandbox."""
from __future__ import annotations

import socket
import time

from cephtui.ceph.workflows.maintenance import clock_time
from cephtui.paths import login
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.maintenance import MaintenancePane
from tests.cluster.test_flag_origin import until_log_last_forgets
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, cells, wait_for
from tests.ui.test_maintenance import bar_text, cleanup, confirm_and_run, host_of, open_tab

CLI = "client.admin at 127.0.0.1"


def row_of(app: CephTUI, flag: str):  # type: ignore[no-untyped-def]
    return next(r for r in app.pane(MaintenancePane).ftable.rows if r.key == (flag, ""))


async def test_setters_and_times_survive_a_restart(make_app, sandbox: Sandbox) -> None:
    host = host_of(sandbox)
    me = f"{login()}@{socket.gethostname()} (cephtui)"
    try:
        # Someone with the ceph CLI while no cephtui runs; then enough traffic that `log last` forgets it.
        t1 = time.time()
        sandbox.ceph("osd", "set", "noscrub")
        t2 = time.time()
        until_log_last_forgets(sandbox, "osd set")

        first = make_app()
        async with first.run_test(size=SIZE) as pilot:
            await open_tab(first, pilot)
            await wait_for(pilot, lambda: row_of(first, "noscrub").owner == CLI, 20, "the CLI's flag, by its client")
            pane = first.pane(MaintenancePane)
            i = next(i for i, r in enumerate(pane.ftable.rows) if r.key == ("norebalance", ""))
            await pilot.press("home", *["down"] * i)
            t0 = time.time()
            await pilot.press("s")
            assert "norebalance is set" in await confirm_and_run(first, pilot, "$ ceph osd set norebalance")
            t0_end = time.time()
            await wait_for(pilot, lambda: row_of(first, "norebalance").owner == me, 20, "this cephtui named as setter")
        until_log_last_forgets(sandbox, "osd set")

        second = make_app()  # a restart: only the cluster and the audit logs remember
        async with second.run_test(size=SIZE) as pilot:
            await open_tab(second, pilot)
            await wait_for(pilot, lambda: row_of(second, "norebalance").owner == me, 20, "our own flag, ours")
            await wait_for(pilot, lambda: row_of(second, "noscrub").owner == CLI, 20, "the CLI's flag, by its client")
            ours, theirs = row_of(second, "norebalance"), row_of(second, "noscrub")
            assert "/var/log/ceph/" in theirs.origin.via, theirs.origin  # the mons' audit log file named it
            assert t0 - 1 <= ours.since <= t0_end + 1 and t1 - 1 <= theirs.since <= t2 + 1  # set-times, not start-up
            when = cells(second, "#maint-flags", 3)
            rows = second.pane(MaintenancePane).ftable.rows
            assert when[rows.index(ours)] == clock_time(ours.since) and "≤" not in "".join(when)
            await wait_for(pilot, lambda: f"norebalance since {clock_time(ours.since)} (by {me.split(' (')[0]})"
                           in bar_text(second), 10, "the header with setter and time")
    finally:
        sandbox.ceph("osd", "unset", "norebalance")
        cleanup(sandbox, host)
