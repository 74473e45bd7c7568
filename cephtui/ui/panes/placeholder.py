"""Tabs whose panes are still to come say what they will hold."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

COMING = {
    "osds": "The CRUSH hierarchy as a tree with per-OSD state, weights, utilisation and latency; "
            "mark in/out/down, reweight, device class, per-OSD noout.",
    "crush": "Buckets, rules, device classes and EC profiles; edits through forms or text, "
             "with a preview of the PGs and data a change would move before it is applied.",
    "pools": "Every pool with size, PGs, autoscaler, usage and IO; create/edit/delete wizards "
             "with a PG calculator.",
    "users": "cephx entities and caps; create-user templates, caps validation, keyring export.",
    "maintenance": "Guided OSD removal and replacement, and host maintenance mode "
                   "(noout per host, ok-to-stop preflight).",
    "bench": "A rados-bench-compatible live benchmark with sparklines, per-OSD bench and host stats.",
}


class Placeholder(Static):
    def __init__(self, key: str, title: str, **kw: object) -> None:
        text = Text(f"{title}\n\n", style="bold")
        text.append("Coming soon: ", style="italic")
        text.append(COMING.get(key, ""))
        super().__init__(text, classes="placeholder box", **kw)  # type: ignore[arg-type]
