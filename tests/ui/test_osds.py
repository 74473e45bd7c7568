"""OSDs pane through Pilot on the real cluster: actions show their command, run, and change `ceph osd tree`."""
from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cephtui.ceph import ops
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox, wait_until
from tests.ui.helpers import SIZE, plain, press_ready, text_of, wait_for, wait_screen


def tree_osd(sandbox: Sandbox, osd: int) -> dict:
    return next(n for n in sandbox.ceph("osd", "tree")["nodes"] if n["id"] == osd)


def the_mons_words(sandbox: Sandbox, answer: str, cmd: dict, ran: str, ran_again: str, seen: int) -> None:
    """`answer` carries the mon's own words for `cmd`: `ran` when the mon ran it once.

    Ceph can run one command twice. A client whose mon session is replaced while a command is in flight
    sends it again on the new session (seen here under load: the session of a client connected about 3 s
    before changes in the mon's audit from `client.?` to `client.N`, same address). When the first run has
    committed by then, the second finds the work done and answers with its own words, `ran_again` ("osd.2 is
    already in"), and that is the answer the client gets. Accepted only when the mon's audit channel shows
    exactly that: two dispatches since `seen` (how many there were before), both from the app's address.
    Anything else (a single run, another sender) fails with the audit lines."""
    if ran in answer:
        return
    assert ran_again in answer, f"neither {ran!r} nor {ran_again!r} in the answer {answer!r}"

    def dispatches() -> list[str]:
        return sandbox.mon_dispatches(cmd)[seen:]

    with contextlib.suppress(AssertionError):  # the mon's log thread writes a moment later
        wait_until(lambda: len(dispatches()) >= 2, 5, f"the mon's audit of {cmd} twice")
    lines = dispatches()
    senders = {m.group(1) for m in (re.search(r"from='\S+ ([^']+)'", line) for line in lines) if m}
    assert len(lines) == 2 and len(senders) == 1, "answered as a second run, but the mon's audit says:\n" + (
        "\n".join(lines))


async def open_osds(app: CephTUI, pilot: Pilot, at: int | None = None) -> None:
    """The OSDs tab with its tree; with `at`, the cursor then walked to that OSD."""
    await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
    await pilot.press("3")
    await wait_for(pilot, lambda: app.pane(OSDsPane).vtable.row_count > 0, 15, "the OSD tree")
    if at is not None:
        await cursor_to(app, pilot, at)


async def cursor_to(app: CephTUI, pilot: Pilot, osd: int) -> None:
    """Walk the cursor down to the OSD's row, as a person would."""
    rows = app.pane(OSDsPane).vtable.rows
    target = next(i for i, r in enumerate(rows) if r.is_osd and r.node.id == osd)
    await pilot.press("home", *["down"] * target)
    assert app.pane(OSDsPane).targets() == (osd,)


async def confirm_and_run(app: CephTUI, pilot: Pilot, expect_cli: str) -> str:
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    assert expect_cli in text_of(app, "#confirm-commands")
    await wait_for(pilot, lambda: screen.preview_state != "running", 30, "the preview")
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.state == "done", 15, "the command's answer")
    result = text_of(app, "#confirm-result")
    await pilot.press("enter")
    assert not isinstance(app.screen, ConfirmScreen)
    return result


async def confirm_without_preview(app: CephTUI, pilot: Pilot, op: ops.Operation, preview_says: str, timeout: float,
                                  what: str) -> ConfirmScreen:
    """`op` in the confirm dialog, which has no PG-movement preview: it says why (`preview_says`), the first
    yes only asks again, the second runs it. The dialog once the command has answered."""
    app.confirm_operations([op])
    screen = await wait_screen(pilot, ConfirmScreen)
    await wait_for(pilot, lambda: screen.preview_state == "failed", timeout, what)
    assert preview_says in text_of(app, "#confirm-preview")
    await pilot.press("enter")
    assert screen.state == "asking" and "Press again" in text_of(app, "#confirm-result")
    await press_ready(pilot, "enter")  # a button ignores a second press within 0.2 s: no accidental double yes
    await wait_for(pilot, lambda: screen.state == "done", 15, "the command's answer")
    return screen


def audit_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.tier
async def test_mark_out_in_and_reweight(make_app, sandbox: Sandbox, audit_log: Path) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_osds(app, pilot, at=2)

            out_cmd, in_cmd = ({"prefix": verb, "ids": ["2"]} for verb in ("osd out", "osd in"))
            seen = len(sandbox.mon_dispatches(out_cmd)), len(sandbox.mon_dispatches(in_cmd))
            await pilot.press("o")
            await wait_for(pilot, lambda: app.screen.preview_state == "ready", 30, "the mark-out preview")
            assert "change their up set" in text_of(app, "#confirm-preview")  # osd.2 leaves its PGs
            result = await confirm_and_run(app, pilot, "$ ceph osd out 2")
            the_mons_words(sandbox, result, out_cmd, "marked out osd.2", "osd.2 is already out", seen[0])
            assert tree_osd(sandbox, 2)["reweight"] == 0
            await wait_for(pilot, lambda: "out" in plain(app.pane(OSDsPane).vtable.get_row_at(
                app.pane(OSDsPane).vtable.cursor)[2]), 10, "osd.2 shown out")

            await pilot.press("i")
            result = await confirm_and_run(app, pilot, "$ ceph osd in 2")
            the_mons_words(sandbox, result, in_cmd, "marked in osd.2", "osd.2 is already in", seen[1])
            assert tree_osd(sandbox, 2)["reweight"] == 1

            # Bad values are refused in the form: nothing is sent, nothing is audited.
            before = len(audit_lines(audit_log))
            await pilot.press("w")
            assert isinstance(app.screen, FormScreen)
            for bad, why in (("2", "between 0 and 1"), ("-1", "between 0 and 1"), ("abc", "must be a number")):
                await pilot.press("ctrl+u", *bad, "enter")
                assert isinstance(app.screen, FormScreen)
                assert why in text_of(app, "#form-status")
            assert len(audit_lines(audit_log)) == before and tree_osd(sandbox, 2)["reweight"] == 1

            await pilot.press("ctrl+u", *"0.5", "enter")
            await confirm_and_run(app, pilot, "$ ceph osd reweight 2 0.5")
            assert abs(tree_osd(sandbox, 2)["reweight"] - 0.5) < 1e-4
            await wait_for(pilot, lambda: "0.50000" in plain(app.pane(OSDsPane).vtable.get_row_at(
                app.pane(OSDsPane).vtable.cursor)[4]), 10, "the new reweight in the tree")
            assert [e["cli"] for e in audit_lines(audit_log)][-3:] == [
                "ceph osd out 2", "ceph osd in 2", "ceph osd reweight 2 0.5"]
    finally:
        sandbox.ceph("osd", "reweight", "2", "1")
        sandbox.heal()


