"""The Users tab's new-user wizard on the look capture (no cluster): names and caps refused before anything is
sent, each with the reason (a cap with a caret under the character the monitor's parser stops at). The caps are
checked here, not by the monitor (cephtui/ceph/ops/caps.py, held against each release's monitor in the cluster
tier); what creating, editing and deleting users does to a cluster is tests/ui/test_users.py's."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Select

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.users import UsersPane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.lookapp import AUDIT_LOG
from tests.ui.helpers import SIZE, click, text_of, wait_for


def audit_lines() -> list[str]:
    """The look tier's audit log (look_app points CEPHTUI_AUDIT_LOG at it)."""
    path = Path(AUDIT_LOG)
    return path.read_text().splitlines() if path.exists() else []


async def open_users(app: CephTUI, pilot: Pilot, wait_entity: str | None = None) -> None:
    await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
    await pilot.press("6")
    await wait_for(pilot, lambda: app.pane(UsersPane).entities is not None, 15, "the users")
    if wait_entity:
        await wait_for(pilot, lambda: any(e.name == wait_entity for e in app.pane(UsersPane).entities or ()), 15,
                       f"{wait_entity} in the pane")


async def open_create_form(app: CephTUI, pilot: Pilot) -> FormScreen:
    """The Users tab, then c: step 1 of the new-user wizard."""
    await open_users(app, pilot)
    await pilot.press("c")
    form = app.screen
    assert isinstance(form, FormScreen)
    return form


async def type_into(pilot: Pilot, app: CephTUI, selector: str, text: str) -> None:
    field = app.screen.query_one(selector, Input)
    field.focus()
    await wait_for(pilot, lambda: app.focused is field, 5, f"the focus in {selector}")
    await pilot.press("ctrl+u", *text) if text else await pilot.press("ctrl+u")
    await pilot.pause()  # the form checks the field as it changes, on the UI thread


async def test_bad_caps_and_bad_names_are_refused_before_sending(look_app: Any) -> None:
    user = "client.ctu-bad"
    app = look_app()
    before = audit_lines()
    async with app.run_test(size=SIZE) as pilot:
        step1 = await open_create_form(app, pilot)

        # A bad entity name: the reason, and Next does nothing.
        await pilot.press("ctrl+u", *"client.bad name")
        assert "is not an entity name" in text_of(app, "#form-status")
        await pilot.press("enter")
        assert app.screen is step1
        await pilot.press("ctrl+u", *"osd.99")
        assert "creates client users" in text_of(app, "#form-status")
        await pilot.press("ctrl+u", *"client.admin")
        assert "already exists" in text_of(app, "#form-status")

        # Custom template: step 2 starts empty; each bad cap is shown with a caret where it is wrong.
        await pilot.press("ctrl+u", *user)
        step1.query_one("#field-template", Select).value = "custom"
        await pilot.pause()  # Select.Changed handled
        assert not step1.query_one("#field-pools").parent.display
        await click(pilot, "#form-ok")
        await wait_for(pilot, lambda: app.screen is not step1 and isinstance(app.screen, FormScreen), 5,
                       "step 2")
        step2 = app.screen
        assert all(step2.query_one(f"#field-{s}", Input).value == "" for s in ("mon", "mgr", "osd", "mds"))
        assert "give at least one capability" in text_of(app, "#form-status")

        await type_into(pilot, app, "#field-mon", "allow rwz")
        status = text_of(app, "#form-status")
        assert "mon cap refused: mon capability parse failed, stopped at 'z' of 'allow rwz'" in status
        lines = status.splitlines()
        caret_line = next(line for line in lines if line.strip() == "^")
        text_line = lines[lines.index(caret_line) - 1]
        assert text_line[caret_line.index("^")] == "z"  # the caret sits under the bad character
        await pilot.press("enter")
        assert app.screen is step2

        await type_into(pilot, app, "#field-mon", "profile nosuch")
        assert "unknown mon profile 'nosuch'" in text_of(app, "#form-status")
        await pilot.press("enter")
        assert app.screen is step2

        await type_into(pilot, app, "#field-mon", "allow r")
        await type_into(pilot, app, "#field-osd", "allow rw pool=rbd namespace")
        assert "osd cap refused" in text_of(app, "#form-status")
        await click(pilot, "#form-ok")
        await pilot.pause()  # the press handled: refused
        assert app.screen is step2

        # Fixed: the command appears; cancelling sends nothing.
        await type_into(pilot, app, "#field-osd", "allow rw pool=rbd")
        assert ("$ ceph auth get-or-create client.ctu-bad mon 'allow r' osd 'allow rw pool=rbd'"
                in text_of(app, "#form-status"))
        await pilot.press("escape")
        assert not isinstance(app.screen, (FormScreen, ConfirmScreen))
    # Nothing was sent: no auth command but the tab's own `auth ls` (look_app also fails any mutating one).
    assert [p for _, p, _ in app.client.sent if p.startswith("auth") and p != "auth ls"] == []
    assert audit_lines() == before  # nothing was run
