"""Guided OSD removal and replacement: a persisted state machine that never skips a safety check.

Steps: preflight -> drain -> wait_safe -> stop -> remove -> (replace) -> backfill -> done.

`RemovalEngine.tick()` does one short piece of work (one command or one poll)
and saves the state, so the UI drives it from a worker on a timer and a killed
cephtui resumes exactly where it stopped. `osd destroy`/`osd purge` get
--yes-i-really-mean-it only after `osd safe-to-destroy` said yes in *this* run
(a resumed workflow asks again); --force is never used.
"""
from __future__ import annotations

import shlex
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import ops
from ..client import CephError, CephTimeout
from ..coerce import as_dict, as_float, as_list, as_str, as_strs, dicts
from ..coerce import as_int as _i
from ..fillcalc import project_removal
from ..parse import _pg_stats_list
from .store import WorkflowStore

KIND = "removal"
STEPS = ("preflight", "drain", "wait_safe", "stop", "remove", "replace", "backfill", "done")
STALL_FLAGS = ("pause", "norecover", "nobackfill", "norebalance")
BAD_PG_STATES = ("down", "incomplete", "stale", "inactive", "unknown", "peering", "activating")
# For seconds after an OSD comes or goes (stale: the dead primary's PGs until another OSD takes over).
SETTLING_PG_STATES = ("peering", "activating", "stale")
SETTLE_TIMEOUT = 90.0  # seconds; after that, still-inactive PGs are a blocker


@dataclass
class Check:
    name: str
    level: str  # ok / warn / block
    detail: str


@dataclass
class Removal:
    osds: list[int]
    replace: bool = False
    drain_mode: str = "out"  # out: mark out (reweight 0, CRUSH unchanged) / crush0: CRUSH weight 0
    stop_template: str = ""  # e.g. 'ssh {host} systemctl stop ceph-osd@{id}'; '' = systemd here or manual
    id: str = field(default_factory=lambda: time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6])
    step: str = "preflight"
    status: str = "running"  # running / paused / blocked / failed / done / aborted
    waiting_for: str = ""
    checks: list[dict[str, str]] = field(default_factory=list)
    progress: dict[str, Any] = field(default_factory=dict)
    original: dict[str, dict[str, Any]] = field(default_factory=dict)  # per OSD, for abort
    dead: list[int] = field(default_factory=list)
    held_by: list[int] = field(default_factory=list)  # other OSDs down while this one drains: no stop/destroy
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
        for k in ("dead", "stopped", "removed"):
            if not all(type(i) is int for i in known.get(k, ())):
                raise ValueError(f"removal state: '{k}' must be a list of OSD ids")
        return cls(**known)


