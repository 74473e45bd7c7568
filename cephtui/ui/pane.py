"""The contract every tab's pane keeps; the app, `?`, the palette, `:` and --read-only rely on it alone.

A pane is one tab's body. The app calls, on the UI thread:
  show(snap)     with every snapshot while the tab is shown (and always for the registry's
                 always_shown tabs); a hidden tab gets the latest snapshot when it is opened.
  retheme()      after a theme change: draw again, in the new colours, what the pane keeps between snapshots.
  focus_table()  when the tab is opened: focus what its keys act on.
  fetch()        before each poll while the tab is shown: the snapshot parts it needs (costly ones only
                 while shown).
  is_match()     for `n`/`N` with the pane's own filter: does a table row match it.
Class attributes: BINDINGS (the keys: footer, `?` and the palette list them), MUTATING (actions that
change the cluster: dimmed and refused in --read-only mode), HELP (the prose under the tab's keys in
`?`) and ACTION_HELP (longer words for an action than its footer label, for `?` and the palette).
The running app is `self.cephtui`, typed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.containers import Vertical

from cephtui.ceph.snapshot.models import ClusterSnapshot
from cephtui.ui.handle import cephtui_app

if TYPE_CHECKING:
    from cephtui.ui.app import CephTUI


@dataclass(frozen=True)
class Fetch:
    """What a poll asks the cluster for beyond the basics (SnapshotBuilder.build's switches)."""

    pg_table: bool = False
    osd_tree: bool = False
    shadow: bool = False  # the device-class shadow trees, with osd_tree
    crush: bool = False
    pools: bool = False
    users: bool = False


NOTHING_MORE = Fetch()


class Pane(Vertical):
    """Base of every tab's pane: the defaults of the contract above. One base class only: Textual's CSS
    type names (`OSDsPane`, `Vertical`) follow the first base, so a mixin before Vertical would hide it."""

    DEFAULT_CSS = "Pane { height: 1fr; }"  # the tab's whole body
    MUTATING: ClassVar[dict[str, str]] = {}  # action -> what it changes ("marking OSDs out")
    HELP: ClassVar[str] = ""
    ACTION_HELP: ClassVar[dict[str, str]] = {}

    @property
    def cephtui(self) -> CephTUI:
        """The running app, typed: its services (client, audit, confirm_operations …) without getattr."""
        return cephtui_app(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.MUTATING and self.cephtui.read_only:
            return None  # None: the footer shows the key dimmed, the app refuses it and says why
        return True

    def show(self, snap: ClusterSnapshot) -> None:
        raise NotImplementedError(f"{type(self).__name__}.show")

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
    """The key of the tab holding `pane` (its TabPane's id; see ui/registry.py)."""
    parent = pane.parent
    return (parent.id or "") if parent is not None else ""
