"""Entering and leaving maintenance: which flags to set and unset (only those a maintenance owns), the
record after each run, ok-to-stop's answer and the operator's instructions. Pure: no cluster calls."""
from __future__ import annotations

import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.coerce import as_dict, as_list, as_strs
from cephtui.ceph.workflows.maintenance import (
    EXTRA_FLAGS,
    FlagKey,
    Maintenance,
    Target,
    clock_time,
    flag_label,
    who_of,
)
from cephtui.paths import login


def flag_ops(keys: Sequence[FlagKey], on: bool) -> list[ops.Operation]:
    """Cluster flags one command each (in the given order); scoped flags one set-group per flag."""
    out: list[ops.Operation] = []
    scoped: dict[str, list[str]] = {}
    for flag, scope in keys:
        if scope:
            scoped.setdefault(flag, []).append(who_of(scope))
    done: set[str] = set()
    for flag, scope in keys:
        if not scope:
            out.append(ops.flag_set(flag, on))
        elif flag not in done:
            done.add(flag)
            out.append(ops.group_flag_set(flag, scoped[flag], on))
    return out


def plan_enter(target: Target, extra: Sequence[str], now_set: Iterable[FlagKey], fsid: str,
               user: str | None = None, now: float | None = None) -> tuple[Maintenance, list[ops.Operation]]:
    """The record (state "entering") and the commands: only flags not already set, owned by it."""
    if not target.osds:
        raise ValueError("no OSD chosen")
    bad = [f for f in extra if f not in EXTRA_FLAGS]
    if bad:
        raise ValueError(f"'{bad[0]}' is not a maintenance flag ({', '.join(EXTRA_FLAGS)})")
    current = set(now_set)
    wanted: list[FlagKey] = [("noout", s) for s in target.noout_scopes] + [(f, "") for f in extra]
    owned = tuple(k for k in wanted if k not in current)
    t = time.time() if now is None else now
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(t))
    name = target.host or "osd" + "-".join(str(i) for i in target.osds[:4])
    m = Maintenance(id=f"{name}-{stamp}-{secrets.token_hex(2)}", fsid=fsid, target=target, set_by_it=owned,
                    kept=tuple(k for k in wanted if k not in owned), owned=owned, started=t,
                    user=user if user is not None else login())
    return m, flag_ops(owned, True)


def enter_explanation(m: Maintenance) -> str:
    osds = ", ".join(f"osd.{i}" for i in m.target.osds)
    lines = [f"Maintenance of {m.target.label} ({osds})." if m.target.host else f"Maintenance of {osds}."]
    if m.set_by_it:
        lines.append("Sets (and unsets again at exit): " + ", ".join(flag_label(k) for k in m.set_by_it) + ".")
    if m.kept:
        lines.append("Already set by someone else, so left alone now and at exit: "
                     + ", ".join(flag_label(k) for k in m.kept) + ".")
    return "\n".join(lines)


def apply_results(m: Maintenance, results: Sequence[tuple[ops.Operation, bool, str]], on: bool,
                  now: float | None = None) -> Maintenance:
    """Fold the confirm dialog's results into the record: which owned flags are really set/unset now.

    Entering (on=True): an owned flag whose command failed or never ran is not owned after all.
    Exiting (on=False): an owned flag whose unset succeeded is no longer owned.
    """
    def succeeded(keys: Sequence[FlagKey]) -> set[FlagKey]:
        won: set[FlagKey] = set()
        for op, ok, _ in results:
            args = dict(op.args)
            if not ok:
                continue
            if op.prefix in ("osd set", "osd unset"):
                won.add((str(args.get("key", "")), ""))
            elif op.prefix in ("osd set-group", "osd unset-group"):
                whos = set(args.get("who") or ())
                won |= {k for k in keys if k[1] and k[0] == args.get("flags") and who_of(k[1]) in whos}
        return won & set(keys)

    out = m
    for op, ok, message in results:
        out = out.log(("ran: " if ok else "refused: ") + op.cli + (f" ({message.strip()})" if message.strip() else ""),
                      ok, now)
    if on:
        won = succeeded(m.owned)
        out = replace(out, owned=tuple(k for k in m.owned if k in won),
                      set_by_it=tuple(k for k in m.set_by_it if k in won))
    else:
        gone = succeeded(m.owned)
        out = replace(out, owned=tuple(k for k in m.owned if k not in gone))
    return out


@dataclass(frozen=True)
class ExitPlan:
    operations: tuple[ops.Operation, ...]
    unset: tuple[FlagKey, ...]  # owned and still set: unset now
    already_gone: tuple[FlagKey, ...]  # owned but no longer set (someone unset it): nothing to do
    handed_over: tuple[tuple[FlagKey, str], ...]  # owned, still needed by another active maintenance (its id)
    left_alone: tuple[FlagKey, ...]  # never ours: set by someone else before we came

    def explanation(self, m: Maintenance) -> str:
        lines = [f"Exit maintenance of {m.target.label} (entered {clock_time(m.started)} by {m.user or '?'})."]
        if self.unset:
            lines.append("Unsets what this maintenance set: " + ", ".join(flag_label(k) for k in self.unset) + ".")
        if self.left_alone:
            lines.append("Leaves alone (set by someone else): " + ", ".join(flag_label(k) for k in self.left_alone)
                         + ".")
        if self.already_gone:
            lines.append("Already unset by someone: " + ", ".join(flag_label(k) for k in self.already_gone) + ".")
        for k, other in self.handed_over:
            lines.append(f"Keeps {flag_label(k)}: maintenance {other} still needs it (it now owns it).")
        return "\n".join(lines)


