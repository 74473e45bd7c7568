"""`cephtui remove`: the OSD removal/replacement state machine without a terminal UI.

    cephtui remove osd.N [osd.M ...] [--replace] [--drain out|crush0] [--osd-stop-cmd CMD] [--shell]
                   [--override NAME]... --yes-i-typed osd.N [osd.M ...]
    cephtui remove --resume [ID] [--osd-stop-cmd CMD] [--shell] [--override NAME]...
    cephtui remove --status [--json]

The same engine as the TUI's wizard, ticked from this process, its state in the cluster's queue
(config-key) with a local cache. One timestamped line per change. Exit status: 0 done; 1 failed
(or the cluster unreachable); 2 refused before anything ran (no or wrong --yes-i-typed, bad input,
a conflicting workflow); 3 blocked (the reason is printed; fix it and --resume); 4 aborted;
130 interrupted: Ctrl-C (or SIGTERM) pauses the workflow, saved, and --resume continues it.
"""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import textwrap
import threading
import time
from typing import Any, TextIO

from cephtui.ceph import ops
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.coerce import as_dict, as_float, as_str, dicts
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephError
from cephtui.ceph.workflows.queue import DRIVER_FRESH, driven_elsewhere, queue_rows
from cephtui.ceph.workflows.removal import KIND, OVERRIDES, Removal, StopCommandError
from cephtui.ceph.workflows.removal_checks import preflight
from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.removal_plan import DRAIN_MODES, default_drain, drain_cost, plan_lines
from cephtui.ceph.workflows.removal_stop import check_stop_template
from cephtui.ceph.workflows.store import WorkflowConflict, WorkflowStore
from cephtui.cli.args import UsageError
from cephtui.cli.table import Invocation

log = logging.getLogger(__name__)
EXIT = {"done": 0, "failed": 1, "blocked": 3, "aborted": 4}


HELP = "remove or replace OSDs headless, resumable"
DESCRIPTION = "The OSDs tab's removal wizard, headless; its state in the cluster's queue."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("targets", nargs="*", metavar="OSD", help="the OSDs, e.g. osd.3 osd.4")
    g = p.add_argument_group("remove options")
    g.add_argument("--osd-stop-cmd", dest="remove_osd_stop_cmd", metavar="CMD",
                   help="how to stop an OSD daemon, {id} replaced by its id (also as a global option); on "
                        "--resume it replaces the stored one")
    g.add_argument("--replace", action="store_true", help="destroy (keep the id and CRUSH position) for a new disk")
    g.add_argument("--drain", choices=DRAIN_MODES, default=None,
                   help="crush0: CRUSH weight 0 (default for a removal: nothing moves again at the purge); out: "
                        "mark out (default with --replace: destroy keeps the weight); the plan says what each costs")
    g.add_argument("--shell", action="store_true", help="run the --osd-stop-cmd template through /bin/sh -c")
    # The names come from OVERRIDES, the table the parser checks them against: help and parser cannot differ.
    g.add_argument("--override", action="append", default=[], metavar="NAME",
                   help=f"lift one preflight blocker, naming the risk ({', '.join(OVERRIDES)}); "
                        "written to the audit log")
    g.add_argument("--yes-i-typed", nargs="+", metavar="OSD", help="the OSD names again, exactly")
    g.add_argument("--resume", nargs="?", const="", metavar="ID", help="continue a paused/blocked/failed workflow")
    g.add_argument("--status", action="store_true", help="list the removal queue, like `ceph orch osd rm status`")
    g.add_argument("--interval", type=float, default=2.0, metavar="S", help="seconds between polls (default: 2)")
    g.add_argument("--json", action="store_true", help="with --status: print JSON")


def adjust(args: argparse.Namespace) -> None:
    """Its --osd-stop-cmd, or the global one (both given: the same, or refused)."""
    mine = args.remove_osd_stop_cmd
    if mine is not None and args.osd_stop_cmd is not None and mine != args.osd_stop_cmd:
        raise UsageError("--osd-stop-cmd given twice, differently (before and after `remove`)")
    args.osd_stop_cmd = mine if mine is not None else args.osd_stop_cmd


