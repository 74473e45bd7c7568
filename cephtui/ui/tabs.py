"""The tabs, in order: their facts (key, title, what `:` takes, short title), the one list the app's layout,
number keys, `?`, the command palette and `:` jump read. No pane class here, so the jump prompt and the help
read the tabs without loading every pane; ui/registry.py says which pane fills each tab.

Adding a tab: one pane file (ui/pane.py says what it implements), one line here, one in ui/registry.py."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tab:
    key: str  # the TabPane's id, `:key` and the help section; its number key is its place in TABS
    title: str
    aliases: tuple[str, ...] = ()  # what else `:` takes for it
    # Shown at every snapshot even while hidden: the pane keeps state the status bar or its forms need.
    always_shown: bool = False
    short: str = ""  # the title under 100 columns, where all twelve labels must fit in 80

    def label(self, place: int, narrow: bool = False) -> str:
        """The tab's label: its title (short when narrow) and its number key."""
        title = (self.short or self.title) if narrow else self.title
        return f"{title} {number_key(place)}" if place <= NUMBER_KEYS else title

    @property
    def pane_id(self) -> str:
        return f"{self.key}-pane"


TABS: tuple[Tab, ...] = (
    Tab("health", "Health", ("h", "status", "s", "ceph")),
    Tab("pgs", "PGs", ("pg", "placement"), short="PG"),
    Tab("osds", "OSDs", ("osd", "o", "tree"), short="OSD"),
    Tab("crush", "CRUSH", ("c", "buckets", "rules")),
    Tab("pools", "Pools", ("pool", "p", "df")),
    Tab("users", "Users", ("user", "u", "auth", "caps"), short="Auth"),
    Tab("maintenance", "Maintenance", ("maint", "m", "flags"), always_shown=True, short="Maint"),
    Tab("bench", "Bench", ("b", "benchmark"), always_shown=True),
    Tab("activity", "Activity", ("a", "audit", "log", "history"), short="Audit"),
    Tab("doctor", "Doctor", ("d", "doc", "explain", "fix", "why"), short="Doc"),
    # The eleventh tab: past the number row, reached by `:images` (`:rbd` names the pool), a click or the palette.
    Tab("images", "Images", ("i", "img", "image", "block"), short="RBD"),
    # The twelfth: `:fs` (`:cephfs`, `:mds`, `:clients`), a click or the palette.
    Tab("fs", "File systems", ("f", "cephfs", "mds", "filesystems", "clients", "sessions"), short="FS"),
)


NUMBER_KEYS = 10  # 1…9 and 0: the tabs after the tenth have none


def number_key(place: int) -> str:
    """The key that shows the tab at `place` (1-based): 1…9, then 0 for the tenth, as on the keyboard's row."""
    if not 1 <= place <= 10:
        raise ValueError(f"no number key for tab {place}: at most 10 tabs")
    return str(place % 10)


def tab(key: str) -> Tab:
    return next(t for t in TABS if t.key == key)


def place_of(key: str) -> int:
    """The tab's place in TABS, 1-based (its number key, where it has one)."""
    return next(i for i, t in enumerate(TABS, 1) if t.key == key)
