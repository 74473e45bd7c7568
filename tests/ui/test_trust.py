"""Trust on the real cluster: --read-only, least-privilege identities, the Activity pane, secrets.

Every check compares with what the cluster itself says (`ceph osd dump` epoch,
`ceph auth ls`), never with what cephtui believes it did.
"""
from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable

from cephtui.ceph import ops
from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephError, CephReadOnly
from cephtui.ui.app import TABS, CephTUI
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.panes.pgs import PGsPane
from cephtui.ui.panes.users import UsersPane
from cephtui.ui.readonly import GuardedActions
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.tabs import NUMBER_KEYS, number_key
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, plain, show_tab, text_of, wait_for, wait_screen
from tests.ui.test_osds import audit_lines, confirm_and_run, cursor_to, open_osds


def fingerprint(sandbox: Sandbox) -> tuple:
    """What an action of cephtui could change. Not the osdmap epoch: pg_temp and recovery move it."""
    d = sandbox.ceph("osd", "dump")
    crush = sandbox.ceph("osd", "crush", "dump")
    return (d["flags"], [(p["pool_name"], p["size"], p["min_size"], p["pg_num"], p["crush_rule"],
                          p["application_metadata"], p["quota_max_bytes"], p["quota_max_objects"]) for p in d["pools"]],
            [(o["osd"], o["in"], o["weight"], o["primary_affinity"]) for o in d["osds"]],
            [(b["name"], b["items"]) for b in crush["buckets"]], crush["rules"], crush["devices"],
            sandbox.ceph("auth", "ls")["auth_dump"])


def mutating_keys(pane: GuardedActions) -> list[tuple[str, str]]:
    """(key, action) for every binding of the pane whose action is declared mutating."""
    out = []
    for b in type(pane).BINDINGS:  # type: ignore[attr-defined]
        if b.action in pane.MUTATING:
            out.append((b.key.split(",")[0], b.action))
    return out


