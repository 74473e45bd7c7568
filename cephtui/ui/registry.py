"""The tabs, in order: the one list the app's layout, number keys, polling, `?`, the command palette,
`:` jump and --read-only read. Adding a tab: one pane file (ui/pane.py says what it implements) and
one line here."""
from __future__ import annotations

from dataclasses import dataclass

from cephtui.ui.pane import Pane
from cephtui.ui.panes.activity import ActivityPane
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.crush import CrushPane
from cephtui.ui.panes.doctor import DoctorPane
from cephtui.ui.panes.health import HealthPane
from cephtui.ui.panes.images import ImagesPane
from cephtui.ui.panes.maintenance import MaintenancePane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.panes.pgs import PGsPane
from cephtui.ui.panes.pools import PoolsPane
from cephtui.ui.panes.users import UsersPane


@dataclass(frozen=True)
class Tab:
    key: str  # the TabPane's id, `:key` and the help section; its number key is its place in TABS
    title: str
    pane: type[Pane]
    aliases: tuple[str, ...] = ()  # what else `:` takes for it
    # Shown at every snapshot even while hidden: the pane keeps state the status bar or its forms need.
    always_shown: bool = False
    short: str = ""  # the title under 100 columns, where all ten labels must fit in 80

    def label(self, place: int, narrow: bool = False) -> str:
        """The tab's label: its title (short when narrow) and its number key."""
        title = (self.short or self.title) if narrow else self.title
        return f"{title} {number_key(place)}" if place <= NUMBER_KEYS else title

    @property
    def pane_id(self) -> str:
        return f"{self.key}-pane"


TABS: tuple[Tab, ...] = (
    Tab("health", "Health", HealthPane, ("h", "status", "s", "ceph")),
    Tab("pgs", "PGs", PGsPane, ("pg", "placement")),
    Tab("osds", "OSDs", OSDsPane, ("osd", "o", "tree")),
    Tab("crush", "CRUSH", CrushPane, ("c", "buckets", "rules")),
    Tab("pools", "Pools", PoolsPane, ("pool", "p", "df")),
    Tab("users", "Users", UsersPane, ("user", "u", "auth", "caps")),
    Tab("maintenance", "Maintenance", MaintenancePane, ("maint", "m", "flags"), always_shown=True, short="Maint"),
    Tab("bench", "Bench", BenchPane, ("b", "benchmark"), always_shown=True),
    Tab("activity", "Activity", ActivityPane, ("a", "audit", "log", "history"), short="Audit"),
    Tab("doctor", "Doctor", DoctorPane, ("d", "doc", "explain", "fix", "why"), short="Doc"),
    # The eleventh tab: past the number row, reached by `:images` (`:rbd` names the pool), a click or the palette.
    Tab("images", "Images", ImagesPane, ("i", "img", "image", "block"), short="RBD"),
)


NUMBER_KEYS = 10  # 1…9 and 0: the tabs after the tenth have none


def number_key(place: int) -> str:
    """The key that shows the tab at `place` (1-based): 1…9, then 0 for the tenth, as on the keyboard's row."""
    if not 1 <= place <= 10:
        raise ValueError(f"no number key for tab {place}: at most 10 tabs")
    return str(place % 10)


def tab(key: str) -> Tab:
    return next(t for t in TABS if t.key == key)
