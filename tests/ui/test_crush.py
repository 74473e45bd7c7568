"""CRUSH pane through Pilot on the real cluster: forms, preview, apply, and the text editor's refusals."""
from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Select, TextArea

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.crush import CrushPane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.crush_editor import CrushEditorScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox, wait_until
from tests.ui.helpers import SIZE, click, press_ready, text_of, wait_for, wait_screen


def up_sets(sandbox: Sandbox) -> dict[str, tuple[int, ...]]:
    dump: Any = sandbox.ceph("pg", "dump", "pgs_brief")
    pgs = dump["pg_stats"] if isinstance(dump, dict) else dump
    return {p["pgid"]: tuple(p["up"]) for p in pgs}


def all_clean(sandbox: Sandbox) -> bool:
    dump: Any = sandbox.ceph("pg", "dump", "pgs_brief")
    pgs = dump["pg_stats"] if isinstance(dump, dict) else dump
    return all(p["state"] == "active+clean" for p in pgs)


async def open_crush(app: CephTUI, pilot: Pilot) -> None:
    await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
    await pilot.press("4")
    await wait_for(pilot, lambda: app.pane(CrushPane).hierarchy.row_count > 0, 15, "the CRUSH hierarchy")


async def submit_form(app: CephTUI, pilot: Pilot, selects: dict[str, str]) -> None:
    form = app.screen
    assert isinstance(form, FormScreen)
    for key, value in selects.items():
        form.query_one(f"#field-{key}", Select).value = value
    await pilot.pause()  # Select.Changed handled
    await click(pilot, "#form-ok")
    await wait_screen(pilot, ConfirmScreen, what="the confirmation after the form")


async def run_confirmed(app: CephTUI, pilot: Pilot) -> ConfirmScreen:
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    await wait_for(pilot, lambda: screen.preview_state != "running", 30, "the preview")
    await click(pilot, "#confirm-run")
    await wait_for(pilot, lambda: screen.state == "done", 20, "the command's answer")
    assert screen.outcome.ok, text_of(app, "#confirm-result")
    # Close takes Enter at once, even when the command answered within Run's press animation.
    assert not screen.query_one("#confirm-run", Button).has_class("-active")
    return screen


@pytest.mark.tier
async def test_add_host_move_osd_preview_equals_reality(make_app, sandbox: Sandbox) -> None:
    host = sandbox.ceph("osd", "tree")["nodes"][1]["name"]  # the sandbox's one host bucket
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_crush(app, pilot)

            # A name Ceph would refuse is refused in the form, with the reason.
            await pilot.press("a")
            await pilot.press(*"bad name")
            assert "may only contain" in text_of(app, "#form-status")
            await pilot.press("ctrl+u", *host)
            assert "already exists" in text_of(app, "#form-status")
            await pilot.press("ctrl+u", *"ct-host2")
            await submit_form(app, pilot, {"type": "host", "parent": "default"})
            assert "$ ceph osd crush add-bucket ct-host2 host root=default" in text_of(app, "#confirm-commands")
            screen = await run_confirmed(app, pilot)
            assert "No PG changes its up set" in text_of(app, "#confirm-preview")
            await pilot.press("enter")
            await wait_for(pilot, lambda: any(r.name == "ct-host2" for r in app.pane(CrushPane).hierarchy.rows), 10,
                           "the new bucket in the hierarchy")

            # Move osd.2 under it: the preview predicts which PGs change their up set.
            before = up_sets(sandbox)
            await pilot.press("m")
            await pilot.press("ctrl+u", *"osd.2")
            await submit_form(app, pilot, {"dest": "ct-host2"})
            assert "$ ceph osd crush move osd.2 host=ct-host2" in text_of(app, "#confirm-commands")
            screen = await run_confirmed(app, pilot)
            job = screen.preview_fn
            predicted = job.result  # type: ignore[union-attr]
            assert predicted is not None and predicted.changed_pgs > 0
            assert f"{predicted.changed_pgs} of {predicted.total_pgs} PGs" in text_of(app, "#confirm-preview")
            assert "moved item id 2" in text_of(app, "#confirm-result")
            await pilot.press("enter")

            # Reality: the mon's own mapping of every PG under the new map (`ceph pg map`), and the
            # mgr's PG table once the OSDs have peered and reported.
            after = {pg: tuple(app.client.mon("pg map", pgid=pg)["up"]) for pg in before}
            wait_until(lambda: up_sets(sandbox) == after and all_clean(sandbox), 120,
                       "the mgr reporting the new up sets, all PGs active+clean")
            actually_changed = {pg for pg in before if before[pg] != after.get(pg)}
            assert actually_changed == set(predicted.changed)
            assert len(actually_changed) == predicted.changed_pgs
            tree = {n["name"]: n for n in sandbox.ceph("osd", "tree")["nodes"]}
            assert 2 in tree["ct-host2"]["children"]
    finally:
        sandbox.ceph("osd", "crush", "move", "osd.2", f"host={host}")
        sandbox.ceph("osd", "crush", "rm", "ct-host2")
        sandbox.heal()