async def test_read_only_mode_sends_nothing_and_says_why(sandbox: Sandbox, audit_log: Path) -> None:
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=5)).connect()
    before_fp = fingerprint(sandbox)
    before = len(audit_lines(audit_log))
    app = CephTUI(client=client, refresh=1.0, read_only=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
            assert "READ-ONLY" in plain(app.statusbar.content)
            tried = 0
            for i, (tab, _title) in enumerate(TABS, 1):
                pane = next(p for p in app.panes if p.parent is not None and p.parent.id == tab)
                if not isinstance(pane, GuardedActions):
                    continue
                await show_tab(pilot, number_key(i) if i <= NUMBER_KEYS else "", tab)
                for key, action in mutating_keys(pane):
                    assert pane.check_action(action, ()) is None  # dimmed in the footer
                    app.clear_notifications()
                    await pilot.press(key)
                    await wait_for(pilot, lambda: app._notifications, 5, f"{tab}: what {key} ({action}) says")
                    assert app.screen is app.screen_stack[0], f"{tab}: {key} ({action}) opened {app.screen}"
                    said = [n.message for n in app._notifications]
                    assert any("Read-only mode" in m and "--read-only" in m for m in said), (tab, key, said)
                    tried += 1
            assert tried >= 30  # every pane's mutating keys, not a sample
            # The digit of the tab already shown keeps its keys working (it used to drop focus).
            await pilot.press("3")
            await show_tab(pilot, "3", "osds")  # the second press: the focus stays on the pane
            app.clear_notifications()
            await pilot.press("o")
            await wait_for(pilot, lambda: app._notifications, 5, "what o says")
            assert any("marking OSDs out" in n.message for n in app._notifications)
            # The command palette's entries for the tabs' actions take the same guard.
            app.clear_notifications()
            app._pane_action("bench", app.pane(BenchPane), "new_run")
            await wait_for(pilot, lambda: app._notifications, 5, "what the palette's new run says")
            assert app.screen is app.screen_stack[0]
            assert any("Read-only mode" in n.message for n in app._notifications)
            # A path that forgot the guard still cannot write: the client refuses by the cluster's table.
            app.confirm_operations([ops.osd_out([0])])
            assert app.screen is app.screen_stack[0]
            with pytest.raises(CephReadOnly, match="read-only"):
                client.mon_raw("osd set", key="noout")
            with pytest.raises(CephReadOnly):
                client.osd_tell(0, "bench", count=4096, size=4096)
            # A command the cluster does not know is not sent either, and is said as unknown, not as mutating.
            with pytest.raises(CephError, match="does not know") as unknown:
                client.mon_raw("osd frobnicate")
            assert not isinstance(unknown.value, CephReadOnly)
            # Reading still works on every tab.
            await pilot.press("2")
            await wait_for(pilot, lambda: app.pane(PGsPane).query_one("#pgs-table").row_count > 0, 15, "the PG table")
            await pilot.press("6")
            await wait_for(pilot, lambda: app.pane(UsersPane).entities, 15, "the users")
            await pilot.press("9")
            await wait_for(pilot, lambda: "read-only session" in text_of(app, "#activity-summary"), 10,
                           "the activity summary")
    finally:
        client.close()
    assert fingerprint(sandbox) == before_fp
    assert len(audit_lines(audit_log)) == before


@pytest.fixture
def limited(sandbox: Sandbox, tmp_path: Path) -> Iterator[dict[str, Path]]:
    """client.ro with mon 'allow r', client.romgr with mon 'allow r' mgr 'allow r': keyrings 0600."""
    made: dict[str, Path] = {}
    for name, caps in (("ro", ["mon", "allow r"]), ("romgr", ["mon", "allow r", "mgr", "allow r"])):
        path = tmp_path / f"{name}.keyring"
        subprocess.run(["ceph", "-c", str(sandbox.conf), "auth", "get-or-create", f"client.cephtui-{name}", *caps,
                        "-o", str(path)], check=True, capture_output=True, timeout=60)
        os.chmod(path, 0o600)
        made[f"client.cephtui-{name}"] = path
    try:
        yield made
    finally:
        for name in made:
            subprocess.run(["ceph", "-c", str(sandbox.conf), "auth", "rm", name], capture_output=True, timeout=60)


async def test_least_privilege_identities_say_which_cap_is_missing(sandbox: Sandbox, limited: dict[str, Path],
                                                                   audit_log: Path) -> None:
    before_fp = fingerprint(sandbox)
    for name, keyring in limited.items():
        client = CephClient(ConnectionSpec(conffile=str(sandbox.conf), name=name, keyring=str(keyring),
                                           op_timeout=5)).connect()
        app = CephTUI(client=client, refresh=1.0)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda app=app: app.snapshot is not None, 15, "a first snapshot")
                # Every tab opens and shows what this identity may read; none crashes.
                for i, (tab, _title) in enumerate(TABS, 1):
                    await show_tab(pilot, number_key(i) if i <= NUMBER_KEYS else "", tab)
                    await pilot.pause()
                await pilot.press("6")
                await wait_for(pilot, lambda app=app: "users unavailable" in text_of(app, "#users-summary"), 15,
                               "why the users are missing")
                summary = text_of(app, "#users-summary")
                assert f"{name} may not run `auth ls`" in summary and "mon 'allow rx'" in summary
                await open_osds(app, pilot)
                assert app.pane(OSDsPane).table_data is not None and len(app.pane(OSDsPane).table_data.osds) == 3
                # A mutating action: the mon's refusal, and which cap it needs.
                await cursor_to(app, pilot, 1)
                await pilot.press("o")
                await wait_screen(pilot, ConfirmScreen)
                result = await confirm_and_run(app, pilot, "$ ceph osd out 1")
                assert "access denied" in result and f"{name} may not do this" in result
                assert "`osd out` needs mon 'allow rw'" in result
                entry = audit_lines(audit_log)[-1]
                assert (entry["identity"], entry["rc"], entry["cli"]) == (name, -13, "ceph osd out 1")
                assert app.is_running
        finally:
            client.close()
    assert fingerprint(sandbox) == before_fp  # nothing changed


