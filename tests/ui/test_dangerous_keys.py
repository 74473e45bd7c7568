"""No single key changes many OSDs unseen, and pause is set and undone from the UI, on the real sandbox."""
from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot

from cephtui.ceph import ops
from cephtui.ceph.snapshot.osdtree import BucketInfo
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.maintenance import MaintenancePane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.confirm import ConfirmScreen
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, text_of, wait_for


def cluster_flags(sandbox: Sandbox) -> set[str]:
    d = sandbox.ceph("osd", "dump")
    return set(d.get("flags_set") or d["flags"].split(","))


def osds_in(sandbox: Sandbox) -> list[int]:
    return [o["in"] for o in sandbox.ceph("osd", "dump")["osds"]]


def audit_count(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


async def run_and_close(app: CephTUI, pilot: Pilot, screen: ConfirmScreen) -> str:
    await wait_for(pilot, lambda: screen.state == "done", 20, "the command's answer")
    result = text_of(app, "#confirm-result")
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "the dialog closed")
    return result


async def test_pause_is_typed_to_set_and_undone_from_the_flags_manager(make_app, sandbox: Sandbox,
                                                                        audit_log: Path) -> None:
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
            await pilot.press("7")
            pane = app.pane(MaintenancePane)
            await wait_for(pilot, lambda: pane.ftable.row_count >= 12, 5, "the flags table")
            first = pane.selected_flag()
            assert first is not None and first.flag not in ops.DANGEROUS_FLAGS  # the cursor starts harmless
            row = next(i for i, r in enumerate(pane.ftable.rows) if r.flag == "pause" and not r.scope)
            await pilot.press("home", *["down"] * row)
            assert pane.selected_flag().flag == "pause"  # type: ignore[union-attr]

            await pilot.press("s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirm dialog")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen)
            assert "$ ceph osd set pause" in text_of(app, "#confirm-commands")
            impact = text_of(app, "#confirm-impact")
            assert "stops ALL client reads and writes" in impact and "moves data" not in impact
            before = audit_count(audit_log)
            await pilot.press("enter")  # the name not typed: refused, nothing sent
            assert "Type exactly 'pause'" in text_of(app, "#confirm-result")
            assert not {"pauserd", "pausewr"} & cluster_flags(sandbox) and audit_count(audit_log) == before

            await pilot.press(*"pause", "enter")
            assert "pauserd,pausewr is set" in await run_and_close(app, pilot, screen)
            assert {"pauserd", "pausewr"} <= cluster_flags(sandbox)
            # One pause row, set; no separate pauserd/pausewr rows "set by someone else".
            await wait_for(pilot, lambda: pane.selected_flag().is_set, 10, "pause shown set")  # type: ignore
            assert not any(r.flag in ("pauserd", "pausewr") for r in pane.ftable.rows)

            await pilot.press("u")  # undo: no name to type, the dialog says IO resumes
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the unset dialog")
            screen = app.screen
            assert isinstance(screen, ConfirmScreen) and screen.typed is None
            assert "$ ceph osd unset pause" in text_of(app, "#confirm-commands")
            assert "client reads and writes resume" in text_of(app, "#confirm-impact")
            await pilot.press("enter")
            assert "pauserd,pausewr is unset" in await run_and_close(app, pilot, screen)
            assert not {"pauserd", "pausewr"} & cluster_flags(sandbox)
            entries = [json.loads(x) for x in audit_log.read_text().splitlines()[before:]]
            assert [e["cli"] for e in entries] == ["ceph osd set pause", "ceph osd unset pause"]
    finally:
        sandbox.ceph("osd", "unset", "pause")


async def test_out_on_the_root_needs_its_name_shows_a_preview_and_changes_nothing_otherwise(
        make_app, sandbox: Sandbox, audit_log: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 10, "a first snapshot")
        await pilot.press("3")
        pane = app.pane(OSDsPane)
        await wait_for(pilot, lambda: pane.vtable.row_count > 0, 15, "the OSD tree")
        await pilot.press("home")
        root = pane.current_row()
        assert root is not None and isinstance(root.node, BucketInfo) and root.node.type_name == "root"
        n_osds = len(pane.targets())
        assert n_osds >= 3
        before, audited = osds_in(sandbox), audit_count(audit_log)

        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 5, "the confirm dialog")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen) and screen.typed == root.node.name
        assert f"every OSD under {root.node.name}: {n_osds} OSDs" in text_of(app, "#confirm-commands")
        await wait_for(pilot, lambda: screen.preview_state == "ready", 60, "the PG-movement preview")
        assert "PGs whose up set would change" in text_of(app, "#confirm-preview")
        # Every OSD out: no PG keeps a copy. The Impact line says so, from the preview's numbers.
        impact = text_of(app, "#confirm-impact")
        assert "client IO to them STOPS" in impact and "computing" not in impact

        await pilot.press(*root.node.name[:-1], "enter")  # one letter short
        assert f"Type exactly '{root.node.name}'" in text_of(app, "#confirm-result")
        assert isinstance(app.screen, ConfirmScreen) and screen.state == "asking"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "the dialog closed")
        assert osds_in(sandbox) == before and audit_count(audit_log) == audited
