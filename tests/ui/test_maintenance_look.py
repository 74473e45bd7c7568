"""The Maintenance tab's flags at 160 columns on a replayed capture (no cluster): each flag's description ends
at a word (with …) in its cell, never mid-word, and the highlighted flag's whole description is under the table."""
from __future__ import annotations

import pytest

from cephtui.ceph.recording import ReplayClient
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.maintenance import HELP_WIDTH, MaintenancePane, cut_at_word
from tests.releases import release_dirs
from tests.ui.helpers import text_of, wait_for

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)

HEALTHY = [d / "healthy.json" for d in release_dirs() if (d / "healthy.json").is_file()]


def test_cut_at_word() -> None:
    assert cut_at_word("short enough", 20) == "short enough"
    assert cut_at_word("down OSDs are not marked out", 16) == "down OSDs are…"
    assert cut_at_word("averyveryverylongword", 8) == "averyve…"
    assert all(len(cut_at_word(t, HELP_WIDTH)) <= HELP_WIDTH for t in mt.FLAG_HELP.values())


@pytest.mark.skipif(not HEALTHY, reason="no healthy capture")
async def test_flag_descriptions_end_at_a_word_and_the_selected_one_is_whole() -> None:
    app = CephTUI(ReplayClient.load(HEALTHY[0], strict=False), refresh=3600)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 30, "the first snapshot")
        await pilot.press("7")
        pane = app.pane(MaintenancePane)
        await wait_for(pilot, lambda: pane.ftable.row_count > 0, 15, "the flags")
        rows = pane.ftable.rows
        cut = 0
        for i, r in enumerate(rows):
            cell = pane.ftable.get_row_at(i)[-1].rstrip()
            whole = pane._flag_help(r)
            if cell != whole:
                cut += 1
                assert cell.endswith("…") and whole.startswith(cell[:-1]) and whole[len(cell) - 1] in " ,:;(", \
                    (cell, whole)
        assert cut > 0  # the capture's flags include ones longer than the column
        pane.ftable.focus()
        await pilot.press("home", "down")
        r = pane.selected_flag()
        assert r is not None and r.flag == rows[1].flag
        await wait_for(pilot, lambda: " ".join(text_of(app, "#maint-flag-help").split())
                       == " ".join(f"{r.flag}: {pane._flag_help(r)}".split()), 5, "the whole description")