class RemovalEngine:
    def __init__(self, client: Any, state: Removal, store: WorkflowStore | None = None,
                 audit: ops.AuditLog | None = None, shell: Callable[[str], tuple[int, str]] | None = None) -> None:
        self.client = client
        self.state = state
        self.store = store or WorkflowStore()
        self.audit = audit
        self.shell = shell or _run_shell
        self.safe_verified: set[int] = set()  # this run only: never read from the state file

    # ------------------------------------------------------------ persistence / control
    def save(self) -> None:
        self.state.updated = time.time()
        self.store.save(KIND, self.state.id, self.state.to_json())

    def pause(self) -> None:
        if self.state.status == "running":
            self.state.status = "paused"
            self.state.note("paused by the operator")
            self.save()

    def resume(self) -> None:
        if self.state.status in ("paused", "blocked", "failed"):
            self.state.status = "running"
            self.state.note("resumed")
            if self.state.step == "preflight":
                self.state.checks = []
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
            s.status = "failed"
            s.note(f"refused: {e.message} [errno {e.errno}]")
            s.waiting_for = f"{e.prefix}: {e.message}. Fix the cause, then resume (p) or abort (a)."
        self.save()
        return s

    def _go(self, step: str, text: str = "") -> None:
        self.state.step = step
        self.state.waiting_for = ""
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
        checks = preflight(self.client, s.osds)
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
                    c.detail = c.detail.split(";")[0] + f" and still not active after {SETTLE_TIMEOUT:.0f} s"
            s.checks = [asdict(c) for c in checks]
        s.progress.pop("settling_since", None)
        if any(c.level == "block" for c in checks):
            s.status = "blocked"
            s.waiting_for = "preflight found blockers (see above); fix them and resume (p), or abort (a)"
            return
        tree = self._tree()
        for i in s.osds:
            o = by_id[i]
            s.original[str(i)] = {"in": bool(o.get("in")), "reweight": o.get("weight"),
                                  "crush_weight": (tree.get(i) or {}).get("crush_weight")}
        s.dead = [i for i in s.osds if not by_id[i].get("up")]
        self._go("drain", "preflight passed" + (f"; already down: {s.dead}" if s.dead else ""))

    def _step_drain(self) -> None:
        s = self.state
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
        self._go("wait_safe", "drain started: waiting until safe-to-destroy")

    def _watch_osds(self) -> list[int]:
        """Notice OSDs dying while we drain; returns the other OSDs that hold the workflow.

        One of ours dying is survivable: its PGs recover from their other copies, and it becomes
        one of `dead` (so the last-copy check applies). Another OSD going down while still in
        means the data is one copy short somewhere and the PG stats (what safe-to-destroy reads)
        are in flux: nothing is stopped or destroyed until it is back up, or marked out and its
        data recovered elsewhere.
        """
        s = self.state
        by_id = {_i(o.get("osd")): o for o in self._osd_dump().get("osds") or ()}
        for i in s.osds:
            if i in by_id and not by_id[i].get("up") and i not in s.dead and i not in s.stopped:
                s.dead.append(i)
                s.note(f"osd.{i} (being removed) went down during the drain: its PGs recover from their other "
                       "copies; waiting for safe-to-destroy")
        held = sorted(i for i, o in by_id.items() if i not in s.osds and not o.get("up") and o.get("in"))
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

    def _step_wait_safe(self) -> None:
        s = self.state
        held = self._watch_osds()
        safe, reason = safe_to_destroy(self.client, s.osds)
        s.progress = drain_progress(self.client, s.osds)
        if held:
            s.waiting_for = self._hold_text(held, reason if not safe else "yes (but the PG stats are in flux)")
            return
        if not safe:
            lost = last_copy_pgs(self.client, s.dead) if s.dead else []
            s.progress["last_copy_pgs"] = lost[:20]
            s.waiting_for = f"not yet safe to destroy: {reason}" + (
                f". {len(lost)} PG(s) are served by no other OSD ({', '.join(lost[:5])}"
                f"{' …' if len(lost) > 5 else ''}): their only copy is most likely on the dead OSD(s), and "
                "destroying it would lose that data for good; bring the disk back if at all possible" if lost else "")
            return
        self.safe_verified = set(s.osds)
        self._go("stop", "safe-to-destroy: yes")

    def _step_stop(self) -> None:
        s = self.state
        by_id = {_i(o.get("osd")): o for o in dicts(self._osd_dump().get("osds"))}
        up = [i for i in s.osds if by_id.get(i, {}).get("up")]
        for i in up:
            if i in s.stopped:
                continue
            if not s.stop_template.strip() and self._orchestrated():
                self._run(ops.orch_daemon_stop(f"osd.{i}"))
                s.stopped.append(i)
                continue
            cmd = stop_command(s.stop_template, i, self._osd_host(i))
            if cmd is None:
                s.waiting_for = (f"stop osd.{i} on its host (`systemctl stop ceph-osd@{i}`, or "
                                 f"`ceph orch daemon stop osd.{i}` with cephadm); waiting until it is reported down")
                continue
            rc, out = self.shell(cmd)
            s.note(f"stop osd.{i}: exit {rc}{': ' + out.strip()[:200] if out.strip() else ''}", cmd)
            if rc != 0:
                raise CephError(1, f"the stop command for osd.{i} failed (exit {rc}): {out.strip()[:300]}",
                                "stop")
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
            if not safe:
                self._go("wait_safe")
                s.waiting_for = f"no longer safe to destroy: {reason}"
                return
            self.safe_verified |= set(pending)
        for i in pending:
            self._run(ops.osd_remove(i, s.replace, i in self.safe_verified))
            s.removed.append(i)
            self.save()
        self._go("replace" if s.replace else "backfill", "destroyed (ids and CRUSH positions kept)" if s.replace
                 else "purged: gone from CRUSH, auth and the osdmap")

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
            s.waiting_for = ("put in the new disk(s) and run on the host: " + "; ".join(
                f"ceph-volume lvm create --osd-id {i} --data /dev/DEVICE" for i in waiting)
                + " — waiting until they are up and in")
            return
        self._go("backfill", "replacement OSDs are up and in")

    def _step_backfill(self) -> None:
        s = self.state
        s.progress = drain_progress(self.client, s.osds)
        if s.progress.get("pgs_not_clean", 1):
            held = self._watch_osds()
            s.waiting_for = f"waiting for every PG to be active+clean ({s.progress.get('pgs_not_clean')} not yet)" + (
                f"; {', '.join(f'osd.{i}' for i in held)} is down, so they cannot all be" if held else "")
            return
        s.status = "done"
        self._go("done", "all PGs active+clean")


