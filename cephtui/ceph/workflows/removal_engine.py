"""RemovalEngine: one short step per tick() of a persisted removal, each step saved before the next."""
from __future__ import annotations

import copy
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.coerce import as_dict, as_float, as_str, as_strs, dicts
from cephtui.ceph.coerce import as_int as _i
from cephtui.ceph.errors import CephError, CephTimeout
from cephtui.ceph.workflows.removal import (
    KIND,
    OVERRIDES,
    SETTLE_TIMEOUT,
    GateReading,
    Removal,
    StopCommandError,
    StopFailed,
)
from cephtui.ceph.workflows.removal_checks import (
    done_gate,
    drain_progress,
    last_copy_pgs,
    lift_overridden,
    osd_set,
    pgs_brief,
    preflight,
    safe_to_destroy,
    stop_gate,
    transient,
    unclean_summary,
)
from cephtui.ceph.workflows.removal_plan import drain_operations, restore_weight_operation
from cephtui.ceph.workflows.removal_stop import (
    check_stop_template,
    describe_stop,
    run_argv,
    stop_argv,
)
from cephtui.ceph.workflows.store import WorkflowStore


class RemovalEngine:
    def __init__(self, client: Any, state: Removal, store: WorkflowStore | None = None,
                 audit: ops.AuditLog | None = None, shell: Callable[[list[str]], tuple[int, str]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.state = state  # the tick's, changed step by step from a worker: only the engine's controls write it
        # What readers on other threads show or check (the removal screen, the queue rows, the conflict check):
        # a copy taken at each save, whole. The live state is torn mid-step (seen: held_by set, the previous
        # wait's words still there while the step asked the cluster for seconds: HOLDING over the old words).
        self.published: Removal = copy.deepcopy(state)
        self.store = store or WorkflowStore()
        self.audit = audit
        self.shell = shell or run_argv
        self.clock = clock
        self.safe_verified: set[int] = set()  # this run only: never read from the state file
        self._gate_since: float | None = None  # when the gate first held, in this run (consecutive polls)
        self._last_safe_answer = ""  # the last safe-to-destroy answer written to the audit log
        self._samples: list[tuple[float, int]] = []  # (time, objects left to recover) for the observed rate
        self._stats_period: float | None = None
        # One control at a time: a tick (a worker) and a pause (quitting, a signal) or an abort must not interleave
        # their changes and saves; seen: a pause saved mid-tick, two writers of one cache file, and the tick then
        # recorded the workflow as failed.
        self._lock = threading.RLock()

    # ------------------------------------------------------------ persistence / control
    def save(self) -> None:
        self.state.updated = time.time()
        self.published = copy.deepcopy(self.state)  # one assignment: a reader sees the old copy or the new one
        self.store.save(KIND, self.state.id, self.state.to_json())

    def pause(self, reason: str = "paused by the operator") -> None:
        with self._lock:
            if self.state.status == "running":
                self.state.status = "paused"
                self.state.note(reason)
                self.save()

    def resume(self, stop_template: str | None = None, stop_shell: bool | None = None) -> None:
        """Continue; a new stop method (a failing command must not be kept for ever) is checked and noted."""
        with self._lock:
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
        with self._lock:
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
                    # A crush0 drain marks a dead OSD out too (_step_drain): that is undone as well.
                    if orig.get("in", True) and (s.drain_mode != "crush0" or osd in s.dead):
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
        with self._lock:
            s = self.state
            if s.status != "running":
                return s
            try:
                getattr(self, f"_step_{s.step}")()
            except CephTimeout as e:
                s.waiting_for = f"the cluster did not answer ({e.message}); retrying"
            except CephError as e:
                if transient(e):  # no active mgr (or the mon said try again): a state to wait out, not a failure
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
                    c.override = c.override or "pgs"  # ok-to-stop keeps its own
                    c.detail = c.detail.split(";")[0] + f" and still {c.lasting} after {SETTLE_TIMEOUT:.0f} s"
            lift_overridden(checks, s.overrides)  # a timed-out wait whose override was ticked in the plan
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
            s.drain_pgs = sorted(str(pg.get("pgid")) for pg in pgs_brief(self.client)
                                 if (osd_set(pg.get("up")) | osd_set(pg.get("acting"))) & targets)
        dump = self._osd_dump()
        by_id = {_i(o.get("osd")): o for o in dicts(dump.get("osds"))}
        # The plan's own operations (removal_plan), for the OSDs that still need them.
        if s.drain_mode == "crush0":
            tree = self._tree()
            for op in drain_operations([i for i in s.osds if as_float((tree.get(i) or {}).get("crush_weight")) > 0],
                                       "crush0"):
                self._run(op)
        todo = [i for i in s.osds if by_id.get(i, {}).get("in")]
        # A down OSD is marked out too: recovery starts now instead of after mon_osd_down_out_interval.
        if todo and s.drain_mode == "out" or (todo and s.dead):
            for op in drain_operations(todo if s.drain_mode == "out" else [i for i in todo if i in s.dead], "out"):
                self._run(op)
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
            unclean = unclean_summary(pgmap)
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
        if s.drain_mode == "crush0":
            self._restore_crush_weights()
        s.drain_epoch = _i(self._osd_dump().get("epoch"))
        self._go("backfill", f"replacement OSDs are up and in (osdmap epoch {s.drain_epoch})")

    def _restore_crush_weights(self) -> None:
        """A replacement drained by crush0: destroy kept the CRUSH item at weight 0 and the new OSD's
        `create-or-move` on start keeps it, so the weight the old OSD had goes back (else no data comes)."""
        tree = self._tree()
        for i in self.state.osds:
            weight = as_float((self.state.original.get(str(i)) or {}).get("crush_weight"))
            if weight > 0 and as_float((tree.get(i) or {}).get("crush_weight")) == 0:
                self._run(restore_weight_operation(i, weight))

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
