"""`cephtui doctor`: every raised health check with its explanation, what it names on this cluster, and the
commands that fix it; for cron jobs and tickets. Read-only: it suggests commands, it never runs them."""
from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.cli.table import Invocation

if TYPE_CHECKING:  # the Doctor is imported when it runs (cephtui/cli/table.py: keep the parsers cheap)
    from cephtui.ceph.doctor.crashes import Crash
    from cephtui.ceph.doctor.model import Finding
    from cephtui.ceph.history.failslow import FailSlowReport

HELP = "explain every raised health check and how to fix it"
DESCRIPTION = ("Every raised health check with what it means, what it names on this cluster (OSDs, hosts, pools, "
               "PGs) and the commands that fix it. Read-only. Exit status: 0 healthy (or only muted checks), 3 a "
               "warning, 4 an error; 1 cannot connect, 2 usage.")


def add_arguments(d: argparse.ArgumentParser) -> None:
    d.add_argument("--json", action="store_true", help="print JSON, for scripts and tickets")
    d.add_argument("--muted", action="store_true", help="also explain muted checks")
    d.add_argument("--window", type=float, metavar="S",
                   help="fail-slow (OSDs far slower than their peers): seconds of `osd perf` to sample when no "
                        "recorder has been writing history (default: 30; 0 skips the ranking)")


def check(inv: Invocation) -> None:
    if inv.args.window is not None and not 0 <= inv.args.window <= 3600:
        inv.parser.error("doctor --window takes seconds from 0 (skip the fail-slow ranking) to 3600")


def run(inv: Invocation) -> int:
    return doctor_command(inv.client, inv.args)


# Exit status by the worst check that counts (muted ones do not), after 1 (cannot connect) and 2 (usage).
EXIT = {"HEALTH_OK": 0, "HEALTH_WARN": 3, "HEALTH_ERR": 4}
WIDTH = 100


# Checks whose fix is the crash reports: the headless output names the reports themselves (crash ls).
CRASH_CODES = ("RECENT_CRASH", "RECENT_MGR_MODULE_CRASH")


def finding_json(f: Finding, crashes: Sequence[Crash] | None = None) -> dict[str, Any]:
    from cephtui.ceph.doctor.crashes import crash_json

    e, a = f.explanation, f.affected
    out: dict[str, Any] = {
        "code": f.code, "severity": f.check.severity, "summary": f.check.summary, "count": f.check.count,
        "muted": f.check.muted,
        "mute": None if f.mute is None else {"ttl": f.mute.ttl or None, "sticky": f.mute.sticky},
        "detail": list(f.check.detail),
        "affected": {"osds": list(a.osds), "hosts": list(a.hosts), "pools": list(a.pools), "pgs": list(a.pgs),
                     "daemons": list(a.daemons), "other": list(a.other), "not_listed": a.more,
                     "unparsed": list(a.unparsed)},
        "context": list(f.context),
        "explanation": None if e is None else {
            "title": e.title, "meaning": e.meaning, "why": e.why, "causes": list(e.causes),
            "actions": list(e.actions), "options": list(e.options), "raised_by": e.raised_by,
            "releases": e.releases},
        "fixes": [{"label": x.label, "command": x.cli} for x in f.fixes],
    }
    if f.code in CRASH_CODES and crashes is not None:  # the reports themselves, new ones only
        out["crashes"] = [crash_json(c) for c in crashes if c.new]
    return out


def _wrap(text: str, indent: str) -> str:
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")


def print_finding(f: Finding, crashes: Sequence[Crash] | None = None) -> None:
    from cephtui.ceph.doctor.crashes import new_crash_lines

    e = f.explanation
    muted = ""
    if f.mute is not None:
        muted = f" (muted{' until ' + f.mute.ttl if f.mute.ttl else ''}{', sticky' if f.mute.sticky else ''})"
    print(f"[{f.check.severity.removeprefix('HEALTH_')}] {f.code}: {f.check.summary}{muted}")
    if e is None:
        print("  cephtui has no explanation for this code; Ceph's own detail:")
        for d in f.check.detail[:20]:
            print(f"    {d}")
        print()
        return
    print(_wrap(f"{e.title}. {e.meaning}", "  "))
    print(_wrap(f"Why it matters: {e.why}", "  "))
    named = [(k, v) for k, v in (("OSDs", ", ".join(f"osd.{i}" for i in f.affected.osds)),
                                 ("hosts", ", ".join(f.affected.hosts)), ("pools", ", ".join(f.affected.pools)),
                                 ("PGs", ", ".join(f.affected.pgs[:20]) + (" …" if len(f.affected.pgs) > 20 else "")),
                                 ("daemons", ", ".join(f.affected.daemons)), ("also", ", ".join(f.affected.other)))
             if v]
    for k, v in named:
        print(_wrap(f"{k}: {v}", "  "))
    for line in f.context:
        print(_wrap(f"- {line}", "  "))
    if f.code in CRASH_CODES and crashes is not None:
        print("  New crash reports (crash ls), by backtrace signature:")
        for line in new_crash_lines(crashes) or ["none: every report is archived already"]:
            print(f"    {line}")
    print("  Likely causes:")
    for c in e.causes:
        print(_wrap(f"- {c}", "    "))
    print("  What to do:")
    for i, step in enumerate(e.actions, 1):
        print(_wrap(f"{i}. {step}", "    "))
    for x in f.fixes:
        print(f"  cephtui offers: {x.label}: {x.cli}")
    if e.options:
        print(_wrap(f"Options: {', '.join(e.options)}", "  "))
    print()