def run(inv: Invocation) -> int:
    return remove_command(inv.client, inv.spec, inv.args, inv.settings.osd_stop_cmd,
                          read_only=inv.settings.read_only)


def _ts(t: float | None = None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() if t is None else t))


def parse_osd_names(names: list[str]) -> list[int]:
    """`osd.N` names as ids; ValueError naming the first that is not one."""
    ids = []
    for n in names:
        head, _, num = n.partition(".")
        if head != "osd" or not num.isdigit() or str(int(num)) != num:
            raise ValueError(f"{n!r} is not an OSD name (osd.N)")
        if int(num) in ids:
            raise ValueError(f"{n} is given twice")
        ids.append(int(num))
    return ids


class Runner:
    """Ticks one engine, printing what changed; Ctrl-C/SIGTERM pause it between ticks."""

    def __init__(self, engine: RemovalEngine, out: TextIO, interval: float, seen_log: int | None = None) -> None:
        self.engine = engine
        self.out = out
        self.interval = max(0.2, interval)
        self.stop = threading.Event()
        self._seen_log = len(engine.state.log) if seen_log is None else seen_log  # log entries already shown
        self._last: tuple[str, str, str] = ("", "", "")

    def say(self, text: str, t: float | None = None) -> None:
        print(f"{_ts(t)}  {text}", file=self.out, flush=True)

    def report(self) -> None:
        s = self.engine.state
        for entry in s.log[self._seen_log:] if len(s.log) >= self._seen_log else s.log[-5:]:
            cli = f"  [{entry.get('cli')}]" if entry.get("cli") else ""
            self.say(f"{entry.get('step', s.step)}: {entry.get('text', '')}{cli}", entry.get("time"))
        self._seen_log = len(s.log)
        now = (s.step, s.status, s.waiting_for)
        if now != self._last and (s.waiting_for or s.status != "running"):
            p = s.progress or {}
            pgs = f", {p.get('pgs_on_osds')} PGs on the OSD(s)" if "pgs_on_osds" in p else ""
            self.say(f"{s.step}: {s.status}{pgs}" + (f": {s.waiting_for}" if s.waiting_for else ""))
        self._last = now

    def run(self) -> int:
        def interrupt(signum: int, frame: Any) -> None:
            self.stop.set()
        old = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.report()
            while True:
                if self.stop.is_set():
                    self.engine.pause()
                    self.report()
                    self.say(f"paused and saved: continue with `cephtui remove --resume {self.engine.state.id}`")
                    return 130
                try:
                    s = self.engine.tick()
                except Exception as e:  # a bug in a step: saved as failed, resumable, never a bare traceback
                    log.exception("removal %s: tick failed", self.engine.state.id)
                    s = self.engine.state
                    s.status = "failed"
                    s.waiting_for = f"internal error ({type(e).__name__}: {e}); see the log, then resume or abort"
                    self.engine.save()
                self.report()
                if s.status != "running":
                    return self.finish()
                self.stop.wait(self.interval)
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)

    def finish(self) -> int:
        s = self.engine.state
        code = EXIT.get(s.status, 1)
        if s.status == "done":
            self.say(f"done: {s.title}")
        else:
            for c in s.checks:
                if c.get("level") == "block":
                    print(f"blocked by {c.get('name')}: {c.get('detail')}", file=sys.stderr)
            print(f"cephtui remove: {s.status} at {s.step}: {s.waiting_for or 'see the lines above'}"
                  + (f"; then `cephtui remove --resume {s.id}`" if s.status in ("blocked", "failed") else ""),
                  file=sys.stderr)
        return code


def _apply_options(state: Removal, args: argparse.Namespace) -> None:
    """--shell / --override onto a new or resumed state (the stop command itself: see the callers).
    Raises ValueError with the reason for an unknown override or a stop command that cannot run."""
    if args.shell:
        state.stop_shell = True
    for name in args.override:
        if name not in OVERRIDES:
            raise ValueError(f"unknown override {name!r}; the preflight's blockers that can be overridden are: "
                             + ", ".join(OVERRIDES))
        if name not in state.overrides:
            state.overrides.append(name)
            state.note(f"override given by the operator: {name} (risk accepted: {OVERRIDES[name]})")
    try:
        check_stop_template(state.stop_template, state.stop_shell)
    except StopCommandError as e:
        raise ValueError(str(e)) from None


