"""The OSDs tab on a replayed capture (no cluster: filtering, folding, sorting and the detail only look)."""
from __future__ import annotations

from collections.abc import Callable

from cephtui.ui.app import CephTUI
from cephtui.ui.panes.osds import OSDsPane
from tests.ui.helpers import SIZE, plain, text_of, wait_for
from tests.ui.test_osds import cursor_to, open_osds

LookApp = Callable[..., CephTUI]


async def test_filter_sort_and_detail(look_app: LookApp) -> None:
    app = look_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_osds(app, pilot)
        vt = app.pane(OSDsPane).vtable
        total = vt.row_count
        await pilot.press("slash", *"osd.1")
        await wait_for(pilot, lambda: [r.node.name for r in vt.rows if r.is_osd] == ["osd.1"], 5, "only osd.1")
        assert len(vt.rows) == 3  # root > host > osd.1
        await pilot.press("ctrl+u", *"down")
        await wait_for(pilot, lambda: vt.row_count == 0, 5, "no down OSDs")
        await pilot.press("escape")
        await wait_for(pilot, lambda: vt.row_count == total, 5, "the whole tree again")

        await pilot.press("z")  # fold every host: only buckets remain, with their counts
        await wait_for(pilot, lambda: vt.row_count > 0 and not any(r.is_osd for r in vt.rows), 5, "hosts folded")
        assert "▸" in "".join(plain(vt.get_row_at(i)[0]) for i in range(vt.row_count))
        await pilot.press("z")
        await wait_for(pilot, lambda: vt.row_count == total, 5, "hosts unfolded")
        await cursor_to(app, pilot, 1)
        await pilot.press("minus")  # on an OSD: folds its host and moves the cursor there
        await wait_for(pilot, lambda: vt.row_count == total - 3, 5, "the host of osd.1 folded")
        assert not vt.rows[vt.cursor].is_osd and app.pane(OSDsPane).targets() == (0, 1, 2)
        await pilot.press("plus")
        await wait_for(pilot, lambda: vt.row_count == total, 5, "unfolded again")

        await pilot.press("s")  # by utilisation: a flat list, fullest first
        await wait_for(pilot, lambda: all(r.is_osd for r in vt.rows) and vt.row_count == 3, 5, "a flat list")
        utils = [r.node.utilization for r in vt.rows]
        assert utils == sorted(utils, reverse=True)

        await cursor_to(app, pilot, 0)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "osd_objectstore" not in text_of(app, "#detail-extra")
                       and "bluestore" in text_of(app, "#detail-extra"), 10, "the OSD's metadata")
        detail = text_of(app, "#detail-extra")
        assert "active+clean" in detail and "pg ls-by-osd" in detail
        assert app.client.mon("osd metadata", id=0)["hostname"] in detail