def doctor_command(client: Cluster, args: argparse.Namespace) -> int:
    from cephtui.ceph.doctor.crashes import crash_fix_offers
    from cephtui.ceph.doctor.diagnose import diagnose
    from cephtui.ceph.doctor.failslow import findings as failslow_findings
    from cephtui.ceph.doctor.mgrgone import mgr_unreachable
    from cephtui.ceph.history.failslow import report_json
    from cephtui.ceph.snapshot.builder import SnapshotBuilder

    snap = SnapshotBuilder(client).build(osd_tree=True, pools=True)
    findings = [f for f in diagnose(snap) if args.muted or not f.check.muted]
    crashes, problem = _crashes(client, findings)
    if crashes is not None:  # the generic "crash info <id>" offer becomes one per real report
        findings = [replace(f, fixes=crash_fix_offers(crashes) or f.fixes) if f.code in CRASH_CODES else f
                    for f in findings]
    notes = list(snap.notes) + ([problem] if problem else [])
    slow, slow_note = _failslow(client, snap, args)
    if slow_note:
        notes.append(slow_note)
    if slow is not None:
        findings = [*findings, *failslow_findings(slow)]
    gone = mgr_unreachable(snap, findings)
    if gone is not None:  # before the monitors' MGR_DOWN: not HEALTH_OK and exit 0 beside "nothing listens"
        findings = [gone, *findings]
    counting = [f.check.severity for f in findings if not f.check.muted]
    worst = max(counting, key=lambda s: EXIT.get(s, 3), default="HEALTH_OK")
    if args.json:
        json.dump({"fsid": snap.fsid, "status": snap.health.status,
                   "findings": [finding_json(f, crashes) for f in findings],
                   "failslow": None if slow is None else report_json(slow), "notes": notes}, sys.stdout, indent=2)
        print()
        return EXIT.get(worst, 3)
    print(f"cluster {snap.fsid}: {snap.health.status}"
          + (f" ({len(snap.health.mutes)} muted)" if snap.health.mutes else ""))
    print()
    if not snap.health.checks and not findings:
        print("No health checks raised.")
    elif not findings:
        print("Only muted checks (--muted shows them).")
    for f in findings:
        print_finding(f, crashes)
    for note in [*notes, *(slow.notes if slow is not None else ())]:  # JSON has the ranking's under "failslow"
        print(f"note: {note}")
    return EXIT.get(worst, 3)


def _failslow(client: Cluster, snap: Any, args: argparse.Namespace) -> tuple[FailSlowReport | None, str]:
    """The fail-slow ranking (recorded history, else `osd perf` sampled for --window seconds) and one note
    saying where its window came from, or why there is none. Never raises: a dead mgr is a note."""
    from cephtui.ceph.doctor.failslow import SAMPLE_SECONDS, gather, heartbeat_reader
    from cephtui.paths import data_dir

    seconds = SAMPLE_SECONDS if args.window is None else args.window
    if seconds <= 0:
        return None, "fail-slow: not judged (--window 0)"
    version = ""
    releases = client.mon_releases()
    if releases:
        version = releases[0].version
    got = gather(client, snap.fsid, snap.health.checks, version, data_dir(), seconds,
                 heartbeat_reader(client))
    return got.report, got.note


def _crashes(client: Cluster, findings: Sequence[Finding]) -> tuple[tuple[Crash, ...] | None, str]:
    """The crash reports, read only when a crash check is raised; (None, why) when the mgr cannot say."""
    from cephtui.ceph.doctor.crashes import parse_crash_ls

    if not any(f.code in CRASH_CODES for f in findings):
        return None, ""
    try:
        return parse_crash_ls(client.mgr("crash ls")), ""
    except CephError as e:
        return None, f"crash ls: {e.message.strip() or f'errno {e.errno}'}: the crash reports are not listed"