async def test_activity_pane_lists_and_copies_this_sessions_commands(make_app, sandbox: Sandbox,
                                                                    audit_log: Path) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_osds(app, pilot, at=2)
            await pilot.press("f")  # noout on osd.2, then off again
            await wait_screen(pilot, ConfirmScreen)
            await confirm_and_run(app, pilot, "$ ceph osd add-noout 2")
            app.confirm_operations([ops.osd_reweight(99, "0.5")])  # refused: osd.99 does not exist
            await wait_screen(pilot, ConfirmScreen)
            await confirm_and_run(app, pilot, "$ ceph osd reweight 99 0.5")
            await pilot.press("9")
            table = app.query_one("#activity-table", DataTable)
            await wait_for(pilot, lambda: table.row_count == 2, 5, "two commands")
            rows = [[plain(c).strip() for c in table.get_row_at(i)] for i in range(2)]
            assert rows[0][1:3] == ["✔ 0", "ceph osd add-noout 2"]
            assert rows[1][1].startswith("✖ -") and rows[1][2] == "ceph osd reweight 99 0.5"
            assert "osd.99 does not exist" in rows[1][3]  # the monitor's own words
            assert "2 commands, 1 refused" in str(app.query_one("#activity-box").border_subtitle)
            # The same entries as the audit file: one line per command, identity, fsid and rc.
            tail = audit_lines(audit_log)[-2:]
            fsid = sandbox.ceph("fsid")["fsid"]
            assert [(e["cli"], e["rc"] == 0, e["identity"], e["fsid"]) for e in tail] == [
                ("ceph osd add-noout 2", True, "client.admin", fsid),
                ("ceph osd reweight 99 0.5", False, "client.admin", fsid)]
            assert tail[0]["command"] == {"prefix": "osd add-noout", "ids": ["2"]}
            await pilot.press("c")  # the cursor is on the newest
            assert app.clipboard == "ceph osd reweight 99 0.5"
            await pilot.press("C")
            assert app.clipboard == "ceph osd add-noout 2\nceph osd reweight 99 0.5\n"
            await pilot.press("e")
            state = Path(os.environ["CEPHTUI_STATE_DIR"])
            await wait_for(pilot, lambda: any("ceph osd add-noout 2\n" in f.read_text()
                                              for f in state.glob("session-*.sh")), 5, "the session script")
            scripts = sorted(state.glob("session-*.sh"))
            assert scripts and "ceph osd add-noout 2\n" in scripts[-1].read_text()
            assert stat.S_IMODE(scripts[-1].stat().st_mode) == 0o600
    finally:
        subprocess.run(["ceph", "-c", str(sandbox.conf), "osd", "rm-noout", "osd.2"], capture_output=True,
                       timeout=60)


def test_keys_stay_out_of_errors_and_the_audit_log(sandbox: Sandbox, tmp_path: Path) -> None:
    """The mon echoes a malformed key back in its refusal ("type=key val=AQB…"): masked everywhere."""
    key = subprocess.run(["ceph-authtool", "--gen-print-key"], capture_output=True, text=True, check=True,
                         timeout=30).stdout.strip()[:24]  # cut short: the mon cannot decode it
    audit = ops.AuditLog(tmp_path / "audit.log", entity="client.admin")
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    try:
        op = ops.Operation("Import", "auth import", (), "ceph auth import -i keyring",
                           inbuf=f"[client.cephtui-x]\n\tkey = {key}\n".encode())
        with pytest.raises(CephError) as refused:
            ops.run(client, op, audit)
        assert "Malformed input" in str(refused.value) and key not in str(refused.value)
        assert "[secret redacted]" in refused.value.message
    finally:
        client.close()
    text = (tmp_path / "audit.log").read_text()
    assert key not in text and "Malformed input" in text
    assert stat.S_IMODE((tmp_path / "audit.log").stat().st_mode) == 0o600
    assert audit.session[0]["rc"] == -22
    assert not any(e["entity"] == "client.cephtui-x" for e in sandbox.ceph("auth", "ls")["auth_dump"])
