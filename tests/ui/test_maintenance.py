"""Maintenance tab through Pilot on the real cluster: maintenance mode, the flags manager, the header banner."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cephtui.ceph.workflows.maintenance import KIND
from cephtui.ceph.workflows.store import PREFIX
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.maintenance import MaintenancePane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.maintenance_preflight import PreflightScreen
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.widgets.statusbar import StatusBar
from tests.conftest import Sandbox, wait_until
from tests.ui.helpers import SIZE, click, plain, text_of, wait_for, wait_screen


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Maintenance records go to a temporary state dir, never the developer's own."""
    d = tmp_path / "state"
    monkeypatch.setenv("CEPHTUI_STATE_DIR", str(d))
    return d


def host_of(sandbox: Sandbox) -> str:
    return next(n["name"] for n in sandbox.ceph("osd", "tree")["nodes"] if n["type"] == "host")


def dump_flags(sandbox: Sandbox) -> tuple[set[str], dict]:
    d = sandbox.ceph("osd", "dump")
    return set(d.get("flags_set") or d["flags"].split(",")), d.get("crush_node_flags") or {}


def bar_text(app: CephTUI) -> str:
    return plain(app.query_one(StatusBar).content)


def stored(sandbox: Sandbox) -> list[dict]:
    """The maintenance records as the real CLI sees them in the cluster."""
    raw = sandbox.ceph("config-key", "dump", f"{PREFIX}/{KIND}/") or {}
    return [json.loads(v) for v in raw.values()]


def one(records: list[dict], cond) -> dict:
    found = [r for r in records if cond(r)]
    assert len(found) == 1, found
    return found[0]


def cleanup(sandbox: Sandbox, host: str) -> None:
    for flag in ("noscrub", "nodeep-scrub", "norebalance"):
        sandbox.ceph("osd", "unset", flag)
    sandbox.ceph("osd", "unset-group", "noout", host)
    for key in sandbox.ceph("config-key", "dump", f"{PREFIX}/") or {}:  # no test leaves a workflow behind
        sandbox.ceph("config-key", "rm", key)


async def open_tab(app: CephTUI, pilot: Pilot) -> None:
    await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
    await pilot.press("7")
    await wait_for(pilot, lambda: app.pane(MaintenancePane).ftable.row_count >= 12, 5, "the flags table")


async def confirm_and_run(app: CephTUI, pilot: Pilot, expect_cli: str) -> str:
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the confirm dialog")
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    assert expect_cli in text_of(app, "#confirm-commands")
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.state == "done", 20, "the commands' answers")
    result = text_of(app, "#confirm-result")
    assert screen.outcome.ok, f"{expect_cli}: {result}"
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "the dialog closed")
    return result


async def enter_host_maintenance(app: CephTUI, pilot: Pilot, host: str) -> None:
    """e, keep the defaults (the only host; noscrub + nodeep-scrub), accept the ok-to-stop refusal, run."""
    await pilot.press("e")
    await wait_screen(pilot, FormScreen, 10, "the enter form")
    await pilot.press("enter")
    # The sandbox's only host holds every replica: ok-to-stop refuses, and says why.
    await wait_for(pilot, lambda: isinstance(app.screen, PreflightScreen), 15, "the ok-to-stop refusal")
    assert "unsafe to stop" in text_of(app, "#preflight-text") and "Nothing has been changed" in text_of(
        app, "#preflight-text")
    await click(pilot, "#preflight-continue")
    result = await confirm_and_run(app, pilot, f"$ ceph osd set-group noout {host}")
    assert "✖" not in result


