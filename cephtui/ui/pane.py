"""The contract every tab's pane keeps; the app, `?`, the palette, `:` and --read-only rely on it alone.

A pane is one tab's body. The app calls, on the UI thread:
  show(snap)       with every snapshot while the tab is shown (and always for the always_shown tabs of
                   ui/tabs.py); a hidden tab gets the latest snapshot when it is opened.
  show_stale(snap) instead, while the monitors do not answer (and once when they stop): draw `snap` as last
                   seen, never as current; False (the default) where the pane looks the same either way.
  show_history(view, window)  with each history view read (ui/history.py) while a SHOWS_HISTORY tab is open.
  show_failslow(report, note) with each fail-slow ranking (every JUDGE_EVERY seconds).
  retheme()        after a theme change: draw again, in the new colours, what the pane keeps between snapshots.
  focus_table()    when the tab is opened: focus what its keys act on.
  fetch()          before each poll while the tab is shown: the snapshot parts it needs (costly ones only
                   while shown).
  is_match()       for `n`/`N` with the pane's own filter: does a table row match it.
Class attributes: BINDINGS (the keys: footer, `?` and the palette list them), MUTATING (actions that
change the cluster: dimmed and refused in --read-only mode), HELP (the prose under the tab's keys in
`?`), ACTION_HELP (longer words for an action than its footer label, for `?` and the palette) and
SHOWS_HISTORY (the history view is read while the tab is open).
The app's services are `self.services` (ui/services.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.containers import Vertical

from cephtui.ceph.history.failslow import FailSlowReport
from cephtui.ceph.history.view import HistoryView
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ui.services import AppServices, services_of


@dataclass(frozen=True)
class Fetch:
    """What a poll asks the cluster for beyond the basics (SnapshotBuilder.build's switches)."""

    pg_table: bool = False
    osd_tree: bool = False
    shadow: bool = False  # the device-class shadow trees, with osd_tree
    crush: bool = False
    pools: bool = False
    users: bool = False
    cephfs: bool = False  # the file systems' map and the mgr's counters (not the clients: the pane asks the MDSs)


NOTHING_MORE = Fetch()


class Pane(Vertical):
    """Base of every tab's pane: the defaults of the contract above. One base class only: Textual's CSS
    type names (`OSDsPane`, `Vertical`) follow the first base, so a mixin before Vertical would hide it."""

    DEFAULT_CSS = "Pane { height: 1fr; }"  # the tab's whole body
    MUTATING: ClassVar[dict[str, str]] = {}  # action -> what it changes ("marking OSDs out")
    HELP: ClassVar[str] = ""
    ACTION_HELP: ClassVar[dict[str, str]] = {}
    SHOWS_HISTORY: ClassVar[bool] = False

    @property
    def services(self) -> AppServices:
        """The running app's services (client, audit, confirm_operations …), typed."""
        return services_of(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.MUTATING and self.services.read_only:
            return None  # None: the footer shows the key dimmed, the app refuses it and says why
        return True

    def show(self, snap: ClusterSnapshot) -> None:
        raise NotImplementedError(f"{type(self).__name__}.show")

    def show_stale(self, snap: ClusterSnapshot) -> bool:
        """Nothing shown differently while the monitors are away: show() draws `snap` (under the stale banner)."""
        return False

    def show_history(self, view: HistoryView | None, window: str) -> None:
        """No history shown here."""

    def show_failslow(self, report: FailSlowReport | None, note: str) -> None:
        """No fail-slow ranking shown here."""

    def retheme(self) -> None:
        """Nothing kept between snapshots: the next show() draws in the new colours."""

    def focus_table(self) -> None:
        """Nothing to focus: the tab only shows."""

    def fetch(self) -> Fetch:
        return NOTHING_MORE

    def is_match(self, table: object, index: int) -> bool:
        """Does row `index` match the pane's filter box (only asked while it holds text)? Default: every row."""
        return True


def tab_of(pane: Pane) -> str:
    """The key of the tab holding `pane` (its TabPane's id; see ui/tabs.py)."""
    parent = pane.parent
    return (parent.id or "") if parent is not None else ""
