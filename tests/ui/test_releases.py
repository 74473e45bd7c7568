"""Every tab on each release's captured answers (tests/fixtures/<release>/): no traceback, no render error.

The app runs on a lenient replay: what a capture holds is answered as that release answered it, and
anything else is refused as a monitor refuses an unknown command, so each pane shows a note instead.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cephtui.ceph.recording import ReplayClient
from cephtui.ceph.snapshot import parse
from cephtui.ui.app import TABS, CephTUI
from tests.releases import answer, release_dirs
from tests.ui.helpers import SIZE, tab_presses, text_of, wait_for

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)

CAPTURES = [pytest.param(d / f"{name}.json", id=f"{d.name}-{name}") for d in release_dirs()
            for name in ("healthy", "osd_down", "full") if (d / f"{name}.json").is_file()]


@pytest.mark.parametrize("fx", CAPTURES)
async def test_every_tab_renders_on_each_releases_answers(fx: Path) -> None:
    app = CephTUI(ReplayClient.load(fx, strict=False), refresh=3600)
    status = parse.parse_health(answer(fx, "mon", "health", detail="detail")).status
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 30, "the first snapshot")
        assert app.snapshot is not None and app.snapshot.health.status == status
        for i, (key, _title) in enumerate(TABS, 1):
            await pilot.press(*tab_presses(i, key))
            await wait_for(pilot, lambda key=key: app.tabs.active == key, 10, f"the {key} tab")
            await pilot.pause()
        await pilot.press("1")
        await wait_for(pilot, lambda: status in text_of(app, "#health-status"), 10, status)
        codes = [c.code for c in app.snapshot.health.checks if not c.muted]
        assert all(code in text_of(app, "#health-checks") for code in codes), codes
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert not [m for m in errors if "could not render" in m or "Traceback" in m], errors
        assert app.is_running
