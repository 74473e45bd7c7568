"""The removal queue as rows (`cephtui remove --status`, the TUI's queue screen and header indicator)."""
from __future__ import annotations

import os
import time
from typing import Any

from cephtui.ceph.workflows.removal import Removal
from cephtui.ceph.workflows.store import origin

DRIVER_FRESH = 60.0  # s: a running workflow another process updated this recently is being driven there


def pgs_left(r: Removal) -> int | None:
    """The PGs this workflow still waits for, or None where no such number applies (shown as "—").

    While it drains: the PGs still on its OSD(s) (`osd df`, read on every tick, so as live as the workflow);
    from the stop to the purge: 0 (the stop needed 0); while it backfills after a replacement: the PGs not yet
    active+clean. Finished, not yet drained, or waiting for a new disk: None, never the last count it saved
    (a finished replacement kept 18 or 19, the PGs of its new OSD)."""
    if r.finished:
        return None
    p = r.progress or {}
    if r.step == "wait_safe":
        return _count(p.get("pgs_on_osds"))
    if r.step in ("stop", "remove"):
        return 0
    if r.step == "backfill":
        return _count(p.get("pgs_not_clean"))
    return None


def _count(v: object) -> int | None:
    return v if type(v) is int and v >= 0 else None


def queue_rows(queue: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The queue as rows (also the TUI's queue screen): newest first."""
    rows: list[dict[str, Any]] = []
    for d in queue:
        try:
            r = Removal.from_json(d)
        except ValueError:
            continue
        by, driver = origin(d)
        p = r.progress or {}
        rows.append({"id": r.id, "osds": [f"osd.{i}" for i in r.osds], "kind": "replace" if r.replace else "remove",
                     "step": r.step, "status": r.status, "pgs_left": pgs_left(r),
                     "pgs_not_clean": p.get("pgs_not_clean"), "started": r.started, "updated": r.updated,
                     "started_by": by, "driven_by": driver, "pid": (d.get("_cephtui") or {}).get("pid"),
                     "waiting_for": r.waiting_for})
    rows.sort(key=lambda x: x["started"], reverse=True)
    return rows


def driven_elsewhere(row: dict[str, Any], me: str, now: float | None = None) -> bool:
    """Running, and saved by another live process within DRIVER_FRESH: someone else's cephtui is ticking it.
    `me` is the store's whoami(): on this very host a process that is gone does not count."""
    now = time.time() if now is None else now
    if row["status"] != "running" or now - float(row["updated"]) >= DRIVER_FRESH:
        return False
    pid = row.get("pid")
    if row.get("driven_by") == me and type(pid) is int:
        return pid != os.getpid() and _alive(pid)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def indicator(rows: list[dict[str, Any]]) -> str:
    """The header's 'removal in flight' text, or '' when nothing is running, paused, blocked or failed."""
    live = [r for r in rows if r["status"] not in ("done", "aborted")]
    if not live:
        return ""
    if len(live) == 1:
        r = live[0]
        pgs = f", {r['pgs_left']} PGs left" if r["pgs_left"] is not None else ""
        return f"{'replacing' if r['kind'] == 'replace' else 'removing'} {','.join(r['osds'])}: {r['status']} " \
               f"({r['step']}{pgs})"
    counts: dict[str, int] = {}
    for r in live:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return f"{len(live)} removals: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
