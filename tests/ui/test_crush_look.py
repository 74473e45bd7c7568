"""CRUSH tab refusals on each release's replayed capture (no cluster: a refusal sends nothing, which the
look_app fixture checks): removing a bucket that is not empty, or a rule that pools use, is refused with Ceph's
reason before any confirmation."""
from __future__ import annotations

from collections.abc import Callable

import pytest

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.crush import CrushPane
from cephtui.ui.screens.confirm import ConfirmScreen
from tests.lookapp import RELEASES
from tests.ui.helpers import SIZE, wait_for
from tests.ui.test_crush import open_crush

LookApp = Callable[..., CephTUI]


@pytest.mark.parametrize("release", RELEASES)
async def test_remove_refusals_before_sending(look_app: LookApp, release: str) -> None:
    app = look_app(release)
    async with app.run_test(size=SIZE) as pilot:
        await open_crush(app, pilot)
        # The cursor starts on the root: not empty, so removal is refused with Ceph's reason.
        await pilot.press("home", "x")
        await wait_for(pilot, lambda: app._notifications, 5, "the refusal")
        assert not isinstance(app.screen, ConfirmScreen)
        assert any("not empty" in n.message and "ENOTEMPTY" in n.message for n in app._notifications)
        # The only rule is used by pools: refused, naming them.
        app.pane(CrushPane).query_one("#crush-rules").focus()
        app.clear_notifications()
        await pilot.press("X")
        await wait_for(pilot, lambda: app._notifications, 5, "the refusal")
        assert not isinstance(app.screen, ConfirmScreen)
        assert any("in use by pool" in n.message and "rbd" in n.message for n in app._notifications)
