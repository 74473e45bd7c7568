"""Each dialog, form and wizard's first screen (tests/look/walk.py), on every release's look capture at 120x36:
opened as an admin opens it, nothing confirmed (the look_app fixture fails a test whose app sent a mutating
command). `pytest tests/look --snapshot-update` after a deliberate change, then look at the SVGs."""
from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.look.conftest import RELEASES, snapshots_here
from tests.look.settle import keys_for, settle
from tests.look.walk import DIALOGS, Dialog

pytestmark = snapshots_here


@pytest.mark.parametrize("dialog", DIALOGS, ids=[d.name for d in DIALOGS])
@pytest.mark.parametrize("release", RELEASES)
def test_dialog(release: str, dialog: Dialog, look_app: Any, snap_compare: Any) -> None:
    app = look_app(release)

    async def open_it(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press(*keys_for(dialog.tab))
        await settle(pilot)
        before = app.screen
        await pilot.press(*dialog.keys)
        await settle(pilot)
        for step in dialog.steps:
            await pilot.press(*step)
            await settle(pilot)
        assert (app.screen is not before) == dialog.opens_screen, f"{dialog.name}: opened {app.screen}"

    assert snap_compare(app, terminal_size=(120, 36), run_before=open_it)
