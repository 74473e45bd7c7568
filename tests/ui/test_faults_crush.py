"""An OSD dies during a CRUSH change (Pilot, on the session's sandbox).

Pools go to two copies so that moving osd.2 under a new host bucket really moves data, and
backfill is slowed so that the movement is still running when the next OSD dies. The CRUSH
map, pool sizes and config are put back at the end.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Button

from cephtui.ui.panes.crush import CrushPane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.confirm import ConfirmScreen
from tests.conftest import Sandbox, wait_until
from tests.ui.helpers import SIZE, cells, click, text_of, wait_for
from tests.ui.test_crush import open_crush, run_confirmed, submit_form


def osd(sandbox: Sandbox, i: int) -> dict[str, Any]:
    return next(o for o in sandbox.ceph("osd", "dump")["osds"] if o["osd"] == i)


@pytest.fixture
def two_copies_slow(slow_two_copies: Sandbox) -> Iterator[str]:
    """Yields the host bucket the OSDs live in; puts the CRUSH map back afterwards (slow_two_copies,
    in tests/ui/conftest.py, then restores sizes and recovery speed)."""
    sandbox = slow_two_copies
    host = next(n["name"] for n in sandbox.ceph("osd", "tree")["nodes"] if n["type"] == "host")
    try:
        yield host
    finally:
        tree = {n["name"]: n for n in sandbox.ceph("osd", "tree")["nodes"]}
        if "ctf-host" in tree:
            for child in tree["ctf-host"].get("children", []):
                sandbox.ceph("osd", "crush", "move", f"osd.{child}", f"host={host}")
            sandbox.ceph("osd", "crush", "rm", "ctf-host")


async def test_osd_dies_between_preview_and_apply_and_during_the_movement(make_app, sandbox: Sandbox,
                                                                            two_copies_slow: str) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_crush(app, pilot)
        await pilot.press("a")
        await pilot.press("ctrl+u", *"ctf-host")
        await submit_form(app, pilot, {"type": "host", "parent": "default"})
        await run_confirmed(app, pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "Enter to close the dialog")
        await wait_for(pilot, lambda: any(r.name == "ctf-host" for r in app.pane(CrushPane).hierarchy.rows), 10,
                       "the new bucket")

        # 1. The preview is computed, then osd.1 dies before the operator presses Run.
        await pilot.press("m")
        await pilot.press("ctrl+u", *"osd.2")
        await submit_form(app, pilot, {"dest": "ctf-host"})
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        await wait_for(pilot, lambda: screen.preview_state == "ready", 30, "the preview")
        first = screen.preview_fn.result  # type: ignore[union-attr]
        assert first is not None and first.shards_moved > 0
        try:
            sandbox.kill("osd.1")
            wait_until(lambda: not osd(sandbox, 1)["up"], 60, "osd.1 down")
            await click(pilot, "#confirm-run")
            # Not applied on stale numbers: the dialog says what changed and recomputes.
            await wait_for(pilot, lambda: screen.stale_note != "", 15, "the stale-preview warning")
            assert "osd.1 down" in screen.stale_note and f"osdmap epoch {first.epoch} →" in screen.stale_note
            assert "Nothing was sent" in text_of(app, "#confirm-result")
            assert screen.state == "asking" and not screen.outcome.ran
            assert osd(sandbox, 2)["osd"] == 2 and "ctf-host" not in {
                n["name"] for n in sandbox.ceph("osd", "tree")["nodes"] if 2 in n.get("children", [])}
            await wait_for(pilot, lambda: screen.preview_state == "ready", 30, "the recomputed preview")
            # Run takes a press at once, even when the preview came back within Run's press animation.
            assert not screen.query_one("#confirm-run", Button).has_class("-active")
            second = screen.preview_fn.result  # type: ignore[union-attr]
            assert second is not None and second.epoch > first.epoch
            shown = text_of(app, "#confirm-preview")
            assert "Recomputed: the cluster changed" in shown and f"osdmap epoch {second.epoch}" in shown
            # Now it runs: the mon accepts the move with osd.1 down. Under load the osdmap can move once
            # more while the recomputed preview is on screen; then the dialog says so again and asks
            # again, which is the behaviour under test, so press Run once more (at most three times).
            for _ in range(3):
                note = screen.stale_note
                await click(pilot, "#confirm-run")
                await wait_for(pilot, lambda note=note: screen.state == "done" or screen.stale_note != note, 60,
                               "the command's answer (or a new stale-preview warning)")
                if screen.state == "done":
                    break
                assert not screen.outcome.ran and "Nothing was sent" in text_of(app, "#confirm-result")
                await wait_for(pilot, lambda: screen.preview_state == "ready", 30, "the recomputed preview")
            assert screen.state == "done", screen.stale_note
            assert screen.outcome.ok, text_of(app, "#confirm-result")
            assert "moved item id 2" in text_of(app, "#confirm-result")
            await pilot.press("enter")
            assert 2 in {c for n in sandbox.ceph("osd", "tree")["nodes"] if n["name"] == "ctf-host"
                         for c in n["children"]}

            # 2. The PGs and OSDs panes show the state this leaves: osd.1 down, PGs degraded and remapped.
            await pilot.press("2")
            await wait_for(pilot, lambda: any("degraded" in s for s in cells(app, "#pgs-states", 2)), 30,
                           "degraded PGs in the PGs tab")
            await pilot.press("3")
            await wait_for(pilot, lambda: any(r.is_osd and r.node.id == 1 and r.node.status == "down"
                                              for r in app.pane(OSDsPane).vtable.rows), 30,
                           "osd.1 down in the OSDs tab")
        finally:
            sandbox.revive("osd.1")

        # 3. While that data movement runs (backfill slowed), osd.0 dies.
        wait_until(lambda: osd(sandbox, 1)["up"], 60, "osd.1 up")
        await pilot.press("2")
        await wait_for(pilot, lambda: any("backfill" in s or "remapped" in s for s in cells(app, "#pgs-states", 2)),
                       60, "the data movement running")
        try:
            sandbox.kill("osd.0")
            await wait_for(pilot, lambda: any("degraded" in s for s in cells(app, "#pgs-states", 2))
                           and any("remapped" in s or "backfill" in s for s in cells(app, "#pgs-states", 2)), 60,
                           "degraded and remapped PGs while the movement runs")
            print("\nPG states with osd.0 down mid-movement:", cells(app, "#pgs-states", 2))
            await pilot.press("3")
            await wait_for(pilot, lambda: any(r.is_osd and r.node.id == 0 and r.node.status == "down"
                                              for r in app.pane(OSDsPane).vtable.rows), 30,
                           "osd.0 down in the OSDs tab")
        finally:
            sandbox.revive("osd.0")
        # And it ends: with every OSD back, the movement completes.
        sandbox.ceph("config", "rm", "osd", "osd_recovery_sleep")
        await pilot.press("2")
        await wait_for(pilot, lambda: cells(app, "#pgs-states", 2) == ["active+clean"], 180, "all PGs active+clean")
