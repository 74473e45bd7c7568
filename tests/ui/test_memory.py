"""Memory stays bounded when left open (issue 16: 80 -> 137 MB in 20 min). The hour-long check is
scripts/soak.py on a real cluster; these are the two causes it found, guarded in seconds. No cluster needed."""
from __future__ import annotations

import gc
import time
from weakref import WeakSet

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from cephtui.ui.compat import FooterKey
from cephtui.ui.poller import COUNT_EVERY, RECLAIM_EVERY, Poller
from cephtui.ui.widgets.footer import CephFooter
from tests.ui.helpers import wait_for

pytestmark = pytest.mark.look  # no cluster: the look tier's fast loop (tests/conftest.py)


class Pane(Static, can_focus=True):
    def __init__(self, key: str, id: str) -> None:
        super().__init__(id, id=id)
        self._bindings.bind(key, "app.bell", f"{id} key")


class FooterApp(App[None]):
    BINDINGS = [Binding("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Pane("a", "left")
        yield Pane("b", "right")
        yield CephFooter()


def footer_keys() -> WeakSet[FooterKey]:
    gc.collect()
    return WeakSet(o for o in gc.get_objects() if isinstance(o, FooterKey))


def live_footer_keys(before: WeakSet[FooterKey]) -> int:
    """FooterKeys alive after a collection, but for those alive `before` the test: other tests' apps in the
    same worker process (xdist) are not this footer's to free (CI once counted 17 against 6)."""
    return sum(1 for k in footer_keys() if k not in before)


async def test_footer_recompose_frees_the_old_keys() -> None:
    """Every focus or tab change recomposes the footer; the keys it replaces must be freed. With Textual's
    data_bind(compact=...) each old key stayed referenced from the footer's watcher list for ever."""
    before = footer_keys()
    app = FooterApp()
    async with app.run_test(size=(80, 10)) as pilot:
        footer = app.query_one(CephFooter)
        for i in range(30):
            pane = "left" if i % 2 else "right"
            app.query_one(f"#{pane}").focus()
            await wait_for(pilot, lambda p=pane: any(k.description == f"{p} key" for k in footer.query(FooterKey)),
                           5, f"the footer with the {pane} pane's key")
        await pilot.pause()
        shown = len(footer.query(FooterKey))
        assert shown >= 2
        assert live_footer_keys(before) <= 2 * shown  # 30 recomposes' worth (~90) before the fix
        # The keys still follow the footer's compact style (what the data binding was for).
        assert not any(k.compact for k in footer.query(FooterKey) if not k.has_class("-command-palette"))
        footer.compact = True
        await wait_for(pilot, lambda: all(k.compact for k in footer.query(FooterKey)), 5, "compact keys")


def test_frozen_garbage_is_collected_once_it_grows_by_a_quarter() -> None:
    """cephtui gc.freeze()s after every paint; cycles frozen while alive (replaced widgets, spent messages)
    used to wait ten minutes for a full collection: ~35 MB a minute when switching tabs at --refresh 1."""
    gc.collect()
    # The poller's own collection state, without an app (its timers and workers play no part here).
    host = Poller.__new__(Poller)
    host._frozen_at_reclaim, host._reclaimed_at, host._counted_at = 0, 0.0, 0.0
    try:
        host.reclaim()
        base = gc.get_freeze_count()
        cycles: list[list[object]] = []
        for _ in range(max(base // 2, 60_000)):
            c: list[object] = []
            c.append(c)
            cycles.append(c)
        gc.freeze()  # a paint while they are alive (they stand for a tab's widgets and render caches)
        assert gc.get_freeze_count() >= base + len(cycles)
        del cycles, c  # now garbage, but frozen: only a full collection after unfreeze frees them
        gc.collect()
        assert gc.get_freeze_count() >= base + 60_000  # what the ten-minute timer alone left in memory
        host._freeze()
        assert gc.get_freeze_count() >= base + 60_000  # not yet: the last collection was under 30 s ago
        host._reclaimed_at -= RECLAIM_EVERY
        host._counted_at = time.monotonic()  # counted a moment ago: counting walks the whole set, not yet again
        host._freeze()
        assert gc.get_freeze_count() >= base + 60_000
        host._counted_at -= COUNT_EVERY
        host._freeze()
        assert gc.get_freeze_count() < base + 1_000
    finally:
        gc.unfreeze()
