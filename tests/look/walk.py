"""The dialogs the look tier shows: one list, read by scripts/capture_look.py (which opens each on a real
sandbox, so the capture holds what each one reads) and by tests/look/test_dialog_snapshots.py."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialog:
    name: str  # the snapshot's id
    tab: str  # the tab it opens from
    keys: tuple[str, ...]  # pressed on that tab; none of them confirms anything
    opens_screen: bool = True  # False: what it shows is inline (jump) or a notice (slow ops, none raised)


DIALOGS: tuple[Dialog, ...] = (
    Dialog("help", "health", ("question_mark",)),
    Dialog("jump", "health", ("colon", "p", "o"), opens_screen=False),
    Dialog("osd-detail", "osds", ("down", "down", "enter")),  # the first OSD, under its root and host
    Dialog("osd-reweight", "osds", ("down", "down", "w")),
    Dialog("crush-add-bucket", "crush", ("a",)),
    Dialog("crush-new-rule", "crush", ("u",)),
    Dialog("pool-wizard", "pools", ("c",)),
    Dialog("pool-detail", "pools", ("enter",)),
    Dialog("pool-size", "pools", ("s",)),
    Dialog("user-wizard", "users", ("c",)),
    Dialog("user-caps", "users", ("e",)),
    Dialog("flag-set", "maintenance", ("s",)),
    Dialog("maintenance-enter", "maintenance", ("e",)),
    Dialog("bench-new-run", "bench", ("b",)),
    Dialog("crashes", "doctor", ("c",)),
    Dialog("config-db", "doctor", ("g",)),
    Dialog("slow-ops-none", "doctor", ("s",), opens_screen=False),  # a healthy capture: "SLOW_OPS is not raised"
    Dialog("balancer", "doctor", ("b",)),
)