def remove_command(client: Cluster, spec: ConnectionSpec, args: argparse.Namespace, stop_cmd: str,
                   read_only: bool = False) -> int:
    from cephtui.ceph.secrets import log_to_file
    log_to_file()  # an internal error goes there (secrets masked), not as a traceback on the terminal
    store = WorkflowStore(client=client)
    if args.status:
        return status_command(store, as_json=args.json)
    if read_only:
        print("cephtui remove: read-only mode: removing an OSD changes the cluster (--read-write allows it)",
              file=sys.stderr)
        return 2
    audit = ops.AuditLog(cluster=client.fsid(), entity=spec.name)
    if args.resume is not None:
        return resume(client, store, audit, args)
    try:
        ids = parse_osd_names(args.targets)
    except ValueError as e:
        print(f"cephtui remove: {e}", file=sys.stderr)
        return 2
    if not ids:
        print("cephtui remove: name the OSD(s) to remove (osd.N ...), or --resume, or --status", file=sys.stderr)
        return 2
    dump = as_dict(client.mon("osd dump"))
    exist = {o.get("osd") for o in dicts(dump.get("osds"))}
    missing = [f"osd.{i}" for i in ids if i not in exist]
    if missing:
        print(f"cephtui remove: {', '.join(missing)} does not exist in the osdmap", file=sys.stderr)
        return 2
    state = Removal(osds=ids, replace=args.replace, drain_mode=args.drain or default_drain(args.replace),
                    stop_template=stop_cmd)
    try:
        _apply_options(state, args)
    except ValueError as e:
        print(f"cephtui remove: {e}", file=sys.stderr)
        return 2
    print_plan(client, state)
    others = store.conflicts(KIND, ids)
    if store.problem:
        print(f"warning: {store.problem}; only this machine's workflows were checked for conflicts",
              file=sys.stderr)
    names = [f"osd.{i}" for i in ids]
    if others:
        print(f"cephtui remove: refused: {WorkflowConflict.__name__}: " + _conflict(store, ids, others),
              file=sys.stderr)
        return 2
    if sorted(args.yes_i_typed or []) != sorted(names):
        got = " ".join(args.yes_i_typed) if args.yes_i_typed else "nothing"
        print(f"cephtui remove: refused: --yes-i-typed must name exactly {' '.join(names)} (got {got}); "
              "nothing was changed", file=sys.stderr)
        return 2
    engine = RemovalEngine(client, state, store, audit)
    try:
        engine.save()
    except WorkflowConflict as e:
        print(f"cephtui remove: refused: {e}", file=sys.stderr)
        return 2
    print(f"{_ts()}  started workflow {state.id}: {state.title} (stored in the cluster's queue"
          f"{'' if not store.problem else '; NOT: ' + store.problem})", flush=True)
    return Runner(engine, sys.stdout, args.interval).run()


def _conflict(store: WorkflowStore, ids: list[int], others: list[dict[str, Any]]) -> str:
    from cephtui.ceph.workflows.store import conflict_text
    return conflict_text(ids, others)


def print_plan(client: Cluster, r: Removal) -> None:
    """The plan and the preflight (read-only checks), before any typed confirmation is judged. The commands are
    the engine's own operations (removal_plan): what is printed here is what the audit log will show."""
    names = " ".join(f"osd.{i}" for i in r.osds)
    print(f"Plan: {r.title} (drain by {'marking out' if r.drain_mode == 'out' else 'CRUSH weight 0'})")
    for line in plan_lines(r, _hosts(client, r.osds) if "{host}" in r.stop_template else None,
                           _crush_weights(client) if r.replace and r.drain_mode == "crush0" else None):
        print(f"  {line}")
    print(textwrap.fill(drain_cost(r), 100, initial_indent="  ", subsequent_indent="  "))
    print("Preflight:")
    try:
        checks = preflight(client, r.osds, r.overrides)
    except CephError as e:
        print(f"  (could not run: {e.message})")
        checks = []
    for c in checks:
        lift = f" (can be lifted with --override {c.override})" if c.level == "block" and c.override else ""
        print(f"  [{c.level}] {c.name}: {c.detail}{lift}")
    print(f"To run it: cephtui remove {names} ... --yes-i-typed {names}", flush=True)


