"""Users pane through Pilot on the real cluster: create from a template, export, use the key, edit, delete."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import rados
from textual.pilot import Pilot
from textual.widgets import Input, Select

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.users import UsersPane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.users_keys import ExportKeyringScreen, KeyScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, click, plain, press_ready, text_of, wait_for
from tests.ui.test_users_look import open_create_form, open_users, type_into


def entity_exists(sandbox: Sandbox, name: str) -> bool:
    return any(e["entity"] == name for e in sandbox.ceph("auth", "ls")["auth_dump"])


def caps_of(sandbox: Sandbox, name: str) -> dict[str, str]:
    return sandbox.ceph("auth", "get", name)[0]["caps"]


def drop_entity(sandbox: Sandbox, name: str) -> None:
    if entity_exists(sandbox, name):
        sandbox.ceph("auth", "del", name)


def audit_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def notifications(app: CephTUI) -> str:
    return "\n".join(n.message for n in app._notifications)


def pane_text(app: CephTUI) -> str:
    """Everything the Users pane renders: table rows, summary, detail, plus a screenshot of the whole screen."""
    pane = app.pane(UsersPane)
    vt = pane.vtable
    rows = "\n".join(" ".join(vt.get_row_at(i)) for i in range(vt.row_count))
    parts = [rows, plain(pane.query_one("#users-summary").content), plain(pane.query_one("#users-detail").content)]
    return "\n".join(parts) + app.export_screenshot()


async def select(app: CephTUI, pilot: Pilot, name: str) -> None:
    """Walk the cursor to the entity's row, as a person would."""
    rows = app.pane(UsersPane).vtable.rows
    target = next(i for i, r in enumerate(rows) if r.entity is not None and r.entity.name == name)
    app.pane(UsersPane).vtable.focus()
    await pilot.press("home", *["down"] * target)
    selected = app.pane(UsersPane).selected()
    assert selected is not None and selected.name == name


async def run_and_close(app: CephTUI, pilot: Pilot) -> str:
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    await click(pilot, "#confirm-run")
    await wait_for(pilot, lambda: screen.state == "done", 20, "the command's answer")
    result = text_of(app, "#confirm-result")
    assert screen.outcome.ok, result
    await click(pilot, "#confirm-run")
    await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "the dialog closing")
    return result