@pytest.mark.tier
async def test_enter_and_exit_restore_exactly_their_own_flags(make_app, sandbox: Sandbox, state_dir: Path) -> None:
    host = host_of(sandbox)
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await open_tab(app, pilot)
            sandbox.ceph("osd", "set", "nodeep-scrub")  # someone else's flag, set before the maintenance
            await wait_for(pilot, lambda: "nodeep-scrub since" in bar_text(app), 10, "the hand-set flag in the banner")

            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), 10, "the enter form")
            status = text_of(app, "#form-status")
            assert f"$ ceph osd set-group noout {host}" in status and "$ ceph osd set noscrub" in status
            assert "set nodeep-scrub" not in status  # already set: not ours to set, nor to unset later
            assert "already set by someone else, left alone now and at exit: nodeep-scrub" in status
            await pilot.press("escape")
            await enter_host_maintenance(app, pilot, host)

            flags, nodes = dump_flags(sandbox)
            assert nodes == {host: ["noout"]} and {"noscrub", "nodeep-scrub"} <= flags and "noout" not in flags
            record = one(stored(sandbox), lambda r: r["state"] == "active")  # in the cluster, for every cephtui
            assert record["target"]["host"] == host and record["_cephtui"]["started_by"] == app.workflow_store.me
            assert record["flags_set"] == [{"flag": "noout", "scope": host}, {"flag": "noscrub", "scope": ""}]
            assert record["flags_kept"] == [{"flag": "nodeep-scrub", "scope": ""}]

            # The header: the maintenance with its flags, and the other flag with its own since-time.
            await wait_for(pilot, lambda: f"maintenance: host {host} since" in bar_text(app), 10, "the banner")
            # Who set the other flag comes from the mons' audit channel (set with the CLI's argparse above).
            await wait_for(pilot, lambda: "nodeep-scrub since" in bar_text(app) and "(by client.admin)" in bar_text(
                app), 20, "the other flag's setter in the banner")
            assert "+noscrub" in bar_text(app)
            howto = text_of(app, "#maint-howto")
            assert "systemctl stop ceph-osd@0 ceph-osd@1 ceph-osd@2" in howto
            assert f"ceph orch host maintenance enter {host}" in howto

            await pilot.press("x")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the exit dialog")
            assert "Leaves alone (set by someone else): nodeep-scrub" in text_of(app, "#confirm-commands")
            assert "unset nodeep-scrub" not in text_of(app, "#confirm-commands")
            await confirm_and_run(app, pilot, f"$ ceph osd unset-group noout {host}")

            flags, nodes = dump_flags(sandbox)
            assert nodes == {} and "noscrub" not in flags
            assert "nodeep-scrub" in flags  # someone else's flag survives
            await wait_for(pilot, lambda: "maintenance:" not in bar_text(app), 10, "the maintenance off the banner")
            assert "nodeep-scrub since" in bar_text(app)
            assert app.pane(MaintenancePane).mtable.row_count == 0
            assert one(stored(sandbox), lambda r: r["id"] == record["id"])["state"] == "done"
    finally:
        cleanup(sandbox, host)


@pytest.mark.tier
async def test_flags_manager_sets_and_unsets_with_confirmation(make_app, sandbox: Sandbox) -> None:
    host = host_of(sandbox)
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await open_tab(app, pilot)
            assert "⚑" not in bar_text(app)
            pane = app.pane(MaintenancePane)
            row = next(i for i, r in enumerate(pane.ftable.rows) if r.flag == "norebalance" and not r.scope)
            await pilot.press("home", *["down"] * row)
            assert pane.selected_flag() is not None and pane.selected_flag().flag == "norebalance"

            await pilot.press("u")  # not set: nothing to do, nothing asked
            assert not isinstance(app.screen, ConfirmScreen)
            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirm dialog")
            assert "no backfill of merely misplaced PGs" in text_of(app, "#confirm-commands")
            assert "norebalance is set" in await confirm_and_run(app, pilot, "$ ceph osd set norebalance")
            assert "norebalance" in dump_flags(sandbox)[0]
            await wait_for(pilot, lambda: "norebalance since" in bar_text(app), 10, "the flag in the banner")
            await wait_for(pilot, lambda: pane.selected_flag().is_set, 10, "the flag shown set")
            assert "set" in plain(pane.ftable.get_row_at(row)[2])

            await pilot.press("enter")  # toggle: unset
            assert "norebalance is unset" in await confirm_and_run(app, pilot, "$ ceph osd unset norebalance")
            assert "norebalance" not in dump_flags(sandbox)[0]
            await wait_for(pilot, lambda: "⚑" not in bar_text(app), 10, "the banner gone")
    finally:
        cleanup(sandbox, host)


