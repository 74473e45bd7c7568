"""Guided OSD removal and replacement: a persisted state machine that never skips a safety check.

Steps: preflight -> drain -> wait_safe -> stop -> remove -> (replace) -> backfill -> done.

`RemovalEngine.tick()` does one short piece of work (one command or one poll)
and saves the state, so the UI drives it from a worker on a timer and a killed
cephtui resumes exactly where it stopped. `osd destroy`/`osd purge` get
--yes-i-really-mean-it only after `osd safe-to-destroy` said yes in *this* run
(a resumed workflow asks again); --force is never used.

An OSD is stopped only when the cluster is clean *by stats newer than the drain*: a single yes from
safe-to-destroy read right after `osd out` comes from PG stats that predate the out (seen: purged with
25 PGs peering and 20 % of the objects degraded). See `StopGate`.

This module holds the persisted state (Removal) and its vocabulary; removal_engine the steps,
removal_checks the gates and checks, removal_stop the stop command.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from cephtui.ceph.workflows.store import WorkflowStore

KIND = "removal"
STEPS = ("preflight", "drain", "wait_safe", "stop", "remove", "replace", "backfill", "done")
STALL_FLAGS = ("pause", "norecover", "nobackfill", "norebalance")
BAD_PG_STATES = ("down", "incomplete", "stale", "inactive", "unknown", "peering", "activating")
# For seconds after an OSD comes or goes (stale: the dead primary's PGs until another OSD takes over).
SETTLING_PG_STATES = ("peering", "activating", "stale")
SETTLE_TIMEOUT = 90.0  # seconds; after that, still-inactive PGs are a blocker
# What a PG may show besides active+clean and still count as clean: background work that keeps every copy.
CLEAN_EXTRAS = frozenset({"scrubbing", "deep", "snaptrim", "snaptrim_wait"})
# Blockers the operator may lift, each with the risk the override accepts (shown, and written to the audit log).
OVERRIDES = {
    "ok-to-stop": "stopping these OSDs now would leave PGs without enough copies to serve IO until the drain "
                  "has moved their data",
    "osds-down": "other OSDs are down: some data already has fewer copies, and this removal takes away more",
    "pgs": "PGs are already degraded, moving or inactive: their redundancy is reduced while this drain runs",
}
DRAIN_MODES = ("crush0", "out")


def default_drain(replace: bool) -> str:
    """crush0 for a removal: the purge then takes a weight-0 item out of CRUSH and nothing moves a second time
    (drained by `out`, the purge moved data again and 3 PGs peered for 5 s: PG_AVAILABILITY, client IO to them
    stopped). out for a replacement: destroy keeps the OSD's CRUSH item and weight, so the new disk takes its
    place with no weight to restore and nothing moving between other OSDs."""
    return "out" if replace else "crush0"


PLACEHOLDERS = ("id", "host", "name")  # what a stop template may use: {id} 3, {host} node1, {name} osd.3
SHELL_CHARS = ("&&", "||", "|", ";", ">", "<", "$(", "`", "*", "~")


class StopCommandError(Exception):
    """The stop template cannot be turned into a command (unknown placeholder, shell syntax without a shell)."""


class StopFailed(Exception):
    """The stop command ran and failed; the message says which command, its exit status and its output."""


@dataclass
class Check:
    name: str
    level: str  # ok / warn / wait / block / override (a blocker the operator lifted)
    detail: str
    override: str = ""  # the --override name that lifts this blocker ("" = none can)
    # A wait: what the PGs still are if it lasts past the engine's SETTLE_TIMEOUT and becomes a blocker.
    lasting: str = "not active"


@dataclass
class Removal:
    osds: list[int]
    replace: bool = False
    drain_mode: str = ""  # crush0: CRUSH weight 0 / out: mark out (reweight 0, CRUSH unchanged); "": the default
    stop_template: str = ""  # e.g. 'ssh {host} systemctl stop ceph-osd@{id}'; '' = systemd here or manual
    stop_shell: bool = False  # run the stop template through /bin/sh -c (only when the operator asks)
    overrides: list[str] = field(default_factory=list)  # blockers lifted by the operator (OVERRIDES keys)
    id: str = field(default_factory=lambda: time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6])
    step: str = "preflight"
    status: str = "running"  # running / paused / blocked / failed / done / aborted
    waiting_for: str = ""
    checks: list[dict[str, str]] = field(default_factory=list)
    progress: dict[str, Any] = field(default_factory=dict)
    original: dict[str, dict[str, Any]] = field(default_factory=dict)  # per OSD, for abort
    dead: list[int] = field(default_factory=list)
    held_by: list[int] = field(default_factory=list)  # other OSDs down while this one drains: no stop/destroy
    down_at_start: list[int] = field(default_factory=list)  # other OSDs already down at preflight
    drain_epoch: int = 0  # osdmap epoch after the drain's own change: stats older than it prove nothing
    drain_pgs: list[str] = field(default_factory=list)  # PGs that had these OSDs in up/acting when the drain began
    stopped: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if not self.drain_mode:
            self.drain_mode = default_drain(self.replace)

    @property
    def title(self) -> str:
        what = "Replace" if self.replace else "Remove"
        return f"{what} {', '.join(f'osd.{i}' for i in self.osds)}"

    @property
    def finished(self) -> bool:
        return self.status in ("done", "aborted")

    def note(self, text: str, cli: str = "") -> None:
        self.log.append({"time": time.time(), "step": self.step, "text": text, "cli": cli})
        del self.log[:-200]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Any) -> Removal:
        """A saved state; ValueError naming the field when the file holds something else (hand-edited,
        another version): a workflow must never resume from a state it misreads."""
        if not isinstance(d, dict):
            raise ValueError(f"removal state: expected an object, got {type(d).__name__}")
        osds = d.get("osds")
        if not isinstance(osds, list) or not osds or not all(type(i) is int and i >= 0 for i in osds):
            raise ValueError(f"removal state: 'osds' must be a list of OSD ids, got {str(osds)[:80]}")
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        template = cls(osds=[])
        for k, v in known.items():
            want = type(getattr(template, k))
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) if want is float else isinstance(v, want)
            if not ok:
                raise ValueError(f"removal state: '{k}' must be {want.__name__}, got {str(v)[:80]}")
        for k in ("dead", "stopped", "removed", "held_by", "down_at_start"):
            if not all(type(i) is int for i in known.get(k, ())):
                raise ValueError(f"removal state: '{k}' must be a list of OSD ids")
        return cls(**known)


@dataclass
class GateReading:
    """One poll of the stop (or done) gate: what holds, and in words what is still awaited."""

    ok: bool
    waits: list[str]
    safe_answer: str = ""


def unfinished(store: WorkflowStore | None = None) -> list[Removal]:
    out = []
    for d in (store or WorkflowStore()).load_all(KIND):
        try:
            r = Removal.from_json(d)
        except ValueError:
            continue  # a damaged state file is not ours to act on (as WorkflowStore.load_all skips non-JSON)
        if not r.finished:
            out.append(r)
    return out