async def test_create_rbd_user_export_keyring_and_use_it(make_app, sandbox: Sandbox, tmp_path: Path,
                                                          audit_log: Path) -> None:
    user = "client.ctu-rbd"
    keyring = tmp_path / "ctu-rbd.keyring"
    sandbox.ceph("osd", "pool", "create", "ctu-b", "8")
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            # Step 1: name and template (RBD client for pool rbd, the default pool).
            form = await open_create_form(app, pilot)
            await pilot.press("ctrl+u", *user)
            assert form.query_one("#field-template", Select).value == "rbd"
            assert form.query_one("#field-pools", Input).value == "rbd"
            assert not form.query_one("#field-fs").parent.display  # CephFS inputs hidden for RBD
            assert "$ ceph auth get-or-create client.ctu-rbd mon 'profile rbd'" in text_of(app, "#form-status")
            await pilot.press("enter")

            # Step 2: the template's caps per service, editable, then the exact command.
            await wait_for(pilot, lambda: app.screen is not form and isinstance(app.screen, FormScreen), 5,
                           "step 2")
            caps_form = app.screen
            assert caps_form.query_one("#field-osd", Input).value == "profile rbd pool=rbd"
            assert caps_form.query_one("#field-mon", Input).value == "profile rbd"
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirmation")
            expected = ("$ ceph auth get-or-create client.ctu-rbd mon 'profile rbd' mgr 'profile rbd pool=rbd' "
                        "osd 'profile rbd pool=rbd'")
            assert expected in text_of(app, "#confirm-commands")
            result = await run_and_close(app, pilot)
            assert "key =" not in result and "AQ" not in result  # the new key is not printed
            assert caps_of(sandbox, user) == {"mon": "profile rbd", "mgr": "profile rbd pool=rbd",
                                              "osd": "profile rbd pool=rbd"}

            # Export its keyring through the UI: a new file, mode 0600.
            await wait_for(pilot, lambda: any(e.name == user for e in app.pane(UsersPane).entities or ()), 15,
                           "the new user in the pane")
            await select(app, pilot, user)
            await pilot.press("x")
            export = app.screen
            assert isinstance(export, ExportKeyringScreen)
            await type_into(pilot, app, "#export-path", str(keyring))
            assert f"ceph auth get {user} -o {keyring}" in text_of(app, "#export-status")
            await pilot.press("enter")
            await wait_for(pilot, lambda: export.state in ("done", "failed"), 10, "the export")
            assert export.state == "done", text_of(app, "#export-status")
            assert stat.S_IMODE(os.stat(keyring).st_mode) == 0o600
            content = keyring.read_text()
            assert f"[{user}]" in content and "key = " in content
            await press_ready(pilot, "enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, ExportKeyringScreen), 5, "the export closing")

            # A second export to the same file is refused before asking the cluster.
            await pilot.press("x")
            again = app.screen
            assert isinstance(again, ExportKeyringScreen)
            await type_into(pilot, app, "#export-path", str(keyring))
            assert "never overwrites" in text_of(app, "#export-status")
            await pilot.press("enter")
            await pilot.pause()  # the press handled: refused without asking the cluster
            assert again.state == "asking"
            await pilot.press("escape")
            exports = [x for x in audit_lines(audit_log) if x["command"].get("prefix") == "auth get"
                       and x["command"].get("entity") == user]
            secret = sandbox.ceph("auth", "get-key", user)["key"]
            assert len(exports) == 1 and exports[0]["ok"] and secret not in audit_log.read_text()

        # The exported keyring works: librados as that user writes in pool rbd and is refused in ctu-b.
        r = rados.Rados(conffile=str(sandbox.conf), name=user,
                        conf={"keyring": str(keyring), "log_to_stderr": "false", "err_to_stderr": "false"})
        r.connect(timeout=10)
        try:
            with r.open_ioctx("rbd") as io:
                io.write_full("ctu-rbd-probe", b"hello")
                assert io.read("ctu-rbd-probe") == b"hello"
                io.remove_object("ctu-rbd-probe")
            with r.open_ioctx("ctu-b") as io:
                with pytest.raises(rados.PermissionError):
                    io.write_full("ctu-rbd-probe", b"nope")
        finally:
            r.shutdown()
    finally:
        drop_entity(sandbox, user)
        sandbox.ceph("osd", "pool", "delete", "ctu-b", "ctu-b", "--yes-i-really-really-mean-it")


@pytest.mark.tier
async def test_edit_caps_shows_old_and_new_then_delete(make_app, sandbox: Sandbox) -> None:
    user = "client.ctu-edit"
    sandbox.ceph("auth", "get-or-create", user, "mon", "allow r", "osd", "allow r pool=rbd")
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_users(app, pilot, wait_entity=user)
            await select(app, pilot, user)
            assert "allow r pool=rbd" in plain(app.pane(UsersPane).query_one("#users-detail").content)

            await pilot.press("e")
            # Pushed by the edit's worker, which a loaded machine may run after the press returned.
            await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), 10, "the caps form")
            form = app.screen
            assert isinstance(form, FormScreen)
            assert form.query_one("#field-mon", Input).value == "allow r"
            assert form.query_one("#field-osd", Input).value == "allow r pool=rbd"
            assert "no change" in text_of(app, "#form-status")
            await type_into(pilot, app, "#field-osd", "")
            await type_into(pilot, app, "#field-mgr", "allow r")
            assert f"$ ceph auth caps {user} mon 'allow r' mgr 'allow r'" in text_of(app, "#form-status")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirmation")
            shown = text_of(app, "#confirm-commands")
            assert f"$ ceph auth caps {user} mon 'allow r' mgr 'allow r'" in shown
            assert "old (now)" in shown and "new (after)" in shown
            osd_row = next(line for line in shown.splitlines() if line.lstrip("│ ").startswith("osd"))
            assert "allow r pool=rbd" in osd_row and "loses access" in osd_row
            assert f"{user} loses every osd capability" in shown
            await run_and_close(app, pilot)
            assert caps_of(sandbox, user) == {"mon": "allow r", "mgr": "allow r"}

            # Delete: the typed name is required.
            users = app.pane(UsersPane)
            await wait_for(pilot, lambda: any(e.name == user and e.cap("mgr") for e in users.entities or ()),
                           15, "the new caps in the pane")
            await select(app, pilot, user)
            await pilot.press("D")
            confirm = app.screen
            assert isinstance(confirm, ConfirmScreen)
            assert f"$ ceph auth del {user}" in text_of(app, "#confirm-commands")
            await pilot.press(*"client.ctu-edi", "enter")
            await pilot.pause()  # the press handled: refused
            assert confirm.state == "asking" and "Type exactly" in text_of(app, "#confirm-result")
            assert entity_exists(sandbox, user)
            await pilot.press("t", "enter")
            await wait_for(pilot, lambda: confirm.state == "done", 15, "the delete")
            assert confirm.outcome.ok
            assert not entity_exists(sandbox, user)
            await press_ready(pilot, "enter")
            await wait_for(pilot, lambda: all(e.name != user for e in app.pane(UsersPane).entities or ()), 15,
                           "the user gone from the pane")
    finally:
        drop_entity(sandbox, user)


