"""OSD operations: in/out/down, noout, weights, device class, removal."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from cephtui.ceph.ops.core import DESTROYS, MOVES_DATA, SAFE, Operation
from cephtui.ceph.validate import check_name, cli_line, fmt_value, osd_ids, osd_list, parse_fraction, parse_weight


def _ids_op(verb: str, prefix: str, ids: Iterable[int], impact: str, title: str,
            weight: float | None = None, effect: str = "") -> Operation:
    ids_ = osd_ids(ids)
    return Operation(title=f"{title} {osd_list(ids_)}", prefix=prefix,
                     args=(("ids", [str(i) for i in ids_]),), cli=cli_line(*verb.split(), *map(str, ids_)),
                     impact=impact, effect=effect,
                     osd_weights=None if weight is None else tuple((i, weight) for i in ids_))


def osd_in(ids: Iterable[int]) -> Operation:
    return _ids_op("osd in", "osd in", ids, SAFE, "Mark in", weight=1.0)


def osd_out(ids: Iterable[int]) -> Operation:
    return _ids_op("osd out", "osd out", ids, SAFE, "Mark out", weight=0.0)


def osd_down(ids: Iterable[int]) -> Operation:
    # A running OSD marks itself up again after peering; this is how admins force a re-peer.
    return _ids_op("osd down", "osd down", ids, SAFE, "Mark down",
                   effect="their PGs re-peer (client IO to them pauses briefly); a running OSD marks itself up "
                          "again within seconds, a stopped one stays down")


def osd_noout(ids: Iterable[int], on: bool) -> Operation:
    verb = "osd add-noout" if on else "osd rm-noout"
    return _ids_op(verb, verb, ids, SAFE, "Set noout on" if on else "Unset noout on")


def osd_reweight(osd: int, weight: str | float) -> Operation:
    w = parse_fraction(weight, "reweight")
    return Operation(title=f"Reweight osd.{osd} to {fmt_value(w)}", prefix="osd reweight",
                     args=(("id", int(osd)), ("weight", w)), cli=cli_line("osd", "reweight", str(osd), fmt_value(w)),
                     osd_weights=((int(osd), w),))


def require_names(operations: Sequence[Operation], ids: Sequence[int], bucket: str | None = None
                  ) -> list[Operation]:
    """Actions on a bucket or on more than one OSD: the bucket's name (or the OSDs' names) must be typed.

    One key on a bucket row reaches every OSD under it; the typed name makes that a decision.
    """
    operations = list(operations)
    if not operations or (bucket is None and len(set(ids)) < 2):
        return operations
    names = " ".join(f"osd.{i}" for i in sorted(set(ids)))
    if bucket is not None:
        typed = bucket
        why = f"This acts on every OSD under {bucket}: {len(set(ids))} OSD{'s' if len(set(ids)) != 1 else ''} " \
              f"({_short_list(ids)})."
    else:
        typed, why = names, f"This acts on {len(set(ids))} OSDs ({_short_list(ids)})."
    first = operations[0]
    if first.confirm_text:  # a destroying operation already asks for its own name
        return operations
    title = f"{first.title} (every OSD under {bucket})" if bucket is not None else first.title
    return [replace(first, confirm_text=typed, confirm_why=why, title=title), *operations[1:]]


def _short_list(ids: Sequence[int], n: int = 8) -> str:
    ids_ = sorted(set(ids))
    return osd_list(ids_[:n]) + (f" … +{len(ids_) - n} more" if len(ids_) > n else "")


def osd_primary_affinity(osd: int, weight: str | float) -> Operation:
    w = parse_fraction(weight, "primary affinity")
    return Operation(title=f"Set primary affinity of osd.{osd} to {fmt_value(w)}", prefix="osd primary-affinity",
                     args=(("id", int(osd)), ("weight", w)),
                     cli=cli_line("osd", "primary-affinity", str(osd), fmt_value(w)))


def crush_reweight(name: str, weight: str | float) -> Operation:
    name = check_name(name, "item")
    w = parse_weight(weight)
    return Operation(title=f"Set CRUSH weight of {name} to {fmt_value(w)}", prefix="osd crush reweight",
                     args=(("name", name), ("weight", w)), cli=cli_line("osd", "crush", "reweight", name, fmt_value(w)),
                     impact=MOVES_DATA, crush_edit=("--reweight-item", name, repr(w)))


def set_device_class(ids: Iterable[int], cls: str, current: dict[int, str]) -> list[Operation]:
    """Ceph refuses to overwrite a class (EBUSY), so OSDs that have one get rm-device-class first."""
    ids_ = osd_ids(ids)
    cls = check_name(cls, "device class")
    ops: list[Operation] = []
    rebind = [i for i in ids_ if current.get(i) and current.get(i) != cls]
    if rebind:
        ops.append(Operation(title=f"Remove device class of {osd_list(rebind)}", prefix="osd crush rm-device-class",
                             args=(("ids", [str(i) for i in rebind]),),
                             cli=cli_line("osd", "crush", "rm-device-class", *(f"osd.{i}" for i in rebind)),
                             impact=MOVES_DATA, crush_edit=()))
    todo = [i for i in ids_ if current.get(i) != cls]
    if not todo:
        raise ValueError(f"{osd_list(ids_)} already {'has' if len(ids_) == 1 else 'have'} class {cls}")
    ops.append(Operation(title=f"Set device class {cls} on {osd_list(todo)}", prefix="osd crush set-device-class",
                         args=(("class", cls), ("ids", [str(i) for i in todo])),
                         cli=cli_line("osd", "crush", "set-device-class", cls, *(f"osd.{i}" for i in todo)),
                         impact=MOVES_DATA, crush_edit=()))
    return ops


def osd_remove(osd: int, replace: bool, safe_verified: bool) -> Operation:
    """Destroy (replacement: keeps id and CRUSH position) or purge (gone for good) one OSD.

    `ceph osd destroy|purge` is a mgr command that runs safe-to-destroy and then sends
    `osd destroy-actual|purge-actual` to the mon. cephtui talks to the mon only (see client.py), and
    through the mon `osd purge` answers EINVAL without doing anything (Pacific 16.2.15), so it sends
    the -actual command itself, and only once `osd safe-to-destroy` said yes for this OSD in this run
    of the workflow. It is what the CLI does, with the same check, made visible.
    """
    if not safe_verified:
        raise ValueError(f"osd.{osd} has not been confirmed safe to destroy in this run; refusing")
    return osd_remove_command(osd, replace)


def osd_remove_command(osd: int, replace: bool) -> Operation:
    """The operation `osd_remove` sends, built without its check: what a removal's plan shows (the plan is
    made from the very operations the workflow sends, so the command approved is the command run)."""
    verb = "destroy-actual" if replace else "purge-actual"
    return Operation(title=f"{'Destroy' if replace else 'Purge'} osd.{osd} (safe-to-destroy said yes)",
                     prefix=f"osd {verb}", args=(("id", int(osd)), ("yes_i_really_mean_it", True)),
                     cli=cli_line("osd", verb, str(osd), "--yes-i-really-mean-it"), impact=DESTROYS,
                     confirm_text=f"osd.{osd}")


def orch_daemon_stop(daemon: str) -> Operation:
    """Stop a daemon through the orchestrator (cephadm, rook): it knows which host runs it."""
    daemon = check_name(daemon, "daemon")
    return Operation(title=f"Stop {daemon} through the orchestrator", prefix="orch daemon",
                     args=(("action", "stop"), ("name", daemon)), cli=cli_line("orch", "daemon", "stop", daemon))