async def test_text_editor_refuses_a_syntax_error(make_app, sandbox: Sandbox) -> None:
    version = sandbox.ceph("osd", "dump")["crush_version"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_crush(app, pilot)
        await pilot.press("t")
        assert isinstance(app.screen, CrushEditorScreen)
        editor = app.screen
        area = editor.query_one("#editor-text", TextArea)
        await wait_for(pilot, lambda: "# begin crush map" in area.text, 15, "the decompiled map")
        assert "rule replicated_rule" in area.text and "device 0 osd.0" in area.text
        area.move_cursor((3, 0))
        await pilot.press(*"this is not crush", "enter")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "does not compile" in text_of(app, "#editor-status"), 15, "the compiler error")
        status = text_of(app, "#editor-status")
        assert "near line" in status and "parse error" in status  # crushtool's own message
        await pilot.press("ctrl+a")
        assert isinstance(app.screen, CrushEditorScreen)  # nothing to confirm, nothing applied
        assert "Compile first" in text_of(app, "#editor-status")
        assert sandbox.ceph("osd", "dump")["crush_version"] == version

        # A valid edit compiles and shows a diff; the preview says nothing moves for a comment.
        area.move_cursor((3, 0))
        await pilot.press("ctrl+k")  # drop the bad line
        area.move_cursor((0, 0))
        await pilot.press(*"# edited by cephtui test", "enter")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Compiles" in text_of(app, "#editor-status"), 15, "a successful compile")
        await pilot.press("escape")
    assert sandbox.ceph("osd", "dump")["crush_version"] == version


async def test_rules_ec_profiles_rename_and_typed_removal(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_crush(app, pilot)

            # A replicated rule for one device class: no pool uses it, so nothing moves.
            await pilot.press("u")
            await pilot.press(*"ct-rule")
            await submit_form(app, pilot, {"root": "default", "domain": "osd", "cls": "hdd"})
            assert "$ ceph osd crush rule create-replicated ct-rule default osd hdd" in text_of(
                app, "#confirm-commands")
            await run_confirmed(app, pilot)
            assert "No PG changes its up set" in text_of(app, "#confirm-preview")
            await press_ready(pilot, "enter")
            rule = wait_until(lambda: next((r for r in sandbox.ceph("osd", "crush", "rule", "dump")
                                            if r["rule_name"] == "ct-rule"), None), 10, "the new rule")
            assert any(s.get("item_name") == "default~hdd" for s in rule["steps"])

            # An EC profile and its rule in one go; a second one with the same name is refused in the form.
            await pilot.press("e")
            await pilot.press(*"ct-ec21")
            form = app.screen
            for key, value in (("k", "2"), ("m", "1")):
                form.query_one(f"#field-{key}").value = value
            await submit_form(app, pilot, {"domain": "osd", "root": "default", "plugin": "jerasure"})
            cmds = text_of(app, "#confirm-commands")
            assert ("$ ceph osd erasure-code-profile set ct-ec21 k=2 m=1 plugin=jerasure crush-failure-domain=osd"
                    in cmds)
            assert "$ ceph osd crush rule create-erasure ct-ec21 ct-ec21" in cmds
            await run_confirmed(app, pilot)
            await press_ready(pilot, "enter")
            profile = sandbox.ceph("osd", "erasure-code-profile", "get", "ct-ec21")
            assert (profile["k"], profile["m"], profile["crush-failure-domain"]) == ("2", "1", "osd")
            crush = app.pane(CrushPane)
            await wait_for(pilot, lambda: crush.cmap is not None and crush.cmap.rule("ct-ec21")
                           is not None, 10, "the EC rule in the pane")
            await pilot.press("e")
            await pilot.press(*"ct-ec21")
            assert "already exists" in text_of(app, "#form-status")
            await pilot.press("escape")

            # Remove the unused replicated rule: the name must be typed.
            rules = app.pane(CrushPane).query_one("#crush-rules")
            rules.focus()
            row = next(i for i, r in enumerate(rules.rows) if str(r.value) == "ct-rule")
            rules.move_cursor(row=row)
            await pilot.press("X")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen) and screen.typed == "ct-rule"
            await pilot.press(*"wrong", "enter")
            assert "Type exactly" in text_of(app, "#confirm-result") and screen.state == "asking"
            await pilot.press("ctrl+u", *"ct-rule", "enter")
            await wait_for(pilot, lambda: screen.state == "done", 15, "the rule removed")
            assert screen.outcome.ok
            await press_ready(pilot, "enter")
            assert not any(r["rule_name"] == "ct-rule" for r in sandbox.ceph("osd", "crush", "rule", "dump"))

            # Rename the host bucket and back: names are not hashed, nothing moves now; but its OSDs, restarted,
            # would place themselves by their hostname: said, and the name typed.
            host = next(r for r in app.pane(CrushPane).hierarchy.rows if r.type_name == "host")
            await pilot.press("home")
            app.pane(CrushPane).hierarchy.focus()
            await pilot.press("home", *["down"] * app.pane(CrushPane).hierarchy.rows.index(host))
            await pilot.press("R")
            await pilot.press("ctrl+u", *"ct-renamed", "enter")
            assert f"$ ceph osd crush rename-bucket {host.name} ct-renamed" in text_of(app, "#confirm-commands")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen) and screen.typed == host.name
            said = " ".join((text_of(app, "#confirm-commands") + text_of(app, "#confirm-impact")).split())
            assert "no data moves now" in said and f"creates a new host {host.name}" in said, said
            await pilot.press(*host.name)
            await run_confirmed(app, pilot)
            await press_ready(pilot, "enter")
            assert any(n["name"] == "ct-renamed" for n in sandbox.ceph("osd", "tree")["nodes"])
            sandbox.ceph("osd", "crush", "rename-bucket", "ct-renamed", host.name)
    finally:
        for cmd in (("osd", "crush", "rule", "rm", "ct-ec21"), ("osd", "crush", "rule", "rm", "ct-rule"),
                    ("osd", "erasure-code-profile", "rm", "ct-ec21")):
            try:
                sandbox.ceph(*cmd)
            except RuntimeError:
                pass


