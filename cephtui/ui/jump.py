"""`:` jumps, k9s style: a tab by name, or straight to an OSD, PG, pool, user or bucket.

Pure: what a typed line means (the tab names come from ui/tabs.py). The app does it (switch tab,
filter, put the cursor on a row).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cephtui.ui.tabs import TABS

# Tab key -> what an admin may type for it (the first is the tab's own name), from the tab registry.
TAB_NAMES: dict[str, tuple[str, ...]] = {t.key: (t.key, *t.aliases) for t in TABS}
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


def resolve(text: str, pools: Iterable[str] = (), buckets: Iterable[str] = ()) -> Jump:
    """What `:text` means. `pools`: the cluster's pool names (a bare word may be one); `buckets`: its
    hosts and other CRUSH buckets (the OSD tree filtered to one)."""
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
    if text.isdigit() and len(text) == 1 and (int(text) or 10) <= len(TAB_NAMES):
        return Jump(tab=list(TAB_NAMES)[(int(text) or 10) - 1])
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
    if text in set(buckets):
        return Jump(tab="osds", filter=text, reveal=text)
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


def suggestions(pools: Sequence[str] = (), osds: Sequence[int] = (), themes: Sequence[str] = (),
                users: Sequence[str] = (), buckets: Sequence[str] = ()) -> list[str]:
    """Completions for the jump bar: what `resolve` understands (tabs, commands, pools, OSDs, users,
    hosts and other buckets, `theme NAME`), each once, in that order."""
    out = ([names[0] for names in TAB_NAMES.values()] + ["quit", "help"] + list(pools)
           + [f"osd.{i}" for i in osds] + list(users) + list(buckets) + [f"theme {t}" for t in themes])
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class Names:
    """What the cluster calls things, for completion. A snapshot carries the OSD tree, CRUSH map and
    users only while their tab is shown, so what one snapshot lacks is kept from the last that had it."""

    pools: tuple[str, ...] = ()
    osds: tuple[int, ...] = ()
    users: tuple[str, ...] = ()
    buckets: tuple[str, ...] = ()


def names_from(snap: Any, old: Names) -> Names:
    """`old` updated from a ClusterSnapshot (only the parts it carries)."""
    pools = tuple(p.name for p in snap.capacity.pools)
    osds, buckets = old.osds, old.buckets
    table = snap.osd_table
    if table is not None:
        osds = tuple(sorted(o.id for o in table.osds))
        buckets = tuple(dict.fromkeys(r.node.name for r in table.rows
                                      if not r.is_osd and not getattr(r.node, "shadow", False)))
    elif snap.crush is not None:
        osds = tuple(sorted(d.id for d in snap.crush.devices))
        buckets = tuple(b.name for b in snap.crush.buckets if "~" not in b.name)  # not the class shadows
    users = tuple(u.name for u in snap.users) if snap.users is not None else old.users
    new = Names(pools, osds, users, buckets)
    return old if new == old else new


def complete(text: str, candidates: Sequence[str]) -> tuple[str, list[str]]:
    """Tab in the prompt, as a shell does: (the new text, the candidates that match `text`).

    One match: the whole of it. Several: their longest common prefix (case-insensitive), when that is
    longer than what was typed; otherwise the text stays and the caller lists (or cycles) the matches.
    """
    low = text.lower()
    matches = [c for c in candidates if c.lower().startswith(low)]
    if len(matches) == 1:
        return matches[0], matches
    if not matches:
        return text, []
    common = len(_common_prefix([m.lower() for m in matches]))
    return (matches[0][:common] if common > len(text) else text), matches


def _common_prefix(words: Sequence[str]) -> str:
    first, last = min(words), max(words)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def row_names(cells: Sequence[str]) -> set[str]:
    """The words of a row's first two cells: `▾ host node1` is node1, `● osd.3` is osd.3, a pool row its name."""
    return {w for c in cells[:2] for w in c.split()}