async def test_a_restarted_app_still_knows_the_maintenance_and_can_exit_it(make_app, sandbox: Sandbox,
                                                                           state_dir: Path) -> None:
    host = host_of(sandbox)
    try:
        first = make_app()
        async with first.run_test(size=SIZE) as pilot:
            await open_tab(first, pilot)
            await enter_host_maintenance(first, pilot, host)
        assert dump_flags(sandbox)[1] == {host: ["noout"]}

        second = make_app()  # a new cephtui: only the cluster's record remembers
        async with second.run_test(size=SIZE) as pilot:
            await open_tab(second, pilot)
            pane = second.pane(MaintenancePane)
            await wait_for(pilot, lambda: pane.mtable.row_count == 1, 10, "the maintenance read from the cluster")
            assert pane.selected_maintenance().target.host == host
            await wait_for(pilot, lambda: f"maintenance: host {host}" in bar_text(second), 10, "the banner")
            await pilot.press("x")
            await confirm_and_run(second, pilot, f"$ ceph osd unset-group noout {host}")
            flags, nodes = dump_flags(sandbox)
            assert nodes == {} and not {"noscrub", "nodeep-scrub"} & flags
            assert pane.mtable.row_count == 0
            await wait_for(pilot, lambda: "⚑" not in bar_text(second), 10, "the banner gone")
    finally:
        cleanup(sandbox, host)


def osd_state(sandbox: Sandbox, osd: int) -> list[str]:
    return next(o["state"] for o in sandbox.ceph("osd", "dump")["osds"] if o["osd"] == osd)


async def test_osd_maintenance_with_a_stopped_osd(make_app, sandbox: Sandbox, state_dir: Path) -> None:
    """One OSD: ok-to-stop agrees, noout is scoped to that OSD, exit warns while it is still down."""
    host = host_of(sandbox)
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await open_tab(app, pilot)
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), 10, "the enter form")
            await pilot.press("ctrl+u", *"osd.0", "tab", "ctrl+u", *"none")
            status = text_of(app, "#form-status")
            assert "$ ceph osd set-group noout osd.0" in status and "osd set noscrub" not in status
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the confirm dialog")
            assert "✔ ok-to-stop: yes for osd.0" in text_of(app, "#confirm-commands")
            await confirm_and_run(app, pilot, "$ ceph osd set-group noout osd.0")
            # Read until the osdmap has it: when librados replaced its mon session meanwhile (README, *Changing the
            # cluster*), the mon ran the command twice, and a reply can come before the second run is committed.
            wait_until(lambda: "noout" in osd_state(sandbox, 0), 15, "noout on osd.0 in the osdmap")
            assert dump_flags(sandbox)[1] == {}
            assert "systemctl stop ceph-osd@0" in text_of(app, "#maint-howto")

            sandbox.kill("osd.0")  # what the admin does on the host
            await wait_for(pilot, lambda: app.snapshot.osds.up == 2, 30, "osd.0 down")
            await pilot.press("x")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the exit dialog")
            assert "osd.0 still down" in text_of(app, "#confirm-commands")
            await pilot.press("escape")  # start it first, as the dialog says
            assert app.pane(MaintenancePane).mtable.row_count == 1
            assert app.pane(MaintenancePane).selected_maintenance().state == "active"

            sandbox.revive("osd.0")
            await wait_for(pilot, lambda: app.snapshot.osds.up == 3, 60, "osd.0 up again")
            await pilot.press("x")
            await confirm_and_run(app, pilot, "$ ceph osd unset-group noout osd.0")
            wait_until(lambda: "noout" not in osd_state(sandbox, 0), 15, "noout gone from osd.0 in the osdmap")
            assert app.pane(MaintenancePane).mtable.row_count == 0
    finally:
        sandbox.ceph("osd", "unset-group", "noout", "osd.0")
        cleanup(sandbox, host)
        sandbox.heal()
