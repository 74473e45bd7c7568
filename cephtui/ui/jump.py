"""`:` jumps, k9s style: a tab by name, or straight to an OSD, PG, pool, user or bucket.

Pure: what a typed line means. The app does it (switch tab, filter, put the cursor on a row).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Tab key -> what an admin may type for it (the first is the tab's own name).
TAB_NAMES: dict[str, tuple[str, ...]] = {
    "health": ("health", "h", "status", "s", "ceph"),
    "pgs": ("pgs", "pg", "placement"),
    "osds": ("osds", "osd", "o", "tree"),
    "crush": ("crush", "c", "buckets", "rules"),
    "pools": ("pools", "pool", "p", "df"),
    "users": ("users", "user", "u", "auth", "caps"),
    "maintenance": ("maintenance", "maint", "m", "flags"),
    "bench": ("bench", "b", "benchmark"),
    "activity": ("activity", "a", "audit", "log", "history"),
}
COMMANDS = ("quit", "q", "help", "theme")
PGID = re.compile(r"^\d+\.[0-9a-f]+$")
OSD = re.compile(r"^osd\.(\d+)$")
ENTITY = re.compile(r"^(client|mgr|mds|mon|rgw|bootstrap-[a-z-]+|crash|rbd-mirror|nfs)\..+")


@dataclass(frozen=True)
class Jump:
    """What to do: show `tab`, then put its filter to `filter` and/or the cursor on the row named `reveal`."""

    tab: str = ""
    reveal: str = ""
    filter: str = ""
    command: str = ""  # "quit", "help", "theme"
    arg: str = ""
    note: str = ""
    error: str = ""


def _tab(word: str) -> str | None:
    word = word.lower()
    for key, names in TAB_NAMES.items():
        if word in names:
            return key
    return None


def resolve(text: str, pools: Iterable[str] = ()) -> Jump:
    """What `:text` means. `pools`: the cluster's pool names (a bare word may be one)."""
    text = " ".join(text.split())
    if not text:
        return Jump(error="type a tab (osds, pools …), osd.3, a PG id, a pool, a user or a host")
    head, _, rest = text.partition(" ")
    low = head.lower()
    if low in ("q", "quit", "q!", "exit"):
        return Jump(command="quit")
    if low in ("help", "?"):
        return Jump(command="help")
    if low == "theme":
        return Jump(command="theme", arg=rest)
    if text.isdigit() and 1 <= int(text) <= len(TAB_NAMES):
        return Jump(tab=list(TAB_NAMES)[int(text) - 1])
    tab = _tab(head)
    if tab is not None:
        return _with_argument(tab, rest)
    if (m := OSD.match(text)) is not None:
        return Jump(tab="osds", reveal=f"osd.{int(m.group(1))}")
    if PGID.match(text.lower()):
        return Jump(tab="pgs", filter=text.lower(), reveal=text.lower())
    if ENTITY.match(text):
        return Jump(tab="users", reveal=text)
    if text in set(pools):
        return Jump(tab="pools", reveal=text)
    # Anything else may be a host, a bucket or a device class: the OSD tree's filter knows those.
    return Jump(tab="osds", filter=text, reveal=text,
                note=f"no tab, OSD, PG, pool or user is called '{text}': filtering the OSD tree for it")


def _with_argument(tab: str, rest: str) -> Jump:
    if not rest:
        return Jump(tab=tab)
    if tab == "osds":
        osd = f"osd.{rest}" if rest.isdigit() else rest
        return Jump(tab=tab, reveal=osd, filter="" if OSD.match(osd) else rest)
    if tab in ("pgs", "users"):
        return Jump(tab=tab, filter=rest, reveal=rest)
    return Jump(tab=tab, reveal=rest)


def suggestions(pools: Sequence[str] = (), osds: Sequence[int] = (), themes: Sequence[str] = ()) -> list[str]:
    """Completions for the jump bar: tab names, commands, pools, OSDs, `theme NAME`."""
    return ([names[0] for names in TAB_NAMES.values()] + ["quit", "help"] + list(pools)
            + [f"osd.{i}" for i in osds] + [f"theme {t}" for t in themes])


def row_names(cells: Sequence[str]) -> set[str]:
    """The words of a row's first two cells: `▾ host node1` is node1, `● osd.3` is osd.3, a pool row its name."""
    return {w for c in cells[:2] for w in c.split()}
