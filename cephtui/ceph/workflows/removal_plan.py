"""What a removal will send, made from the very operations the engine sends: the plan an admin approves (the
TUI's plan screen, `cephtui remove`'s printed plan) and the commands that run can never differ.

An earlier plan was typed by hand beside the engine: it promised `ceph osd purge 3` while the engine sent
`ceph osd purge-actual 3` (see ops.osd_remove for why). Here every cephtui-sent line is an Operation's own
`cli`, or the same string the engine writes to the audit log (safe-to-destroy, the stop command).

Also the drain's vocabulary: which drains exist, the default for a removal and for a replacement, and what
each costs, in the plan's words.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cephtui.ceph import ops
from cephtui.ceph.workflows.removal import DRAIN_MODES, Removal, default_drain
from cephtui.ceph.workflows.removal_stop import stop_command

__all__ = ["DRAIN_MODES", "PlannedCommand", "default_drain", "drain_cost", "drain_operations", "plan_lines",
           "planned_commands", "restore_weight_operation"]

def drain_operations(osds: Sequence[int], mode: str) -> list[ops.Operation]:
    """The drain's commands for these OSDs (the engine sends those still needed: an OSD already at CRUSH
    weight 0, or already out, is skipped)."""
    if mode == "crush0":
        return [ops.crush_reweight(f"osd.{i}", 0) for i in osds]
    return [ops.osd_out(osds)] if osds else []


def restore_weight_operation(osd: int, weight: float) -> ops.Operation:
    """A replacement drained by crush0: the new OSD gets back the CRUSH weight the old one had. Ceph keeps a
    destroyed OSD's CRUSH item, and the new OSD's `osd crush create-or-move` on start keeps the weight it
    finds there (0), so without this the new disk would never receive data."""
    return ops.crush_reweight(f"osd.{osd}", weight)


def safe_to_destroy_cli(osds: Sequence[int]) -> str:
    """The line the engine writes to the audit log for each safe-to-destroy answer."""
    return "ceph osd safe-to-destroy " + " ".join(str(i) for i in osds)


def ok_to_stop_cli(osds: Sequence[int]) -> str:
    return "ceph osd ok-to-stop " + " ".join(str(i) for i in osds)


@dataclass(frozen=True)
class PlannedCommand:
    cli: str  # exactly the line the audit log will hold for it (or, for the operator's own step, what to run)
    note: str = ""  # when and why, in words
    sent: bool = True  # False: read-only, or for the operator to run (ceph-volume); True: cephtui sends it
    mutating: bool = True  # False: a read (preflight, safe-to-destroy)


def planned_commands(r: Removal, hosts: Mapping[int, str] | None = None,
                     weights: Mapping[int, float] | None = None) -> list[PlannedCommand]:
    """Every command of the workflow, in order. `hosts` fills a stop template's {host}; `weights` (CRUSH weight
    per OSD, as now) the weight a crush0-drained replacement gets back."""
    hosts = hosts or {}
    weights = weights or {}
    out = [PlannedCommand(ok_to_stop_cli(r.osds), "preflight, read-only", mutating=False)]
    for op in drain_operations(r.osds, r.drain_mode):
        out.append(PlannedCommand(op.cli))
    out.append(PlannedCommand(safe_to_destroy_cli(r.osds), "polled, with pg dump and osd df, until every PG is "
                              "active+clean by stats newer than the drain and it says yes over the stats period",
                              mutating=False))
    for i in r.osds:
        line = stop_command(r.stop_template, i, hosts.get(i, ""), shell=r.stop_shell)
        if line is None:
            out.append(PlannedCommand(f"systemctl stop ceph-osd@{i}", f"stop osd.{i}: systemd when it runs here, "
                                      "the orchestrator (ceph orch daemon stop) with cephadm, else you on its host; "
                                      "cephtui waits until it is down", sent=False))
        else:
            out.append(PlannedCommand(line, "through /bin/sh" if r.stop_shell else ""))
    for i in r.osds:
        op = ops.osd_remove_command(i, r.replace)
        verb = "destroy" if r.replace else "purge"
        out.append(PlannedCommand(op.cli, f"what `ceph osd {verb}` runs after its own check; sent only once "
                                  "safe-to-destroy said yes in this run"))
    if r.replace:
        for i in r.osds:
            out.append(PlannedCommand(f"ceph-volume lvm create --osd-id {i} --data /dev/DEVICE", "you, on the host",
                                      sent=False))
        if r.drain_mode == "crush0":
            for i in r.osds:
                w = weights.get(i)
                cli = restore_weight_operation(i, w).cli if w else \
                    f"ceph osd crush reweight osd.{i} <its CRUSH weight before the drain>"
                out.append(PlannedCommand(cli, "once the new OSD is up and in: a destroyed OSD keeps CRUSH weight 0"))
    return out


def drain_cost(r: Removal) -> str:
    """What the chosen drain costs, said plainly in the plan (the form and `cephtui remove` show it)."""
    if r.replace:
        if r.drain_mode == "out":
            return ("Drain by marking out: the OSD keeps its CRUSH weight, and destroy keeps its CRUSH position, so "
                    "the new disk takes its place: data moves off once now, and back once onto the new disk.")
        return ("Drain by CRUSH weight 0 (for a replacement, `out` moves less): the host's weight drops, so PGs "
                "also move between other OSDs; destroy keeps the weight at 0, so cephtui sets the old weight back "
                "once the new OSD is up and in, and that data moves back a second time.")
    if r.drain_mode == "crush0":
        return ("Drain by CRUSH weight 0: the host's weight drops with it, so some PGs move between other OSDs as "
                "well, but only once: the purge then removes a weight-0 item from CRUSH, which moves nothing.")
    return ("Drain by marking out — COSTS A SECOND MOVE AT THE PURGE: the OSD keeps its CRUSH weight while it "
            "drains, and the purge then removes it from CRUSH, so its host's weight changes and data moves a "
            "second time, with a short peering window (seen: 3 PGs inactive for 5 s, PG_AVAILABILITY: client IO "
            "to them stops). crush0, the default, drains with no second move.")


def plan_lines(r: Removal, hosts: Mapping[int, str] | None = None,
               weights: Mapping[int, float] | None = None) -> list[str]:
    """The plan as text lines: `$ command   (note)`, a line the operator runs marked so."""
    return [f"$ {c.cli}" + (f"   ({c.note})" if c.note else "") for c in planned_commands(r, hosts, weights)]