def plan_exit(m: Maintenance, now_set: Iterable[FlagKey], others: Sequence[Maintenance] = ()) -> ExitPlan:
    current = set(now_set)
    needing: dict[FlagKey, str] = {}
    for o in others:
        if o.id != m.id and o.active and o.fsid == m.fsid:
            for k in o.wanted:
                needing.setdefault(k, o.id)
    unset: list[FlagKey] = []
    gone: list[FlagKey] = []
    handed: list[tuple[FlagKey, str]] = []
    for k in m.owned:
        if k not in current:
            gone.append(k)
        elif k in needing:
            handed.append((k, needing[k]))
        else:
            unset.append(k)
    return ExitPlan(tuple(flag_ops(unset, False)), tuple(unset), tuple(gone), tuple(handed),
                    tuple(k for k in m.kept if k not in m.owned))


def finish_enter(m: Maintenance, results: Sequence[tuple[ops.Operation, bool, str]], ran: bool,
                 now: float | None = None) -> Maintenance | None:
    """The record after the enter dialog closed; None when nothing was set at all (cancelled, or refused)."""
    if not ran or (m.owned and not any(ok for _, ok, _ in results)):
        return None
    return replace(apply_results(m, results, True, now), state="active")


def finish_exit(m: Maintenance, plan: ExitPlan, results: Sequence[tuple[ops.Operation, bool, str]],
                now: float | None = None) -> Maintenance:
    """The record after the exit dialog: done when nothing it owns is left set, else still active."""
    t = time.time() if now is None else now
    out = apply_results(m, results, False, t)
    settled = set(plan.already_gone) | {k for k, _ in plan.handed_over}
    out = replace(out, owned=tuple(k for k in out.owned if k not in settled))
    if plan.already_gone:
        out = out.log("already unset by someone: " + ", ".join(flag_label(k) for k in plan.already_gone), True, t)
    if plan.handed_over:
        out = out.log("handed over: " + ", ".join(f"{flag_label(k)} to {o}" for k, o in plan.handed_over), True, t)
    if out.owned:
        return replace(out, state="active").log("exit incomplete: still set " + ", ".join(
            flag_label(k) for k in out.owned), False, t)
    return replace(out, state="done", ended=t).log("exit done", True, t)


def hand_over(records: Sequence[Maintenance], plan: ExitPlan) -> list[Maintenance]:
    """Give flags kept for another maintenance to it: it now owns them (and unsets them at its exit)."""
    out = []
    for r in records:
        gifts = tuple(k for k, other in plan.handed_over if other == r.id and k not in r.owned)
        out.append(replace(r, owned=r.owned + gifts).log(
            "took over " + ", ".join(flag_label(k) for k in gifts)) if gifts else r)
    return out


# ------------------------------------------------------------------ ok-to-stop

def ok_to_stop_summary(result: Any) -> str:
    r = as_dict(result)
    osds = ", ".join(f"osd.{i}" for i in as_strs(r.get("osds")))
    degraded = len(as_list(r.get("ok_become_degraded")))
    text = f"ok-to-stop: yes for {osds or 'the chosen OSDs'}"
    if degraded:
        text += (f"; {degraded} PG(s) will be degraded (still active) while they are down: "
                 "the cluster stays available but has less redundancy")
    return text + "."


OK_TO_STOP_REFUSED = (
    "The mgr says stopping these OSDs now would leave placement groups without enough copies to serve IO "
    "(below min_size) or would stop the last copy: clients would hang on those PGs until the OSDs are back. "
    "Usual causes: the cluster is not HEALTH_OK (other OSDs down, PGs degraded or recovering), or this host "
    "holds more replicas than the pools can lose (few hosts, failure domain osd). Wait for recovery, fix the "
    "other problem, or maintain fewer OSDs at a time. Setting the flags is harmless in itself; stopping the "
    "daemons is what would cause the outage.")


# ------------------------------------------------------------------ instructions

def instructions(target: Target) -> list[str]:
    """What to run on the host: the daemons are stopped there, not through the mon."""
    ids = " ".join(f"ceph-osd@{i}" for i in target.osds)
    host = target.host or "the host(s) of these OSDs"
    lines = [
        f"On {host}, once the flags are set:",
        f"  systemctl stop {ids}" + ("      # or: systemctl stop ceph-osd.target" if target.host else ""),
    ]
    if target.host:
        lines.append(f"  cephadm clusters: ceph orch host maintenance enter {target.host}   (stops every daemon "
                     "of the host)")
    else:
        lines.append("  cephadm clusters: " + "; ".join(f"ceph orch daemon stop osd.{i}" for i in target.osds))
    lines += [
        "Do the work (reboot, disk, firmware …), then start them again:",
        f"  systemctl start {ids}" + ("     # or: systemctl start ceph-osd.target" if target.host else ""),
    ]
    if target.host:
        lines.append(f"  cephadm clusters: ceph orch host maintenance exit {target.host}")
    else:
        lines.append("  cephadm clusters: " + "; ".join(f"ceph orch daemon start osd.{i}" for i in target.osds))
    lines.append("Wait until the OSDs are up and PGs active+clean, then Exit maintenance here (x).")
    return lines