async def test_refusal_shows_the_monitors_text(make_app, sandbox: Sandbox, audit_log: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_osds(app, pilot)
        app.confirm_operations([ops.osd_reweight(99, "0.5")])
        await wait_screen(pilot, ConfirmScreen)
        result = await confirm_and_run(app, pilot, "$ ceph osd reweight 99 0.5")
        assert "refused" in result and "osd.99 does not exist" in result  # the mon's own words
        assert audit_lines(audit_log)[-1]["ok"] is False


async def test_no_preview_needs_a_second_confirmation(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_osds(app, pilot)
        # crushtool cannot emulate a change on an item that is not in the map: no preview.
        await confirm_without_preview(app, pilot, ops.crush_reweight("osd.99", "1"), "No preview", 30,
                                      "the failed preview")
        assert "refused" in text_of(app, "#confirm-result")


async def test_missing_tools_say_so_and_need_a_second_yes(make_app, sandbox: Sandbox, monkeypatch) -> None:
    weight = f"{tree_osd(sandbox, 0)['crush_weight']:.6f}"  # the same weight: accepted, nothing moves
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_osds(app, pilot)
        monkeypatch.setenv("PATH", "/nonexistent")  # no crushtool, no osdmaptool
        screen = await confirm_without_preview(app, pilot, ops.crush_reweight("osd.0", weight), "not installed", 10,
                                               "the missing-tools message")
        assert screen.outcome.ok and "reweighted item id 0" in text_of(app, "#confirm-result")


async def test_device_class_change_removes_the_old_class_first(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_osds(app, pilot, at=2)
            await pilot.press("c")
            assert isinstance(app.screen, FormScreen)
            await pilot.press("enter")  # unchanged: refused in the form
            assert "already has class hdd" in text_of(app, "#form-status")
            await pilot.press("ctrl+u", *"ssd", "enter")
            assert isinstance(app.screen, ConfirmScreen)
            cmds = text_of(app, "#confirm-commands")
            assert cmds.index("$ ceph osd crush rm-device-class osd.2") < cmds.index(
                "$ ceph osd crush set-device-class ssd osd.2")
            await confirm_and_run(app, pilot, "set-device-class ssd osd.2")
            assert tree_osd(sandbox, 2)["device_class"] == "ssd"
            vtable = app.pane(OSDsPane).vtable
            await wait_for(pilot, lambda: plain(vtable.get_row_at(vtable.cursor)[1])
                           .strip() == "ssd", 10, "the new class in the tree")
    finally:
        sandbox.ceph("osd", "crush", "rm-device-class", "osd.2")
        sandbox.ceph("osd", "crush", "set-device-class", "hdd", "osd.2")
        sandbox.heal()


def noout_osds(sandbox: Sandbox) -> list[int]:
    return [o["osd"] for o in sandbox.ceph("osd", "dump")["osds"] if "noout" in o["state"]]


async def test_marked_osds_get_per_osd_noout_and_lose_it(make_app, sandbox: Sandbox) -> None:
    app = make_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await open_osds(app, pilot, at=0)
            await pilot.press("space")  # marks osd.0, cursor moves on to osd.1
            await pilot.press("space")
            assert app.pane(OSDsPane).targets() == (0, 1)
            await pilot.press("f")
            # Two OSDs: their names are typed; the dialog says why no PG-movement preview is needed.
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirm dialog")
            assert app.screen.typed == "osd.0 osd.1"
            assert text_of(app, "#confirm-impact").startswith("Impact: no data moves (no PG-movement preview")
            await pilot.press(*"osd.0 osd.1")
            await confirm_and_run(app, pilot, "$ ceph osd add-noout 0 1")
            assert noout_osds(sandbox) == [0, 1]
            await wait_for(pilot, lambda: [o.id for o in app.pane(OSDsPane).table_data.osds if "noout" in o.flags]
                           == [0, 1], 10, "noout shown on both")
            await pilot.press("f")  # all marked have it: the same key takes it away
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirm dialog")
            await pilot.press(*"osd.0,osd.1")
            await confirm_and_run(app, pilot, "$ ceph osd rm-noout 0 1")
            assert noout_osds(sandbox) == []
    finally:
        sandbox.ceph("osd", "rm-noout", "0", "1")
