"""The dialogs the look tier shows: one list, read by scripts/capture_look.py (which opens each on a real
sandbox, so the capture holds what each one reads) and by tests/look/test_dialog_snapshots.py."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialog:
    name: str  # the snapshot's id
    tab: str  # the tab it opens from
    keys: tuple[str, ...]  # pressed on that tab; none of them confirms anything (nor do the steps)
    opens_screen: bool = True  # False: what it shows is inline (jump) or a notice (slow ops, none raised)
    # Keys pressed once the dialog has read what it reads, a group at a time, each waited out: what the
    # dialog does next (the CRUSH editor compiles, then previews; a form is submitted to its confirmation).
    steps: tuple[tuple[str, ...], ...] = ()


DIALOGS: tuple[Dialog, ...] = (
    Dialog("help", "health", ("question_mark",)),
    Dialog("jump", "health", ("colon", "p", "o"), opens_screen=False),
    Dialog("osd-detail", "osds", ("down", "down", "enter")),  # the first OSD, under its root and host
    Dialog("osd-reweight", "osds", ("down", "down", "w")),
    Dialog("crush-add-bucket", "crush", ("a",)),
    Dialog("crush-new-rule", "crush", ("u",)),
    Dialog("crush-editor", "crush", ("t",)),
    # One blank line added, compiled, then applied: the confirmation with its data-movement preview (which
    # reads the osdmap and runs osdmaptool on it); nothing is confirmed.
    Dialog("crush-editor-apply", "crush", ("t",), steps=(("ctrl+end", "enter", "ctrl+s"), ("ctrl+a",))),
    Dialog("pool-wizard", "pools", ("c",)),
    Dialog("pool-detail", "pools", ("enter",)),
    Dialog("pool-size", "pools", ("s",)),
    Dialog("user-wizard", "users", ("c",)),
    Dialog("user-caps", "users", ("e",)),
    Dialog("flag-set", "maintenance", ("s",)),
    Dialog("maintenance-enter", "maintenance", ("e",)),
    # One OSD, as for a disk swap: submitted, the form asks the mgr `osd ok-to-stop` and shows the confirmation.
    Dialog("maintenance-confirm", "maintenance", ("e",),
           steps=(("home", "ctrl+k", "o", "s", "d", "full_stop", "0", "tab", "ctrl+k", "enter"),)),
    Dialog("bench-new-run", "bench", ("b",)),
    Dialog("crashes", "doctor", ("c",)),
    Dialog("config-db", "doctor", ("g",)),
    Dialog("slow-ops-none", "doctor", ("s",), opens_screen=False),  # a healthy capture: "SLOW_OPS is not raised"
    Dialog("balancer", "doctor", ("b",)),
    Dialog("fs-evict", "fs", ("E",)),  # the first client: what evicting it does, its name to type
    Dialog("fs-blocklist", "fs", ("b",)),
    Dialog("fs-requests", "fs", ("s",)),  # the requests in flight at rank 0 (the look capture's idle clients)
    Dialog("fs-io", "fs", ("i",), opens_screen=False),  # per-client IO: the stats module off, as by default
    Dialog("fs-stats-enable", "fs", ("i", "M")),  # its confirmation: ceph mgr module enable stats
)
