"""The Pools tab at 160 columns on a replayed capture (no cluster): the capacity columns (stored, used, %used,
max avail, objects) are on screen without scrolling, as `ceph df` puts them first."""
from __future__ import annotations

import pytest

from cephtui.ceph.recording import ReplayClient
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.pools import PoolsPane
from tests.releases import release_dirs
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)

HEALTHY = [d / "healthy.json" for d in release_dirs() if (d / "healthy.json").is_file()]


@pytest.mark.skipif(not HEALTHY, reason="no healthy capture")
async def test_capacity_columns_fit_at_160_columns() -> None:
    app = CephTUI(ReplayClient.load(HEALTHY[0], strict=False), refresh=3600)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.snapshot is not None, 30, "the first snapshot")
        await pilot.press("5")
        table = app.pane(PoolsPane).table
        await wait_for(pilot, lambda: table.row_count > 0, 15, "the pools")
        await pilot.pause()
        widths, shown = 0, []
        for column in table.ordered_columns:
            widths += column.get_render_width(table)
            if widths <= table.scrollable_content_region.width:
                shown.append(str(column.label))
        assert {"stored", "used", "%used", "max avail", "objects"} <= set(shown), shown
        assert table.scroll_x == 0
