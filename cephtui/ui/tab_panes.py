"""The tabs' panes, owned by the app: which one is shown, which missed a snapshot while hidden, what each draws
of a snapshot, of the monitors going away, of the history and of a fail-slow ranking (the pane contract of
ui/pane.py). The poller hands it every snapshot; it never asks the cluster itself.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from rich.text import Text
from textual.app import App
from textual.widgets import Static, TabbedContent

from cephtui.ceph.history.failslow import FailSlowReport
from cephtui.ceph.history.view import HistoryView
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ui.pane import NOTHING_MORE, Fetch, Pane, tab_of

log = logging.getLogger("cephtui")

P = TypeVar("P", bound=Pane)


class TabPanes:
    def __init__(self, app: App[Any], tabs: TabbedContent, panes: tuple[Pane, ...],
                 always_shown: tuple[Pane, ...]) -> None:
        self.app = app
        self.tabs = tabs
        self.panes = panes
        self.always_shown = always_shown  # drawn at every snapshot, shown or not (ui/tabs.py)
        self.stale_panes: set[Pane] = set()  # hidden when the last snapshot came: drawn when opened
        self._opened_later: dict[Pane, Callable[[], None]] = {}  # hidden panes' news of their own (when_opened)
        self.away = False  # the monitors do not answer: every tab's body is under the stale banner

    def pane(self, cls: type[P]) -> P:
        """The one pane of that class (ui/registry.py has one tab per pane class)."""
        return next(p for p in self.panes if isinstance(p, cls))

    @property
    def active(self) -> Pane:
        key = self.tabs.active
        return next(p for p in self.panes if tab_of(p) == key)

    def shown(self) -> Pane | None:
        """The active pane, or None between tabs or while the app is torn down (a timer may fire then)."""
        key = self.tabs.active
        return next((p for p in self.panes if tab_of(p) == key), None)

    def wanted(self) -> Fetch:
        """What the shown pane needs of the next poll beyond the basics."""
        shown = self.shown()
        return shown.fetch() if shown is not None else NOTHING_MORE

    def history_shown(self) -> bool:
        shown = self.shown()
        return shown is not None and shown.SHOWS_HISTORY

    # ------------------------------------------------------------ snapshots
    def show_snapshot(self, snap: ClusterSnapshot) -> None:
        """Only the pane on screen draws now (and the always_shown ones, which keep state for the status bar and
        forms); the others draw this snapshot when their tab is opened."""
        visible = self.tabs.active
        for pane in self.panes:
            if tab_of(pane) == visible or pane in self.always_shown:
                self.show(pane, snap)
            else:
                self.stale_panes.add(pane)

    def show(self, pane: Pane, snap: ClusterSnapshot) -> None:
        self.stale_panes.discard(pane)
        try:
            if self.away and pane.show_stale(snap):  # opened while the mon is away: no green from old data
                return
            pane.show(snap)
        except Exception as e:
            log.exception("rendering %s failed", pane.id)
            self.app.notify(f"could not render {pane.id}: {e!r}", severity="error")

    def when_opened(self, pane: Pane, draw: Callable[[], None]) -> None:
        self._opened_later[pane] = draw

    def opened(self, body: object, snap: ClusterSnapshot | None) -> Pane | None:
        """A tab was opened (`body`: its TabPane): draw what its pane missed; that pane, if it is one of ours."""
        stale = [p for p in self.stale_panes if p.parent is body]
        if stale and snap is not None:
            self.show(stale[0], snap)
        for later in [p for p in self._opened_later if p.parent is body]:
            self._opened_later.pop(later)()
        return next((p for p in self.panes if p.parent is body), None)

    def retheme(self, snap: ClusterSnapshot | None) -> None:
        """Draw again, in the new colours, what each pane keeps; the hidden ones when they are opened."""
        visible = self.tabs.active
        for pane in self.panes:
            try:
                pane.retheme()
            except Exception as e:  # a pane left in the old colours is no reason to stop
                log.exception("re-colouring %s failed", pane.id)
                self.app.notify(f"could not re-colour {pane.id}: {e!r}", severity="error")
            shown = tab_of(pane) == visible or pane in self.always_shown
            if shown and snap is not None:
                self.show(pane, snap)
            elif not shown:
                self.stale_panes.add(pane)

    # ------------------------------------------------------------ the monitors away
    def set_stale(self, why: str, snap: ClusterSnapshot | None) -> None:
        """Mon gone ("" = back): every tab's body is dimmed under a banner, and the panes that would show old
        data as current (the Health pane's HEALTH_OK and quorum in green) draw it as last seen."""
        # The tabs live on the app's first screen, whatever is on top; none while the app is being
        # torn down (a poll that ends during exit must not raise).
        found = self.app.screen_stack[0].query("#tabs") if self.app.screen_stack else None
        if not found:
            return
        tabs = found.first()
        self.away = bool(why)
        if not why:
            if tabs.has_class("-stale"):
                tabs.remove_class("-stale")
            return
        age = f", data {time.time() - snap.taken_at:.0f} s old" if snap is not None else ""
        text = f"⚠ STALE: disconnected from the monitors ({why}){age}; shown as last seen"
        for banner in self.app.query(".stale-banner").results(Static):
            banner.update(Text(text))
        tabs.add_class("-stale")
        if snap is not None:
            for pane in self.panes:
                pane.show_stale(snap)

    # ------------------------------------------------------------ history
    def show_history(self, view: HistoryView, window: str) -> None:
        for pane in self.panes:
            if pane.SHOWS_HISTORY:
                pane.show_history(view, window)

    def show_failslow(self, report: FailSlowReport | None, note: str) -> None:
        for pane in self.panes:
            pane.show_failslow(report, note)