async def test_text_editor_asks_before_dropping_unsaved_edits(make_app, sandbox: Sandbox) -> None:
    """Issue 16: Esc and ctrl+r silently dropped unsaved edits. Now they ask, and keeping is the default."""
    from cephtui.ui.screens.crush_editor import DiscardScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_crush(app, pilot)
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, CrushEditorScreen)
        area = editor.query_one("#editor-text", TextArea)
        await wait_for(pilot, lambda: "# begin crush map" in area.text, 15, "the decompiled map")
        version = editor.version
        area.move_cursor((0, 0))
        await pilot.press(*"# my edit", "enter")
        assert editor.dirty

        # ctrl+r: asked; enter keeps the edits (the safe default), and nothing is reloaded.
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, DiscardScreen), 5, "the discard question")
        assert "1 line differ" in text_of(app, "#discard-detail") and f"crush version {version}" in text_of(
            app, "#discard-detail")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is editor, 5, "back in the editor")
        assert "# my edit" in area.text

        # escape: in the text it leaves the text (Textual's TextArea, tab indents); the next one closes: asked.
        await pilot.press("escape")
        await wait_for(pilot, lambda: not area.has_focus, 5, "the text area to let go")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DiscardScreen), 5, "the discard question")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is editor, 5, "back in the editor")
        assert "# my edit" in area.text

        # ctrl+r, then y: the map is read again from the cluster and the edit is gone.
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, DiscardScreen), 5, "the discard question")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is editor and "# my edit" not in area.text
                       and "# begin crush map" in area.text, 15, "the map reloaded")
        assert not editor.dirty

        # Nothing unsaved: escape closes at once. With an edit, escape then y closes without applying.
        await pilot.press("escape")
        await wait_for(pilot, lambda: not area.has_focus, 5, "the text area to let go")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CrushEditorScreen), 5, "the editor to close")
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, CrushEditorScreen)
        area = editor.query_one("#editor-text", TextArea)
        await wait_for(pilot, lambda: "# begin crush map" in area.text, 15, "the decompiled map")
        area.move_cursor((0, 0))
        await pilot.press(*"# gone", "enter", "escape")
        await wait_for(pilot, lambda: not area.has_focus, 5, "the text area to let go")
        await pilot.press("q")  # q closes like escape: asked too
        await wait_for(pilot, lambda: isinstance(app.screen, DiscardScreen), 5, "the discard question")
        await pilot.press("y")
        await wait_for(pilot, lambda: not isinstance(app.screen, (CrushEditorScreen, DiscardScreen)), 5,
                       "the editor to close")
    assert sandbox.ceph("osd", "dump")["crush_version"] == version