# ------------------------------------------------------------------ checks and progress (also used by the UI)

def preflight(client: Any, osds: list[int]) -> list[Check]:
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

    try:
        client.mgr("osd ok-to-stop", ids=[str(i) for i in osds])
        checks.append(Check("ok-to-stop", "ok", "stopping them now would leave every PG available"))
    except CephError as e:
        checks.append(Check("ok-to-stop", "warn", f"not ok to stop yet ({e.message.strip()}); the drain moves their "
                            "data first, and the daemons are stopped only after safe-to-destroy says yes"))

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
        elif state != ["active", "clean"]:
            degraded += 1
    if settling and not bad_elsewhere:
        checks.append(Check("pgs", "wait", f"{len(settling)} PG(s) are peering right now "
                            f"({', '.join(settling[:5])}{' …' if len(settling) > 5 else ''}); checking again "
                            "once they have settled"))
    elif bad_elsewhere:
        checks.append(Check("pgs", "block", f"{len(bad_elsewhere)} PG(s) not active on other OSDs "
                            f"({', '.join(bad_elsewhere[:5])}{' …' if len(bad_elsewhere) > 5 else ''}); "
                            "removing an OSD now could make it worse"))
    elif bad_here:
        checks.append(Check("pgs", "warn", f"{len(bad_here)} PG(s) are down with these OSDs "
                            f"({', '.join(bad_here[:5])}{' …' if len(bad_here) > 5 else ''}): if they have no other "
                            "copy, destroying would lose them; the wizard waits for safe-to-destroy and says so"))
    elif degraded:
        checks.append(Check("pgs", "warn", f"{degraded} other PG(s) are already degraded or moving; their "
                            "redundancy is reduced while this drain runs"))
    else:
        checks.append(Check("pgs", "ok", "all PGs active+clean"))
    return checks


def safe_to_destroy(client: Any, osds: list[int]) -> tuple[bool, str]:
    try:
        out = as_dict(client.mgr("osd safe-to-destroy", ids=[str(i) for i in osds]))
    except CephError as e:
        if isinstance(e, CephTimeout):
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
    """PGs still mapped to the OSDs, misplaced/degraded objects, recovery rate and a rough time left."""
    pgmap = as_dict(as_dict(client.mon("status")).get("pgmap"))
    df = as_dict(client.mgr("osd df"))
    on_osds = sum(_i(n.get("pgs")) for n in dicts(df.get("nodes")) if _i(n.get("id")) in osds)
    by_state = {as_str(s.get("state_name")): _i(s.get("count")) for s in dicts(pgmap.get("pgs_by_state"))}
    not_clean = sum(v for k, v in by_state.items() if k != "active+clean")
    misplaced, degraded = _i(pgmap.get("misplaced_objects")), _i(pgmap.get("degraded_objects"))
    rate = _i(pgmap.get("recovering_objects_per_sec"))
    left = misplaced + degraded
    return {"pgs_on_osds": on_osds, "pgs_not_clean": not_clean, "misplaced": misplaced, "degraded": degraded,
            "objects_per_sec": rate, "bytes_per_sec": _i(pgmap.get("recovering_bytes_per_sec")),
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


def stop_command(template: str, osd: int, host: str = "") -> str | None:
    """The command that stops one OSD daemon: the admin's template ({id}, {host}), systemd when the OSD
    runs on this very host, or None (the operator stops it; the workflow waits until it is down)."""
    if template.strip():
        return template.replace("{id}", str(osd)).replace("{host}", host or "HOST")
    local = not host or host in (socket.gethostname(), socket.getfqdn())
    if local and shutil.which("systemctl") and _unit_exists(f"ceph-osd@{osd}"):
        return f"systemctl stop ceph-osd@{osd}"
    return None


def _unit_exists(unit: str) -> bool:
    try:
        out = subprocess.run(["systemctl", "list-units", "--all", "--no-legend", unit], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return unit in out.stdout


def _run_shell(cmd: str) -> tuple[int, str]:
    try:
        p = subprocess.run(shlex.split(cmd), capture_output=True, text=True, timeout=120)
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
