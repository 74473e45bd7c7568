"""One RBD image's facts as text: its row of the Images tab (and the trash's and iostat's rows), and what the
tab's detail box and the image's own screen show, as `rbd info`, `rbd du`, `rbd snap ls` and `rbd status` say it."""
from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from cephtui.ceph.format import human_bytes, human_duration, human_rate
from cephtui.ceph.images import perf
from cephtui.ceph.images.model import ImageInfo, ImageRef, TrashEntry, naive_utc
from cephtui.ui import palette


def age(when: dt.datetime | None, now: dt.datetime) -> str:
    when = naive_utc(when)
    if when is None:
        return "?"
    return human_duration(max((now - when).total_seconds(), 0))


def describe(info: ImageInfo, now: dt.datetime, hints: bool = True) -> Table:
    """The selected image, as `rbd info`, `rbd du`, `rbd snap ls` and `rbd status` would say it."""
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold", width=10)
    t.add_column()
    used = "not measured" if info.used is None else human_bytes(info.used) + (
        "" if info.used_exact else " (scanned: no fast-diff)")
    used += " used"
    if info.used is not None and info.snaps_used:
        used += (f" by the image itself, {human_bytes(info.snaps_used)} more by its snapshots "
                 f"({human_bytes(info.used + info.snaps_used)} in all, as rbd du's total)")
    t.add_row("image", Text(f"{info.ref.spec}  id {info.id}", style="bold"))
    t.add_row("size", f"{human_bytes(info.size)} provisioned, {used}; objects of "
                      f"{human_bytes(info.object_size)}" + (f"; data in {info.data_pool}" if info.data_pool else ""))
    t.add_row("features", ", ".join(info.features) or "none")
    if info.parent:
        t.add_row("parent", f"clone of {info.parent}" + (" (f flattens it)" if hints else ""))
    if info.children:
        t.add_row("children", ", ".join(info.children[:6]) + (" …" if len(info.children) > 6 else ""))
    if info.snaps:
        snaps = ", ".join(f"{s.name}{' (protected)' if s.protected else ''}" for s in info.snaps[-6:])
        newest = info.newest_snap
        t.add_row("snapshots", f"{len(info.snaps)}: {snaps}; newest {age(newest.timestamp if newest else None, now)} "
                               "old" + (" (enter: all, with their operations)" if hints else ""))
    if info.watchers:
        t.add_row("watchers", Text("; ".join(w.describe() for w in info.watchers) + ": in use (a VM, a mapped device)",
                                   style=palette.style("bold warn")))
    else:
        t.add_row("watchers", Text("none: no client has it open", style=palette.style("muted")))
    if info.mirroring:
        t.add_row("mirroring", info.mirroring)
    if info.problem:
        t.add_row("note", Text(info.problem, style=palette.style("warn")))
    return t


def snapshot_lines(info: ImageInfo, now: dt.datetime) -> Sequence[tuple[str, ...]]:
    return [(s.name, human_bytes(s.size), "yes" if s.protected else "", age(s.timestamp, now),
             human_bytes(s.used) if s.used is not None else "?") for s in info.snaps]


PENDING = "…"


def image_cells(ref: ImageRef, info: ImageInfo | None, error: str | None, scanning: bool,
                now: dt.datetime) -> list[tuple[str, str]]:
    """An image's row of the Images tab, (text, palette style) per column: "…" until its details are read."""
    name = (ref.name, "bold")
    if info is None:
        if error:
            return [name, (f"✖ {error}"[:60], palette.style("err"))]
        return [name, (PENDING, palette.style("muted"))]
    muted = palette.style("muted")
    if info.used is None:
        used = ("scanning…" if scanning else "?", muted)
    else:
        # The head's own used size, then what its snapshots hold beyond it (rbd du's snapshot lines): an
        # image at 0 B whose snapshot keeps 200 MiB reads "0 B +200 MiB", not "0 B".
        extra = f" +{human_bytes(info.snaps_used)}" if info.snaps_used else ""
        used = (human_bytes(info.used) + extra + ("" if info.used_exact else " *"),
                "" if info.used_exact else muted)
    snaps = "-"
    if info.snaps:
        newest = info.newest_snap
        prot = f" {len(info.protected_snaps)}P" if info.protected_snaps else ""
        snaps = f"{len(info.snaps)}{prot} {age(newest.timestamp if newest else None, now)}"
    watchers = ("-", muted)
    if info.watchers:
        w = info.watchers[0]
        more = f" +{len(info.watchers) - 1}" if len(info.watchers) > 1 else ""
        watchers = ((w.host or w.address) + more, palette.style("bold warn"))
    return [name, (human_bytes(info.size), ""), used, (snaps, ""), watchers,
            (info.parent or "-", "" if info.parent else muted), (",".join(info.features), muted),
            (human_bytes(info.object_size), ""), (info.data_pool or "-", ""),
            (str(len(info.children)) if info.children else "-", ""), (info.mirroring or "-", muted)]


def trash_cells(e: TrashEntry, now: dt.datetime) -> list[tuple[str, str]]:
    when = e.deferred_until
    purge = "now" if e.expired(now) else f"after {when:%Y-%m-%d %H:%M}" if when else "?"
    return [(e.name, "bold"), (e.id, ""), (e.source, ""),
            (f"{e.deleted:%Y-%m-%d %H:%M}" if e.deleted else "?", ""), (purge, "")]


def io_cells(r: perf.ImageIO) -> list[tuple[str, str]]:
    return [(r.spec, "bold"), (perf.rate_words(r.write_ops), ""), (perf.rate_words(r.read_ops), ""),
            (human_rate(r.write_bytes), ""), (human_rate(r.read_bytes), ""),
            (perf.latency_words(r.write_latency), ""), (perf.latency_words(r.read_latency), "")]
