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
"""
from __future__ import annotations

import errno
import shlex
import shutil
import socket
import string
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.client import CephError, CephMgrDown, CephTimeout
from cephtui.ceph.coerce import as_dict, as_float, as_list, as_str, as_strs, dicts
from cephtui.ceph.coerce import as_int as _i
from cephtui.ceph.crush import crushtool
from cephtui.ceph.crush.preview import fetch_osdmap
from cephtui.ceph.ops.fillcalc import project_removal
from cephtui.ceph.snapshot.parse import _pg_stats_list
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


@dataclass
class Removal:
    osds: list[int]
    replace: bool = False
    drain_mode: str = "out"  # out: mark out (reweight 0, CRUSH unchanged) / crush0: CRUSH weight 0
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


class RemovalEngine:
    def __init__(self, client: Any, state: Removal, store: WorkflowStore | None = None,
                 audit: ops.AuditLog | None = None, shell: Callable[[list[str]], tuple[int, str]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.state = state
        self.store = store or WorkflowStore()
        self.audit = audit
        self.shell = shell or _run_argv
        self.clock = clock
        self.safe_verified: set[int] = set()  # this run only: never read from the state file
        self._gate_since: float | None = None  # when the gate first held, in this run (consecutive polls)
        self._last_safe_answer = ""  # the last safe-to-destroy answer written to the audit log
        self._samples: list[tuple[float, int]] = []  # (time, objects left to recover) for the observed rate
        self._stats_period: float | None = None

    # ------------------------------------------------------------ persistence / control
    def save(self) -> None:
        self.state.updated = time.time()
        self.store.save(KIND, self.state.id, self.state.to_json())

    def pause(self) -> None:
        if self.state.status == "running":
            self.state.status = "paused"
            self.state.note("paused by the operator")
            self.save()

    def resume(self, stop_template: str | None = None, stop_shell: bool | None = None) -> None:
        """Continue; a new stop method (a failing command must not be kept for ever) is checked and noted."""
        s = self.state
        if stop_template is not None or stop_shell is not None:
            template = s.stop_template if stop_template is None else stop_template.strip()
            shell = s.stop_shell if stop_shell is None else stop_shell
            check_stop_template(template, shell)
            if (template, shell) != (s.stop_template, s.stop_shell):
                s.note(f"stop method changed: {describe_stop(s.stop_template, s.stop_shell)} -> "
                       f"{describe_stop(template, shell)}")
                s.stop_template, s.stop_shell = template, shell
        if s.status in ("paused", "blocked", "failed"):
            s.status = "running"
            s.note("resumed")
            if s.step == "preflight":
                s.checks = []
            self._gate_since = None
            self.save()

    def abort(self) -> list[str]:
        """Stop here and undo what can be undone: OSDs not yet removed go back to their old weights."""
        undone: list[str] = []
        s = self.state
        for osd in s.osds:
            if osd in s.removed:
                continue
            orig = s.original.get(str(osd))
            if not orig:
                continue
            try:
                if s.drain_mode == "crush0" and orig.get("crush_weight") is not None:
                    undone.append(self._run(ops.crush_reweight(f"osd.{osd}", orig["crush_weight"])))
                elif orig.get("in", True):
                    undone.append(self._run(ops.osd_in([osd])))
            except CephError as e:
                undone.append(f"could not restore osd.{osd}: {e.message}")
        if any(i in s.stopped for i in s.osds if i not in s.removed):
            undone.append("stopped daemons stay stopped: start them again on their host "
                          f"({', '.join(f'osd.{i}' for i in s.stopped if i not in s.removed)})")
        s.status = "aborted"
        s.waiting_for = "aborted; " + ("; ".join(undone) or "nothing had changed, nothing to undo")
        s.note(s.waiting_for)
        self.save()
        return undone

    def _run(self, op: ops.Operation) -> str:
        msg = ops.run(self.client, op, self.audit)
        self.state.note(msg or op.title, op.cli)
        return msg or op.title

    def _audit(self, title: str, cli: str, ok: bool, message: str, rc: int | None = None,
               prefix: str = "cephtui removal") -> None:
        """What authorised a step (an override, a safe-to-destroy answer, a stop command) goes to the audit log
        and, through its session list, to the Activity tab."""
        if self.audit is not None:
            self.audit.record(ops.Operation(title=title, prefix=prefix, args=(("workflow", self.state.id),),
                                            cli=cli), ok, message, rc=rc if rc is not None else (0 if ok else -1))

    # ------------------------------------------------------------ the state machine
    def tick(self) -> Removal:
        s = self.state
        if s.status != "running":
            return s
        try:
            getattr(self, f"_step_{s.step}")()
        except CephTimeout as e:
            s.waiting_for = f"the cluster did not answer ({e.message}); retrying"
        except CephError as e:
            if _transient(e):  # no active mgr (or the mon said try again): a state to wait out, not a failure
                s.waiting_for = f"{e.prefix}: {e.message}; retrying"
            else:
                s.status = "failed"
                s.note(f"refused: {e.message} [errno {e.errno}]")
                s.waiting_for = f"{e.prefix}: {e.message}. Fix the cause, then resume (p) or abort (a)."
        except (StopFailed, StopCommandError) as e:
            s.status = "failed"
            s.note(str(e))
            s.waiting_for = f"{e} Resume (p) to try again, with a corrected stop command if needed, or abort (a)."
        self.save()
        return s

    def _go(self, step: str, text: str = "") -> None:
        self.state.step = step
        self.state.waiting_for = ""
        self._gate_since = None
        if text:
            self.state.note(text)

    def _osd_dump(self) -> dict[str, Any]:
        return as_dict(self.client.mon("osd dump"))

    def _tree(self) -> dict[int, dict[str, Any]]:
        """`osd tree` OSD nodes by id (nodes without an int id, from another release's shape, skipped)."""
        return {n["id"]: n for n in dicts(as_dict(self.client.mon("osd tree")).get("nodes"))
                if type(n.get("id")) is int and n["id"] >= 0}

    def _step_preflight(self) -> None:
        s = self.state
        checks = preflight(self.client, s.osds, s.overrides)
        s.checks = [asdict(c) for c in checks]
        dump = self._osd_dump()
        by_id = {_i(o.get("osd")): o for o in dicts(dump.get("osds"))}
        missing = [i for i in s.osds if i not in by_id]
        if missing:
            s.status = "blocked"
            s.waiting_for = f"{', '.join(f'osd.{i}' for i in missing)} does not exist"
            return
        if any(c.level == "wait" for c in checks) and not any(c.level == "block" for c in checks):
            since = s.progress.setdefault("settling_since", time.time())
            if time.time() - since < SETTLE_TIMEOUT:
                s.waiting_for = "; ".join(c.detail for c in checks if c.level == "wait")
                return  # preflight again on the next tick
            for c in checks:
                if c.level == "wait":
                    c.level = "block"
                    c.override = "pgs"
                    c.detail = c.detail.split(";")[0] + f" and still not active after {SETTLE_TIMEOUT:.0f} s"
            s.checks = [asdict(c) for c in checks]
        s.progress.pop("settling_since", None)
        if any(c.level == "block" for c in checks):
            s.status = "blocked"
            lift = sorted({c.override for c in checks if c.level == "block" and c.override})
            s.waiting_for = ("preflight found blockers (see above); fix them and resume (p), or abort (a)"
                             + (f"; a new plan can accept the risk with an override ({', '.join(lift)})"
                                if lift else ""))
            return
        for c in checks:
            if c.level == "override":
                s.note(f"OVERRIDE {c.override}: {c.detail}")
                self._audit(f"Override {c.override} for {s.title}", f"cephtui remove --override {c.override}",
                            True, f"risk accepted: {OVERRIDES.get(c.override, '')}; preflight said: {c.detail}")
        tree = self._tree()
        for i in s.osds:
            o = by_id[i]
            s.original[str(i)] = {"in": bool(o.get("in")), "reweight": o.get("weight"),
                                  "crush_weight": (tree.get(i) or {}).get("crush_weight")}
        s.dead = [i for i in s.osds if not by_id[i].get("up")]
        s.down_at_start = sorted(i for i, o in by_id.items() if i not in s.osds and not o.get("up"))
        s.held_by = []
        self._go("drain", "preflight passed" + (f"; already down: {s.dead}" if s.dead else ""))

    def _step_drain(self) -> None:
        s = self.state
        if not s.drain_pgs:  # before the change: afterwards the stats no longer say where the data was
            targets = set(s.osds)
            s.drain_pgs = sorted(str(pg.get("pgid")) for pg in _pgs_brief(self.client)
                                 if (_osd_set(pg.get("up")) | _osd_set(pg.get("acting"))) & targets)
        dump = self._osd_dump()
        by_id = {_i(o.get("osd")): o for o in dicts(dump.get("osds"))}
        if s.drain_mode == "crush0":
            tree = self._tree()
            for i in s.osds:
                if as_float((tree.get(i) or {}).get("crush_weight")) > 0:
                    self._run(ops.crush_reweight(f"osd.{i}", 0))
        todo = [i for i in s.osds if by_id.get(i, {}).get("in")]
        # A down OSD is marked out too: recovery starts now instead of after mon_osd_down_out_interval.
        if todo and s.drain_mode == "out" or (todo and s.dead):
            self._run(ops.osd_out(todo if s.drain_mode == "out" else [i for i in todo if i in s.dead]))
        s.drain_epoch = _i(self._osd_dump().get("epoch"))
        self._go("wait_safe", f"drain started at osdmap epoch {s.drain_epoch}: waiting until every PG is "
                              "active+clean by stats newer than that, and safe-to-destroy says yes")

    def _watch_osds(self) -> list[int]:
        """Notice OSDs dying while we drain; returns the other OSDs that hold the workflow.

        One of ours dying is survivable: its PGs recover from their other copies, and it becomes
        one of `dead` (so the last-copy check applies). Another OSD going down while still in
        means the data is one copy short somewhere and the PG stats (what safe-to-destroy reads)
        are in flux: nothing is stopped or destroyed until it is back up, or marked out and its
        data recovered elsewhere. One that was already down when the removal started (accepted
        with the osds-down override) does not hold it, and is never said to have "gone down".
        """
        s = self.state
        by_id = {_i(o.get("osd")): o for o in self._osd_dump().get("osds") or ()}
        for i in s.osds:
            if i in by_id and not by_id[i].get("up") and i not in s.dead and i not in s.stopped:
                s.dead.append(i)
                s.note(f"osd.{i} (being removed) went down during the drain: its PGs recover from their other "
                       "copies; waiting for safe-to-destroy")
        held = sorted(i for i, o in by_id.items() if i not in s.osds and not o.get("up") and o.get("in")
                      and i not in s.down_at_start)
        for i in held:
            if i not in s.held_by:
                s.note(f"osd.{i} went down (not part of this removal): holding before stop/destroy until it is "
                       "back up, or marked out and recovered")
        for i in s.held_by:
            if i not in held:
                s.note(f"osd.{i} is {'back up' if by_id.get(i, {}).get('up') else 'out'}: no longer holding")
        s.held_by = held
        return held

    def _hold_text(self, held: list[int], reason: str) -> str:
        p = self.state.progress
        names = ", ".join(f"osd.{i}" for i in held)
        return (f"HOLDING: {names} went down (not part of this removal): {p.get('pgs_not_clean', '?')} PG(s) not "
                f"clean, {p.get('degraded', 0)} objects degraded. Nothing is stopped or destroyed until "
                f"{'it is' if len(held) == 1 else 'they are'} back up (or marked out and recovered); "
                f"continues by itself. safe-to-destroy says: {reason}")

    def _progress(self) -> None:
        """drain_progress plus the recovery rate seen here (the mgr's rate is absent between its samples)."""
        p = drain_progress(self.client, self.state.osds)
        now = self.clock()
        left = _i(p.get("misplaced")) + _i(p.get("degraded"))
        self._samples = [x for x in self._samples if now - x[0] <= 60] + [(now, left)]
        t0, left0 = self._samples[0]
        seen = (left0 - left) / (now - t0) if now - t0 >= 5 and left0 > left else 0.0
        rate = max(float(_i(p.get("objects_per_sec"))), seen)
        p["objects_per_sec"] = round(rate, 1)
        p["eta_seconds"] = (left / rate) if rate and left else (0 if not left else None)
        self.state.progress = p

    def stats_period(self) -> float:
        """How long PG stats may lag: the longer of the mgr's stats period and the OSDs' report interval."""
        if self._stats_period is None:
            period = 5.0
            for who, key in (("mgr", "mgr_stats_period"), ("osd", "osd_mon_report_interval")):
                try:
                    period = max(period, float(as_str(self.client.mon("config get", who=who, key=key))))
                except (CephError, ValueError, TypeError):
                    pass
            self._stats_period = period
        return self._stats_period

    def _gate_held(self, reading: GateReading) -> bool:
        """True once the gate has held on consecutive polls spanning more than the stats period."""
        now = self.clock()
        if not reading.ok:
            self._gate_since = None
            return False
        if self._gate_since is None:
            self._gate_since = now
        return now - self._gate_since > self.stats_period()

    def _step_wait_safe(self) -> None:
        s = self.state
        held = self._watch_osds()
        self._progress()
        reading = stop_gate(self.client, s, self.stats_period())
        self._audit_safe(reading.safe_answer)
        if held:
            s.waiting_for = self._hold_text(held, reading.safe_answer or "not asked")
            self._gate_since = None
            return
        if not reading.ok and s.dead and "safe-to-destroy: yes" not in reading.safe_answer:
            lost = last_copy_pgs(self.client, s.dead)
            s.progress["last_copy_pgs"] = lost[:20]
            if lost:
                reading.waits.append(
                    f"{len(lost)} PG(s) are served by no other OSD ({', '.join(lost[:5])}"
                    f"{' …' if len(lost) > 5 else ''}): their only copy is most likely on the dead OSD(s), and "
                    "destroying it would lose that data for good; bring the disk back if at all possible")
        if not self._gate_held(reading):
            s.waiting_for = "waiting before the stop: " + "; ".join(reading.waits or [
                f"clean and safe-to-destroy: yes; confirming on the next polls (stats lag up to "
                f"{self.stats_period():.0f} s)"])
            return
        self.safe_verified = set(s.osds)
        self._audit_safe(reading.safe_answer, authorising=True)
        self._go("stop", f"safe-to-destroy: yes, and every PG active+clean by stats of osdmap epoch "
                         f"{s.progress.get('stats_epoch', '?')} (drain at {s.drain_epoch}), held for "
                         f"{self.stats_period():.0f} s")

    def _audit_safe(self, answer: str, authorising: bool = False) -> None:
        """Every distinct safe-to-destroy answer goes to the audit log (a repeat of the same answer does not),
        and the answer that authorises the stop always does."""
        if not answer or (answer == self._last_safe_answer and not authorising):
            return
        self._last_safe_answer = answer
        ids = " ".join(str(i) for i in self.state.osds)
        self._audit("safe-to-destroy" + (" (authorises the stop and destroy)" if authorising else ""),
                    f"ceph osd safe-to-destroy {ids}", answer.startswith("safe-to-destroy: yes"), answer,
                    prefix="osd safe-to-destroy")

    def _step_stop(self) -> None:
        s = self.state
        by_id = {_i(o.get("osd")): o for o in dicts(self._osd_dump().get("osds"))}
        up = [i for i in s.osds if by_id.get(i, {}).get("up")]
        if any(i not in s.stopped for i in up):
            # The last moment before anything irreversible: still clean by the mon's own pgmap?
            pgmap = as_dict(as_dict(self.client.mon("status")).get("pgmap"))
            unclean = _unclean_summary(pgmap)
            if unclean:
                self.safe_verified.clear()
                self._go("wait_safe")
                s.waiting_for = f"no longer clean just before the stop ({unclean}); waiting again"
                s.note(s.waiting_for)
                return
        for i in up:
            if i in s.stopped:
                continue
            if not s.stop_template.strip() and self._orchestrated():
                self._run(ops.orch_daemon_stop(f"osd.{i}"))
                s.stopped.append(i)
                continue
            host = self._osd_host(i)
            argv = stop_argv(s.stop_template, s.stop_shell, i, host)
            if argv is None:
                s.waiting_for = (f"stop osd.{i} on its host (`systemctl stop ceph-osd@{i}`, or "
                                 f"`ceph orch daemon stop osd.{i}` with cephadm); waiting until it is reported down")
                continue
            cli = shlex.join(argv) if not s.stop_shell else argv[-1]
            rc, out = self.shell(argv)
            text = out.strip()
            self._audit(f"Stop osd.{i}", cli, rc == 0, text[-500:] or f"exit status {rc}, no output", rc=rc,
                        prefix="stop osd")
            s.note(f"stop osd.{i}: exit status {rc}" + (f": {text[-200:]}" if text else ", no output"), cli)
            if rc != 0:
                raise StopFailed(f"The stop command for osd.{i} failed: `{cli}` exited with status {rc} and "
                                 + (f"printed: {text[-300:]}" if text else "printed nothing") + ".")
            s.stopped.append(i)
        if up:
            s.waiting_for = s.waiting_for or f"waiting until {', '.join(f'osd.{i}' for i in up)} is reported down"
            return
        self._go("remove", "daemons are down")

    def _step_remove(self) -> None:
        s = self.state
        for i in s.osds:  # a crash right after the command: the osdmap already says it happened
            if i not in s.removed and self._removed_in_osdmap(i):
                s.removed.append(i)
                s.note(f"osd.{i} is already {'destroyed' if s.replace else 'purged'} in the osdmap")
        pending = [i for i in s.osds if i not in s.removed]
        held = self._watch_osds() if pending else []
        if held:  # another OSD died between safe-to-destroy and here: back to waiting, nothing destroyed
            self.safe_verified.clear()
            self._go("wait_safe")
            s.waiting_for = self._hold_text(held, "asked again once it is back")
            return
        if pending and not set(pending) <= self.safe_verified:
            # Resumed, or a long pause: ask again before anything irreversible.
            safe, reason = safe_to_destroy(self.client, pending)
            self._audit_safe(f"safe-to-destroy: {'yes' if safe else 'no'} ({reason})", authorising=safe)
            if not safe:
                self._go("wait_safe")
                s.waiting_for = f"no longer safe to destroy: {reason}"
                return
            self.safe_verified |= set(pending)
        for i in pending:
            self._run(ops.osd_remove(i, s.replace, i in self.safe_verified))
            s.removed.append(i)
            self.save()
        ids = ", ".join(f"osd.{i}" for i in s.osds)
        if s.replace:
            self._go("replace", f"destroyed {ids} (ids and CRUSH positions kept)")
        else:
            self._go("backfill", f"purged {ids}: gone from CRUSH, auth and the osdmap")
            s.note("the old disk(s) still hold their data: before reusing them, on their host run "
                   + "; ".join(f"`ceph-volume lvm zap --destroy --osd-id {i}`" for i in s.osds))
        s.drain_epoch = _i(self._osd_dump().get("epoch"))

    def _orchestrated(self) -> bool:
        """cephadm (or rook) manages the daemons: `ceph orch status` answers with a backend."""
        try:
            status = as_dict(self.client.mon("orch status"))
        except CephError:
            return False  # ENOENT: no orchestrator configured
        return bool(status.get("available")) and bool(status.get("backend"))

    def _osd_host(self, osd: int) -> str:
        try:
            return as_str(as_dict(self.client.mon("osd metadata", id=osd)).get("hostname"))
        except CephError:
            return ""

    def _removed_in_osdmap(self, osd: int) -> bool:
        entry = next((o for o in dicts(self._osd_dump().get("osds")) if _i(o.get("osd")) == osd), None)
        if self.state.replace:
            return entry is not None and "destroyed" in as_strs(entry.get("state"))
        return entry is None

    def _step_replace(self) -> None:
        s = self.state
        by_id = {_i(o.get("osd")): o for o in dicts(self._osd_dump().get("osds"))}
        waiting = [i for i in s.osds if not (by_id.get(i, {}).get("up") and by_id.get(i, {}).get("in")
                                             and "destroyed" not in (by_id.get(i, {}).get("state") or ()))]
        if waiting:
            s.waiting_for = ("put in the new disk(s) (zap a reused one first: `ceph-volume lvm zap --destroy "
                             "/dev/DEVICE`) and run on the host: " + "; ".join(
                                 f"ceph-volume lvm create --osd-id {i} --data /dev/DEVICE" for i in waiting)
                             + " — waiting until they are up and in")
            return
        s.drain_epoch = _i(self._osd_dump().get("epoch"))
        self._go("backfill", f"replacement OSDs are up and in (osdmap epoch {s.drain_epoch})")

    def _step_backfill(self) -> None:
        """Done only on active+clean read from stats newer than the last osdmap change, held for the stats
        period (seen: 'done' with 18 PGs backfill_wait, from stats that predated the new OSD)."""
        s = self.state
        self._progress()
        reading = done_gate(self.client, s)
        if not self._gate_held(reading):
            held = self._watch_osds() if not reading.ok else []
            s.waiting_for = "waiting for every PG to be active+clean: " + "; ".join(reading.waits or [
                f"clean; confirming on the next polls (stats lag up to {self.stats_period():.0f} s)"]) + (
                f"; {', '.join(f'osd.{i}' for i in held)} is down, so they cannot all be" if held else "")
            return
        s.status = "done"
        self._go("done", f"all PGs active+clean by stats of osdmap epoch {s.progress.get('stats_epoch', '?')}, "
                         f"held for {self.stats_period():.0f} s")


# ------------------------------------------------------------------ the gates

def stop_gate(client: Any, s: Removal, stats_period: float = 5.0) -> GateReading:
    """May the OSDs be stopped now? All of: `osd df` shows 0 PGs on them; the PG stats describe the current
    osdmap (newer than the drain's own change); no PG is peering, activating, unknown, degraded or misplaced
    (cluster-wide; only the drained PGs when an override accepted unhealthy PGs elsewhere); and
    safe-to-destroy says yes. The caller requires this on consecutive polls spanning the stats period."""
    waits: list[str] = []
    p = s.progress
    if _i(p.get("pgs_on_osds")):
        waits.append(f"{p.get('pgs_on_osds')} PG(s) still on {', '.join(f'osd.{i}' for i in s.osds)} (osd df)")
    scoped = bool({"pgs", "osds-down"} & set(s.overrides))
    if not scoped:
        if p.get("unclean"):
            waits.append(f"PGs not active+clean: {p['unclean']}")
        if _i(p.get("degraded")) or _i(p.get("misplaced")):
            waits.append(f"{p.get('degraded', 0)} objects degraded, {p.get('misplaced', 0)} misplaced"
                         + (f", recovering at {p.get('objects_per_sec')} obj/s" if p.get("objects_per_sec") else ""))
    safe, reason = safe_to_destroy(client, s.osds)
    if not safe:
        waits.append(f"safe-to-destroy says not yet: {reason}")
    if not waits or scoped:  # the PG-by-PG mapping check (osdmaptool) only once the cheap checks pass
        fresh = stats_match_osdmap(client, s.drain_epoch, set(s.drain_pgs) if scoped else None)
        p["stats_epoch"] = fresh.epoch
        waits += fresh.waits
    return GateReading(ok=not waits, waits=waits,
                       safe_answer=f"safe-to-destroy: {'yes' if safe else 'no'} ({reason})")


def done_gate(client: Any, s: Removal) -> GateReading:
    """Is the cluster clean after the removal/replacement, by stats newer than the last osdmap change?"""
    waits: list[str] = []
    p = s.progress
    if p.get("unclean"):
        waits.append(f"PGs not active+clean: {p['unclean']}")
    if _i(p.get("degraded")) or _i(p.get("misplaced")):
        waits.append(f"{p.get('degraded', 0)} objects degraded, {p.get('misplaced', 0)} misplaced"
                     + (f", recovering at {p.get('objects_per_sec')} obj/s" if p.get("objects_per_sec") else ""))
    if not waits:  # the cheap checks first; the mapping comparison only once they pass
        fresh = stats_match_osdmap(client, s.drain_epoch, None)
        p["stats_epoch"] = fresh.epoch
        waits += fresh.waits
    return GateReading(ok=not waits, waits=waits)


@dataclass
class Freshness:
    epoch: int
    waits: list[str]


def stats_match_osdmap(client: Any, since_epoch: int, only: set[str] | None) -> Freshness:
    """Do the PG stats describe the current osdmap? Every PG's reported up set must equal what the mons
    compute from the current map (osdmaptool on a copy of it), and every PG (or those in `only`) must be
    active+clean in those stats. A PG whose primary has not yet reported since the change still shows its
    old up set, so this is what 'stats newer than the epoch' means, PG by PG."""
    waits: list[str] = []
    osdmap, epoch = fetch_osdmap(client)
    if epoch < since_epoch:
        return Freshness(epoch, [f"the osdmap read (epoch {epoch}) predates the change (epoch {since_epoch})"])
    pgs = _pgs_brief(client)
    expected = expected_up_sets(osdmap)
    stale: list[str] = []
    unclean: list[str] = []
    for pg in pgs:
        pgid = str(pg.get("pgid"))
        if only is not None and pgid not in only:
            continue
        if expected is not None and pgid in expected and tuple(as_list(pg.get("up"))) != expected[pgid]:
            stale.append(pgid)
        elif not pg_is_clean(as_str(pg.get("state"))):
            unclean.append(f"{pgid} {pg.get('state')}")
    if expected is not None and only is None:
        missing = set(expected) - {str(pg.get("pgid")) for pg in pgs}
        stale += sorted(missing)  # a PG the map has but the stats do not (created, or split): not reported yet
    if stale:
        waits.append(f"{len(stale)} PG(s) have not reported since osdmap epoch {epoch} "
                     f"({', '.join(stale[:4])}{' …' if len(stale) > 4 else ''})")
    if unclean:
        waits.append(f"{len(unclean)} PG(s) not active+clean ({', '.join(unclean[:4])}"
                     f"{' …' if len(unclean) > 4 else ''})")
    if expected is None:
        waits_note = "osdmaptool is missing: PG stats are trusted only after holding for the stats period"
        if not waits:
            return Freshness(epoch, [])
        waits.append(waits_note)
    return Freshness(epoch, waits)


def expected_up_sets(osdmap: bytes) -> dict[str, tuple[int, ...]] | None:
    """pgid -> up set as the mons compute it from this map; None without osdmaptool (or when it fails)."""
    if crushtool.missing_tools():
        return None
    try:
        return crushtool.map_pgs(osdmap)
    except crushtool.CrushToolError:
        return None


def stale_pgs(client: Any, pgs: list[dict[str, Any]]) -> list[str]:
    """PGs whose stats still show an up set the current osdmap no longer gives them: their primary has not
    reported since the last change (right after an OSD died, its PGs still look active+clean)."""
    osdmap, _ = fetch_osdmap(client)
    expected = expected_up_sets(osdmap)
    if expected is None:
        return []
    # A PG the mgr already marks stale (its primary is down) is known to be out of date: the other checks
    # deal with it (a dead OSD's only copy never reports again, and must not hold the preflight for ever).
    return [str(pg.get("pgid")) for pg in pgs
            if str(pg.get("pgid")) in expected and "stale" not in as_str(pg.get("state")).split("+")
            and tuple(as_list(pg.get("up"))) != expected[str(pg.get("pgid"))]]


def pg_is_clean(state: str) -> bool:
    parts = set(state.split("+"))
    return {"active", "clean"} <= parts and parts <= {"active", "clean"} | CLEAN_EXTRAS


def _unclean_summary(pgmap: dict[str, Any]) -> str:
    """'3 peering, 2 active+recovering+degraded' from a status pgmap; '' when every PG is clean."""
    bad = [f"{_i(x.get('count'))} {as_str(x.get('state_name'))}" for x in dicts(pgmap.get("pgs_by_state"))
           if not pg_is_clean(as_str(x.get("state_name")))]
    if _i(pgmap.get("degraded_objects")) or _i(pgmap.get("misplaced_objects")):
        bad.append(f"{_i(pgmap.get('degraded_objects'))} objects degraded, {_i(pgmap.get('misplaced_objects'))} "
                   "misplaced")
    return ", ".join(bad)


def _transient(e: CephError) -> bool:
    """Errors that say "not now" rather than "no": no active mgr, try again."""
    return isinstance(e, CephMgrDown) or e.errno == errno.EAGAIN


def _pgs_brief(client: Any) -> list[dict[str, Any]]:
    return _pg_stats_list(client.mgr("pg dump", dumpcontents=["pgs_brief"]))


# ------------------------------------------------------------------ checks and progress (also used by the UI)

def preflight(client: Any, osds: list[int], overrides: list[str] | tuple[str, ...] = (),
              stats_check: bool = True) -> list[Check]:
    """Every check the removal needs before it changes anything. A blocker that names an `override` is
    shown as level 'override' (lifted, risk accepted) when that override was given. `stats_check=False`
    skips comparing the PG stats with the osdmap (replayed captures carry no binary osdmap)."""
    checks: list[Check] = []
    # Every answer read leniently: a part of another release's shape counts as missing, never crashes.
    dump = as_dict(client.mon("osd dump"))
    flags = set(as_strs(dump.get("flags_set")) or as_str(dump.get("flags")).split(","))
    stall = [f for f in STALL_FLAGS if f in flags]
    checks.append(Check("flags", "block" if stall else "ok",
                        f"{', '.join(stall)} set: data would not move off the OSD, so the drain could never finish "
                        "(unset them in the Maintenance tab)" if stall else "no flag stops recovery"))

    # A pool that keeps more copies than OSDs would remain can never be clean again: safe-to-destroy
    # would never say yes, and the drain would wait forever.
    remaining_in = sum(1 for o in dicts(dump.get("osds")) if o.get("in") and _i(o.get("osd")) not in osds)
    too_big = [f"{p.get('pool_name')} (size {p.get('size')})" for p in dicts(dump.get("pools"))
               if _i(p.get("size")) > remaining_in]
    checks.append(Check("pool sizes", "block" if too_big else "ok",
                        f"only {remaining_in} OSD(s) would remain in, fewer than the copies of: {', '.join(too_big)}; "
                        "lower their size or add OSDs first" if too_big else
                        f"{remaining_in} OSDs remain in: enough for every pool's size"))

    # The cluster's own ratios and `osd df`: full now, or past backfillfull once the data has moved
    # (backfill stops there, so the drain could never finish), blocks; past nearfull warns.
    level, detail = project_removal(client.mgr("osd df") or {}, dump, osds).verdict()
    checks.append(Check("capacity", level, detail))

    by_id = {_i(o.get("osd")): o for o in dicts(dump.get("osds"))}
    others_down = sorted(i for i, o in by_id.items() if i not in osds and not o.get("up"))
    checks.append(Check("osds-down", "block" if others_down else "ok",
                        f"{', '.join(f'osd.{i}' for i in others_down)} {'is' if len(others_down) == 1 else 'are'} "
                        "down already (not part of this removal): some data has fewer copies now, and this removal "
                        "takes away more; bring it back, or mark it out and let it recover first"
                        if others_down else "no other OSD is down", override="osds-down"))

    up = [i for i in osds if by_id.get(i, {}).get("up")]
    if up:
        try:
            client.mgr("osd ok-to-stop", ids=[str(i) for i in up])
            checks.append(Check("ok-to-stop", "ok", "stopping them now would leave every PG available"))
        except CephError as e:
            if isinstance(e, CephTimeout):
                raise
            checks.append(Check("ok-to-stop", "block", f"Ceph says not ok to stop ({e.message.strip()}): PGs would "
                                "become unavailable if these OSDs went down now", override="ok-to-stop"))
    else:
        checks.append(Check("ok-to-stop", "ok", "the OSDs are down already; nothing to ask"))

    pgs = _pg_stats_list(client.mgr("pg dump", dumpcontents=["pgs_brief"]))
    targets = set(osds)
    bad_here: list[str] = []
    bad_elsewhere: list[str] = []
    settling: list[str] = []
    degraded = 0
    for pg in pgs:
        state = as_str(pg.get("state")).split("+")
        if any(b in state for b in BAD_PG_STATES):
            # Down with the OSDs being removed (a dead disk) is what this workflow deals with;
            # anything else inactive means the cluster is already in trouble.
            if _osd_set(pg.get("acting")) <= targets:
                bad_here.append(str(pg.get("pgid")))
            elif all(b in SETTLING_PG_STATES for b in state if b in BAD_PG_STATES):
                settling.append(str(pg.get("pgid")))
            else:
                bad_elsewhere.append(str(pg.get("pgid")))
        elif not pg_is_clean(as_str(pg.get("state"))):
            degraded += 1
    stale = stale_pgs(client, pgs) if stats_check else []
    if stale and not bad_elsewhere:
        checks.append(Check("pgs", "wait", f"{len(stale)} PG(s) have not reported since the last osdmap change "
                            f"({', '.join(stale[:5])}{' …' if len(stale) > 5 else ''}); checking again once their "
                            "stats are current"))
    elif settling and not bad_elsewhere:
        checks.append(Check("pgs", "wait", f"{len(settling)} PG(s) are peering right now "
                            f"({', '.join(settling[:5])}{' …' if len(settling) > 5 else ''}); checking again "
                            "once they have settled"))
    elif bad_elsewhere:
        checks.append(Check("pgs", "block", f"{len(bad_elsewhere)} PG(s) not active on other OSDs "
                            f"({', '.join(bad_elsewhere[:5])}{' …' if len(bad_elsewhere) > 5 else ''}); "
                            "removing an OSD now could make it worse", override="pgs"))
    elif degraded and set(osds) - set(up):
        checks.append(Check("pgs", "warn", f"{degraded} PG(s) are degraded or moving, as expected with "
                            f"{', '.join(f'osd.{i}' for i in osds if i not in up)} (being removed) down: the drain "
                            "recovers them from their other copies"))
    elif degraded:
        checks.append(Check("pgs", "block", f"{degraded} PG(s) are already degraded or moving; their redundancy "
                            "is reduced, and a drain now would reduce it further", override="pgs"))
    elif bad_here:
        checks.append(Check("pgs", "warn", f"{len(bad_here)} PG(s) are down with these OSDs "
                            f"({', '.join(bad_here[:5])}{' …' if len(bad_here) > 5 else ''}): if they have no other "
                            "copy, destroying would lose them; the wizard waits for safe-to-destroy and says so"))
    else:
        checks.append(Check("pgs", "ok", "all PGs active+clean"))
    for c in checks:
        if c.level == "block" and c.override and c.override in overrides:
            c.level = "override"
            c.detail = f"{c.detail} — OVERRIDDEN: {OVERRIDES[c.override]}"
    return checks


def safe_to_destroy(client: Any, osds: list[int]) -> tuple[bool, str]:
    try:
        out = as_dict(client.mgr("osd safe-to-destroy", ids=[str(i) for i in osds]))
    except CephError as e:
        if isinstance(e, CephTimeout) or _transient(e):
            raise
        return False, e.message.strip().splitlines()[0] if e.message.strip() else f"errno {e.errno}"
    safe = {_i(i) for i in as_list(out.get("safe_to_destroy"))}
    if set(osds) <= safe:
        return True, "safe"
    parts = []
    if out.get("active"):
        parts.append(f"{out['active']} still active")
    if out.get("missing_stats"):
        parts.append(f"{out['missing_stats']} without PG stats yet")
    if out.get("stored_pgs"):
        parts.append(f"{out['stored_pgs']} still store PGs")
    return False, "; ".join(parts) or "not in the safe list"


def drain_progress(client: Any, osds: list[int]) -> dict[str, Any]:
    """PGs still mapped to the OSDs, PGs not clean, misplaced/degraded objects, the mgr's recovery rate."""
    pgmap = as_dict(as_dict(client.mon("status")).get("pgmap"))
    df = as_dict(client.mgr("osd df"))
    on_osds = sum(_i(n.get("pgs")) for n in dicts(df.get("nodes")) if _i(n.get("id")) in osds)
    by_state = {as_str(s.get("state_name")): _i(s.get("count")) for s in dicts(pgmap.get("pgs_by_state"))}
    not_clean = sum(v for k, v in by_state.items() if not pg_is_clean(k))
    misplaced, degraded = _i(pgmap.get("misplaced_objects")), _i(pgmap.get("degraded_objects"))
    rate = _i(pgmap.get("recovering_objects_per_sec"))
    left = misplaced + degraded
    unclean = ", ".join(f"{v} {k}" for k, v in sorted(by_state.items(), key=lambda kv: -kv[1]) if not pg_is_clean(k))
    return {"pgs_on_osds": on_osds, "pgs_not_clean": not_clean, "misplaced": misplaced, "degraded": degraded,
            "unclean": unclean, "objects_per_sec": rate, "bytes_per_sec": _i(pgmap.get("recovering_bytes_per_sec")),
            "eta_seconds": (left / rate) if rate and left else (0 if not left else None)}


def last_copy_pgs(client: Any, dead: list[int]) -> list[str]:
    """PGs that cannot serve because their only remaining copy sits on one of the dead OSDs."""
    out = []
    for pg in _pg_stats_list(client.mgr("pg dump", dumpcontents=["pgs_brief"])):
        state = as_str(pg.get("state")).split("+")
        # Pacific shows a PG whose only OSD died as 'unknown' with an empty acting set: no other OSD has it.
        if any(b in state for b in ("stale", "down", "incomplete", "unknown")) \
                and _osd_set(pg.get("acting")) <= set(dead):
            out.append(str(pg.get("pgid")))
    return out


def _osd_set(v: Any) -> set[int]:
    """An acting/up set as OSD ids; entries of another type (a damaged answer) are ignored."""
    return {i for i in as_list(v) if type(i) is int}


# ------------------------------------------------------------------ the stop command

def check_stop_template(template: str, shell: bool) -> None:
    """Refuse a template that could not run as meant: an unknown {placeholder}, or shell syntax (&&, |, ;,
    redirections, $(...)) without asking for a shell (it would reach the program as literal words)."""
    if not template.strip():
        return
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as e:
        raise StopCommandError(f"the stop command has a stray brace: {e}") from None
    unknown = sorted({f for f in fields if f not in PLACEHOLDERS})
    if unknown:
        raise StopCommandError(f"the stop command uses {', '.join('{' + f + '}' for f in unknown)}; only "
                               f"{', '.join('{' + f + '}' for f in PLACEHOLDERS)} are known")
    if "id" not in fields and "name" not in fields:
        raise StopCommandError("the stop command must name the OSD: {id} (e.g. systemctl stop ceph-osd@{id}) "
                               "or {name} (osd.N)")
    if not shell:
        found = [c for c in SHELL_CHARS if c in template]
        if found:
            raise StopCommandError(f"the stop command contains shell syntax ({' '.join(found)}) but runs without a "
                                   "shell: ask for one (--shell, or 'through /bin/sh' in the form), or drop it")
        try:
            shlex.split(template)
        except ValueError as e:
            raise StopCommandError(f"the stop command does not parse: {e}") from None


def stop_argv(template: str, shell: bool, osd: int, host: str = "") -> list[str] | None:
    """The argv that stops one OSD daemon: the admin's template ({id}, {host}, {name}), systemd when the OSD
    runs on this very host, or None (the operator stops it; the workflow waits until it is down)."""
    if template.strip():
        check_stop_template(template, shell)
        if "{host}" in template and not host:
            raise StopCommandError(f"the stop command needs {{host}}, but osd.{osd}'s host is unknown "
                                   "(no `osd metadata`): give the host name in the command instead")
        values = {"id": str(osd), "host": host, "name": f"osd.{osd}"}
        if shell:  # values quoted for the shell; the operator's own syntax stays as typed
            return ["/bin/sh", "-c", template.format_map({k: shlex.quote(v) for k, v in values.items()})]
        return [part.format_map(values) for part in shlex.split(template)]
    local = not host or host in (socket.gethostname(), socket.getfqdn())
    if local and shutil.which("systemctl") and _unit_exists(f"ceph-osd@{osd}"):
        return ["systemctl", "stop", f"ceph-osd@{osd}"]
    return None


def stop_command(template: str, osd: int, host: str = "", shell: bool = False) -> str | None:
    """The stop command as a line to show (the plan, the log); None when the operator stops the OSD."""
    try:
        argv = stop_argv(template, shell, osd, host or "{host}")
    except StopCommandError as e:
        return f"(cannot run: {e})"
    if argv is None:
        return None
    return argv[-1] if shell and template.strip() else shlex.join(argv)


def describe_stop(template: str, shell: bool) -> str:
    if not template.strip():
        return "systemd here / the orchestrator / you"
    return f"`{template}`" + (" through /bin/sh" if shell else "")


def _unit_exists(unit: str) -> bool:
    try:
        out = subprocess.run(["systemctl", "list-units", "--all", "--no-legend", unit], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return unit in out.stdout


def _run_argv(argv: list[str]) -> tuple[int, str]:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as e:
        return 124, f"no exit within 120 s: {e}"
    except (OSError, subprocess.SubprocessError) as e:
        return 127, str(e)
    return p.returncode, (p.stdout + p.stderr)


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
