"""A maintenance lives in the cluster: another cephtui, with another HOME (another admin, or the same one after
ssh dropped and they logged in on another mon node), sees it, counts it in the header, can end it, and refuses
a removal of its OSDs at the form, before any typed name. Real sandbox, Pilot, Ceph's default settings."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.workflows.removal import KIND as REMOVAL
from cephtui.ceph.workflows.removal import Removal
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.maintenance import MaintenancePane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.removal import PlanScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, click, text_of, wait_for, wait_screen
from tests.ui.test_maintenance import bar_text, cleanup, confirm_and_run, host_of, one, open_tab, stored

# "since when" as store.short_time writes it: HH:MM today, and with the date once midnight has passed in
# between (a run across midnight failed here on the bare HH:MM).
SINCE = r"(?:\d{4}-\d\d-\d\d )?\d\d:\d\d"


@contextmanager
def connected(sandbox: Sandbox) -> Iterator[CephClient]:
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    try:
        yield client
    finally:
        client.close()


def as_admin(monkeypatch: pytest.MonkeyPatch, home: Path, user: str) -> None:
    """What a login as `user` with HOME `home` gives cephtui: its own state dir, audit log and login name."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CEPHTUI_STATE_DIR", str(home / ".local/state/cephtui"))
    monkeypatch.setenv("CEPHTUI_AUDIT_LOG", str(home / ".local/state/cephtui/audit.log"))
    monkeypatch.setenv("USER", user)
    monkeypatch.setenv("LOGNAME", user)


async def enter_osd_maintenance(app: CephTUI, pilot: Pilot, osd: int) -> None:
    """e, osd.N with no extra flags: ok-to-stop agrees for one OSD of three; run."""
    await pilot.press("e")
    await wait_screen(pilot, FormScreen, 10, "the enter form")
    await pilot.press("ctrl+u", *f"osd.{osd}", "tab", "ctrl+u", *"none")
    await pilot.press("enter")
    await confirm_and_run(app, pilot, f"$ ceph osd set-group noout osd.{osd}")


async def try_removal_form(app: CephTUI, pilot: Pilot, osd: int) -> FormScreen:
    """X on osd.N in the OSDs tab: the form, as it opens."""
    await pilot.press("3")
    await wait_for(pilot, lambda: any(r.is_osd and r.node.id == osd for r in app.pane(OSDsPane).vtable.rows), 15,
                   f"osd.{osd} in the tree")
    rows = app.pane(OSDsPane).vtable.rows
    await pilot.press("home", *["down"] * next(i for i, r in enumerate(rows) if r.is_osd and r.node.id == osd))
    await pilot.press("X")
    return await wait_screen(pilot, FormScreen, 10, "the removal form")


