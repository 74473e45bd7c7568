"""The Images tab on a replayed capture (no cluster): where librbd's Python module is missing, the tab names the
package that provides it, and nothing else breaks."""
from __future__ import annotations

import pytest

from cephtui.ceph.images import reader
from cephtui.ceph.recording import ReplayClient
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.images import ImagesPane
from tests.releases import release_dirs
from tests.ui.helpers import SIZE, show_tab, text_of, wait_for

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)

HEALTHY = [d / "healthy.json" for d in release_dirs() if (d / "healthy.json").is_file()]


@pytest.mark.skipif(not HEALTHY, reason="no healthy capture")
async def test_without_python3_rbd_the_tab_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "rbd", None)
    app = CephTUI(ReplayClient.load(HEALTHY[0], strict=False), refresh=3600)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 30, "the first snapshot")
        await show_tab(pilot, "", "images")
        pane = app.query_one(ImagesPane)
        await wait_for(pilot, lambda: "python3-rbd" in text_of(app, "#images-summary"), 15, "the package named")
        summary = text_of(app, "#images-summary")
        assert "the Images tab needs librbd's Python module" in summary
        assert "apt install python3-rbd" in summary and "dnf install python3-rbd" in summary
        assert pane.vtable.row_count == 0
        await pilot.press("c")  # nowhere to create: said, nothing opened
        await wait_for(pilot, lambda: any("No pool with the rbd application" in str(n.message)
                                          for n in app._notifications), 5, "the create refused")