def _hosts(client: Cluster, osds: list[int]) -> dict[int, str]:
    """Each OSD's host (`osd metadata`), for a stop template's {host}; an OSD without metadata is left out."""
    hosts = {}
    for i in osds:
        try:
            hosts[i] = as_str(as_dict(client.mon("osd metadata", id=i)).get("hostname"))
        except CephError:
            pass
    return hosts


def _crush_weights(client: Cluster) -> dict[int, float]:
    try:
        nodes = dicts(as_dict(client.mon("osd tree")).get("nodes"))
    except CephError:
        return {}
    return {n["id"]: as_float(n.get("crush_weight")) for n in nodes if type(n.get("id")) is int and n["id"] >= 0}


def resume(client: Cluster, store: WorkflowStore, audit: ops.AuditLog, args: argparse.Namespace) -> int:
    queue = store.load_all(KIND)
    if store.problem:
        print(f"warning: {store.problem}", file=sys.stderr)
    pending = []
    for d in queue:
        try:
            r = Removal.from_json(d)
        except ValueError:
            continue
        if not r.finished:
            pending.append((r, d))
    chosen = [(r, d) for r, d in pending if r.id == args.resume] if args.resume else pending
    if not chosen:
        print(f"cephtui remove: no unfinished removal{' ' + args.resume if args.resume else ''} in the queue"
              " (cephtui remove --status)", file=sys.stderr)
        return 2
    if len(chosen) > 1:
        print("cephtui remove: several unfinished removals; name one: "
              + ", ".join(f"{r.id} ({r.title}, {r.status})" for r, _ in chosen), file=sys.stderr)
        return 2
    state, d = chosen[0]
    row = next(x for x in queue_rows([d]))
    if driven_elsewhere(row, store.me):  # another cephtui (TUI or headless) is ticking it right now
        print(f"cephtui remove: {state.id} is being driven by {row['driven_by'] or 'another cephtui'} (pid "
              f"{row['pid']}, updated {time.time() - state.updated:.0f} s ago): pause it there first, or wait "
              f"{DRIVER_FRESH:.0f} s if that session is gone", file=sys.stderr)
        return 2
    seen = len(state.log)
    template = args.osd_stop_cmd if args.osd_stop_cmd is not None else state.stop_template
    shell = True if args.shell else state.stop_shell
    try:
        check_stop_template(template, shell)
        args.shell = False  # the stop method goes through engine.resume, which notes a change
        _apply_options(state, args)
    except (ValueError, StopCommandError) as e:
        print(f"cephtui remove: {e}", file=sys.stderr)
        return 2
    engine = RemovalEngine(client, state, store, audit)
    print(f"{_ts()}  resuming {state.id}: {state.title} at {state.step} ({state.status})", flush=True)
    if state.status != "running":
        engine.resume(template, shell)
    else:  # a running workflow left by a dead process: the same, without the status change
        engine.resume(template, shell)
        engine.save()
    return Runner(engine, sys.stdout, args.interval, seen_log=seen).run()


def status_command(store: WorkflowStore, *, as_json: bool) -> int:
    rows = queue_rows(store.load_all(KIND))
    if as_json:
        json.dump({"source": "cache" if store.problem else "cluster", "problem": store.problem, "removals": rows},
                  sys.stdout, indent=2)
        print()
        return 0
    if store.problem:
        print(f"warning: {store.problem}", file=sys.stderr)
    if not rows:
        print("No OSD removal or replacement in the queue.")
        return 0
    head = ("ID", "OSDS", "KIND", "STEP", "STATUS", "PGS LEFT", "STARTED", "BY")
    table = [head] + [(r["id"], ",".join(r["osds"]), r["kind"], r["step"], r["status"],
                       "-" if r["pgs_left"] is None else str(r["pgs_left"]), _ts(r["started"]), r["started_by"])
                      for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0