async def test_another_home_sees_counts_and_ends_the_maintenance_and_refuses_its_removal(
        make_app, sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = host_of(sandbox)
    try:
        as_admin(monkeypatch, tmp_path / "alice", "alice")
        first = make_app()
        async with first.run_test(size=SIZE) as pilot:
            await open_tab(first, pilot)
            await enter_osd_maintenance(first, pilot, 1)
            mid = first.pane(MaintenancePane).selected_maintenance().id
        record = one(stored(sandbox), lambda r: r["id"] == mid)
        assert record["state"] == "active" and record["_cephtui"]["started_by"].startswith("alice@")
        assert not (tmp_path / "bob").exists()

        as_admin(monkeypatch, tmp_path / "bob", "bob")  # ssh dropped: another login, nothing of alice's on disk
        second = make_app()
        async with second.run_test(size=SIZE) as pilot:
            await open_tab(second, pilot)
            pane = second.pane(MaintenancePane)
            await wait_for(pilot, lambda: pane.mtable.row_count == 1, 15, "alice's maintenance, read from the cluster")
            m = pane.selected_maintenance()
            assert m.id == mid and m.starter.startswith("alice@") and m.owned == (("noout", "osd.1"),)
            assert "1 maintenance in progress" in text_of(second, "#maint-summary")
            await wait_for(pilot, lambda: "maintenance: osd.1 since" in bar_text(second), 10, "the header banner")
            # Its own flag is the maintenance's, not "someone else's". The flags come with the first snapshot,
            # which can follow the records and the banner.
            await wait_for(pilot, lambda: any(r.key == ("noout", "osd.1") for r in pane.ftable.rows), 15,
                           "the noout osd.1 row in the flags table")
            row = next(r for r in pane.ftable.rows if r.key == ("noout", "osd.1"))
            assert row.owner.startswith("maintenance osd.1") and "alice@" in row.owner

            # A removal of osd.1 is refused at the form, at once: which workflow, by whom, since when.
            form = await try_removal_form(second, pilot, 1)
            started = re.escape(f"started by {m.starter} at ")
            await wait_for(pilot, lambda: re.search(rf"osd\.1 already in workflow {mid} \(maintenance of osd\.1, "
                                                    rf"active, {started}{SINCE}\)", text_of(second, "#form-status")),
                           10, "the conflict named in the form")
            assert "end that maintenance first" in text_of(second, "#form-status")
            await click(pilot, "#form-ok")  # Next: refused, the plan (and its typed name) never comes
            await pilot.pause()
            assert second.screen is form and not second.removals.engines
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(second.screen, FormScreen), 5, "the form closed")
            # The plan asks the cluster again (a maintenance begun after the form opened): a blocker no override lifts.
            plan = PlanScreen(Removal(osds=[1]), second.client)
            second.push_screen(plan)
            await wait_for(pilot, lambda: plan.checks is not None, 60, "the plan's preflight")
            held = next(c for c in plan.checks if c.name == "workflow")
            assert held.level == "block" and not held.override and f"already in workflow {mid}" in held.detail
            assert "workflow must be fixed first" in plan.refusal()
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(second.screen, PlanScreen), 5, "the plan closed")

            await pilot.press("7")
            await wait_for(pilot, lambda: pane.mtable.row_count == 1, 5, "the maintenance table")
            await pilot.press("x")
            await confirm_and_run(second, pilot, "$ ceph osd unset-group noout osd.1")
            osd1 = next(o for o in sandbox.ceph("osd", "dump")["osds"] if o["osd"] == 1)
            assert "noout" not in osd1["state"]
            done = one(stored(sandbox), lambda r: r["id"] == mid)
            assert done["state"] == "done" and done["_cephtui"]["driven_by"].startswith("bob@")
            assert done["_cephtui"]["started_by"].startswith("alice@")
            await wait_for(pilot, lambda: "maintenance:" not in bar_text(second), 10, "the banner cleared")
    finally:
        sandbox.ceph("osd", "unset-group", "noout", "osd.1")
        cleanup(sandbox, host)


async def test_maintenance_of_an_osd_in_a_removal_is_refused_at_the_form(
        make_app, sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A removal another machine saved in the cluster's queue (not running here): the maintenance form names
    it as osd.2 is typed, and Next goes nowhere; nothing is set."""
    host = host_of(sandbox)
    as_admin(monkeypatch, tmp_path / "carol", "carol")
    removal = Removal(osds=[2])
    try:
        with connected(sandbox) as client:
            colleague = WorkflowStore(tmp_path / "carol-state", client=client)
            colleague.save(REMOVAL, removal.id, removal.to_json())
        as_admin(monkeypatch, tmp_path / "dave", "dave")
        before = sandbox.ceph("osd", "dump")
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await open_tab(app, pilot)
            await pilot.press("e")
            form = await wait_screen(pilot, FormScreen, 10, "the enter form")
            await pilot.press("ctrl+u", *"osd.2", "tab", "ctrl+u", *"none")
            started = re.escape(f"started by {colleague.me} at ")
            await wait_for(pilot, lambda: re.search(rf"osd\.2 already in workflow {removal.id} \(removal at preflight, "
                                                    rf"\w+, {started}{SINCE}\)", text_of(app, "#form-status")),
                           10, "the removal named in the form")
            assert "resume or abort that removal first" in text_of(app, "#form-status")
            await click(pilot, "#form-ok")
            await pilot.pause()
            assert app.screen is form  # no ok-to-stop asked, no confirm dialog
            await pilot.press("escape")
        after = sandbox.ceph("osd", "dump")
        assert after["flags"] == before["flags"] and after["osds"] == before["osds"]
        assert not [r for r in stored(sandbox) if 2 in r.get("osds", [])]
    finally:
        cleanup(sandbox, host)