async def test_deleting_own_identity_or_daemon_keys_needs_force(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_users(app, pilot, wait_entity="osd.0")
        assert app.client.spec.name == "client.admin"

        await select(app, pilot, "client.admin")
        await pilot.press("D")
        await wait_for(pilot, lambda: "cephtui is connected as client.admin" in notifications(app), 5,
                       "the refusal")
        assert not isinstance(app.screen, ConfirmScreen)
        assert "cephtui is connected as client.admin" in notifications(app)
        assert "press F" in notifications(app)

        await select(app, pilot, "osd.0")
        await pilot.press("D")
        await wait_for(pilot, lambda: "osd.0 is a daemon's own key" in notifications(app), 5, "the refusal")
        assert not isinstance(app.screen, ConfirmScreen)
        assert "osd.0 is a daemon's own key" in notifications(app)

        # Forced: the dialog says why and wants "force osd.0", not just the name.
        await pilot.press("F")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert confirm.typed == "force osd.0"
        shown = text_of(app, "#confirm-commands")
        assert "$ ceph auth del osd.0" in shown and "daemon's own key" in shown
        await pilot.press(*"osd.0", "enter")
        await pilot.pause()  # the press handled: refused
        assert confirm.state == "asking" and "Type exactly 'force osd.0'" in text_of(app, "#confirm-result")
        await pilot.press("escape")
        assert not isinstance(app.screen, ConfirmScreen)

        # Daemons can be hidden; the separator stays and says how to show them.
        await pilot.press("d")
        assert all(r.entity is None or not r.entity.is_daemon for r in app.pane(UsersPane).vtable.rows)
        assert any("d shows them" in " ".join(app.pane(UsersPane).vtable.get_row_at(i))
                   for i in range(app.pane(UsersPane).vtable.row_count))
    assert entity_exists(sandbox, "osd.0") and entity_exists(sandbox, "client.admin")


async def test_key_is_not_shown_until_revealed(make_app, sandbox: Sandbox, audit_log: Path) -> None:
    key = sandbox.ceph("auth", "get-key", "client.admin")["key"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_users(app, pilot)
        await select(app, pilot, "client.admin")
        await pilot.pause()  # the detail drawn for the selected row
        assert key not in pane_text(app)
        assert all(key not in repr(e) for e in app.pane(UsersPane).entities or ())

        await pilot.press("k")
        screen = app.screen
        assert isinstance(screen, KeyScreen)
        await wait_for(pilot, lambda: screen.state != "loading", 10, "the key")
        assert key in text_of(app, "#key-value")
        assert "ceph auth get-key client.admin" in text_of(app, "#key-cli")
        # Shown on request, never in a screenshot (the palette's "Save screenshot" included).
        svg = app.export_screenshot()
        assert key not in svg and "[secret redacted]" in svg
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, KeyScreen), 5, "the key window closing")
        await pilot.pause()
        assert key not in pane_text(app)

        # The filter narrows by name or cap text.
        await pilot.press("slash", *"bootstrap-osd")
        await wait_for(pilot, lambda: [r.entity.name for r in app.pane(UsersPane).vtable.rows if r.entity]
                       == ["client.bootstrap-osd"], 5, "the filtered table")
    reveal = [x for x in audit_lines(audit_log) if x["command"].get("prefix") == "auth get-key"]
    assert reveal and key not in json.dumps(reveal)
