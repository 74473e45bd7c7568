"""What a removal waits on and checks: the stop and done gates, preflight, safe-to-destroy and drain
progress (the UI shows these too)."""
from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_list, as_str, as_strs, dicts
from cephtui.ceph.coerce import as_int as _i
from cephtui.ceph.crush import crushtool
from cephtui.ceph.errors import CephError, CephMgrDown, CephTimeout
from cephtui.ceph.movement import fetch_osdmap
from cephtui.ceph.ops.fillcalc import project_removal
from cephtui.ceph.snapshot.parse import pg_stats_list
from cephtui.ceph.workflows.removal import (
    BAD_PG_STATES,
    CLEAN_EXTRAS,
    OVERRIDES,
    SETTLING_PG_STATES,
    STALL_FLAGS,
    Check,
    GateReading,
    Removal,
)

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
    pgs = pgs_brief(client)
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


# A PG in only these states is being moved (remapped: the balancer's upmap, a weight change) with every copy
# still in its acting set: misplaced objects, not degraded ones. backfill_toofull, undersized, degraded and
# recovering are not in it: those lack a copy, or cannot finish.
MOVING = frozenset({"active", "clean", "remapped", "backfilling", "backfill_wait"}) | CLEAN_EXTRAS


def pg_is_moving(state: str) -> bool:
    parts = set(state.split("+"))
    return "active" in parts and bool({"remapped", "backfilling", "backfill_wait"} & parts) and parts <= MOVING


def pg_is_recovering(state: str) -> bool:
    """Active, a full acting set (not undersized), one copy being brought up to date: what a balancer's upmap
    or an OSD's return does for a few seconds (seen: 8-16 s of active+recovering+degraded on a sandbox)."""
    parts = set(state.split("+"))
    return "active" in parts and bool({"recovering", "recovery_wait"} & parts) and "undersized" not in parts \
        and parts <= MOVING | {"recovering", "recovery_wait", "degraded"}


def unclean_summary(pgmap: dict[str, Any]) -> str:
    """'3 peering, 2 active+recovering+degraded' from a status pgmap; '' when every PG is clean."""
    bad = [f"{_i(x.get('count'))} {as_str(x.get('state_name'))}" for x in dicts(pgmap.get("pgs_by_state"))
           if not pg_is_clean(as_str(x.get("state_name")))]
    if _i(pgmap.get("degraded_objects")) or _i(pgmap.get("misplaced_objects")):
        bad.append(f"{_i(pgmap.get('degraded_objects'))} objects degraded, {_i(pgmap.get('misplaced_objects'))} "
                   "misplaced")
    return ", ".join(bad)


def transient(e: CephError) -> bool:
    """Errors that say "not now" rather than "no": no active mgr, try again."""
    return isinstance(e, CephMgrDown) or e.errno == errno.EAGAIN


def pgs_brief(client: Any) -> list[dict[str, Any]]:
    return pg_stats_list(client.mgr("pg dump", dumpcontents=["pgs_brief"]))


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

    # The PG table first: ok-to-stop's answer is read against it.
    pgs = pg_stats_list(client.mgr("pg dump", dumpcontents=["pgs_brief"]))
    stale = stale_pgs(client, pgs) if stats_check else []
    up = [i for i in osds if by_id.get(i, {}).get("up")]
    if up:
        try:
            client.mgr("osd ok-to-stop", ids=[str(i) for i in up])
            checks.append(Check("ok-to-stop", "ok", "stopping them now would leave every PG available"))
        except CephError as e:
            if isinstance(e, CephTimeout):
                raise
            # For seconds after any osdmap change Ceph answers "not ok" because the PG picture is in flux:
            # PGs peering (`1 PGs are or would become offline`: a CI run's replacement blocked for good on
            # it), or PGs not reported yet, such as a new pool's (`16 pgs have unknown state; cannot draw
            # any conclusions`). That is a wait, asked again on the next tick, and a blocker only after
            # SETTLE_TIMEOUT (the engine's rule for every wait).
            unsettled = sorted({str(pg.get("pgid")) for pg in pgs if _settling(as_str(pg.get("state")))}
                               | set(stale))
            why = f"Ceph says not ok to stop ({e.message.strip()})"
            if unsettled:
                checks.append(Check("ok-to-stop", "wait", f"{why} while {len(unsettled)} PG(s) are peering or "
                                    "have not reported since the last osdmap change "
                                    f"({', '.join(unsettled[:5])}{' …' if len(unsettled) > 5 else ''}); asking "
                                    "again once they have settled", override="ok-to-stop"))
            else:
                checks.append(Check("ok-to-stop", "block", f"{why}: PGs would become unavailable if these OSDs "
                                    "went down now", override="ok-to-stop"))
    else:
        checks.append(Check("ok-to-stop", "ok", "the OSDs are down already; nothing to ask"))

    targets = set(osds)
    bad_here: list[str] = []
    bad_elsewhere: list[str] = []
    settling: list[str] = []
    degraded = moving = 0
    recovering: list[str] = []
    for pg in pgs:
        state = as_str(pg.get("state")).split("+")
        if any(b in state for b in BAD_PG_STATES):
            # Down with the OSDs being removed (a dead disk) is what this workflow deals with;
            # anything else inactive means the cluster is already in trouble.
            # A PG on no OSD at all is not "down with these": a new pool's PGs are `unknown` with acting []
            # until they report (about 2 s on a sandbox), so that is a wait, which the engine turns into a
            # blocker if it lasts (a pool whose rule finds no OSD).
            acting = osd_set(pg.get("acting"))
            if acting and acting <= targets:
                bad_here.append(str(pg.get("pgid")))
            elif not acting or _settling(as_str(pg.get("state"))):
                settling.append(str(pg.get("pgid")))
            else:
                bad_elsewhere.append(str(pg.get("pgid")))
        elif pg_is_moving(as_str(pg.get("state"))):
            moving += 1
        elif pg_is_recovering(as_str(pg.get("state"))):
            recovering.append(str(pg.get("pgid")))
        elif not pg_is_clean(as_str(pg.get("state"))):
            degraded += 1
    if stale and not bad_elsewhere:
        checks.append(Check("pgs", "wait", f"{len(stale)} PG(s) have not reported since the last osdmap change "
                            f"({', '.join(stale[:5])}{' …' if len(stale) > 5 else ''}); checking again once their "
                            "stats are current"))
    elif settling and not bad_elsewhere:
        checks.append(Check("pgs", "wait", f"{len(settling)} PG(s) are peering or not yet created right now "
                            f"({', '.join(settling[:5])}{' …' if len(settling) > 5 else ''}); checking again "
                            "once they have settled"))
    elif recovering and not bad_elsewhere and not degraded and not set(osds) - set(up):
        # A wait, as peering is: the engine makes it a `pgs` blocker if it lasts (a recovery that stalls).
        checks.append(Check("pgs", "wait", f"{len(recovering)} PG(s) are bringing one copy up to date right now, "
                            "every OSD of theirs up, as after a remap or an OSD's return "
                            f"({', '.join(recovering[:5])}{' …' if len(recovering) > 5 else ''}); checking again "
                            "once they have settled", lasting="not clean"))  # recovering PGs are active
    elif bad_elsewhere:
        checks.append(Check("pgs", "block", f"{len(bad_elsewhere)} PG(s) not active on other OSDs "
                            f"({', '.join(bad_elsewhere[:5])}{' …' if len(bad_elsewhere) > 5 else ''}); "
                            "removing an OSD now could make it worse", override="pgs"))
    elif (degraded or moving or recovering) and set(osds) - set(up):
        checks.append(Check("pgs", "warn", f"{degraded + moving + len(recovering)} PG(s) are degraded or moving, "
                            "as expected with "
                            f"{', '.join(f'osd.{i}' for i in osds if i not in up)} (being removed) down: the drain "
                            "recovers them from their other copies"))
    elif degraded or recovering:
        checks.append(Check("pgs", "block", f"{degraded + len(recovering)} PG(s) are already degraded"
                            f"{f' (and {moving} moving)' if moving else ''}; their redundancy is reduced, and a "
                            "drain now would reduce it further", override="pgs"))
    elif moving:
        # Seen at random moments on a default cluster: the mgr's balancer (upmap mode, on by default) remaps a
        # few PGs. Nothing lacks a copy, and the stop waits for every PG active+clean anyway.
        checks.append(Check("pgs", "warn", f"{moving} PG(s) are being moved with every copy in place (remapped: "
                            "the balancer, or a weight change); the drain adds its own moves, and nothing is "
                            "stopped before every PG is active+clean again"))
    elif bad_here:
        checks.append(Check("pgs", "warn", f"{len(bad_here)} PG(s) are down with these OSDs "
                            f"({', '.join(bad_here[:5])}{' …' if len(bad_here) > 5 else ''}): if they have no other "
                            "copy, destroying would lose them; the wizard waits for safe-to-destroy and says so"))
    else:
        checks.append(Check("pgs", "ok", "all PGs active+clean"))
    lift_overridden(checks, overrides)
    return checks


def lift_overridden(checks: list[Check], overrides: list[str] | tuple[str, ...]) -> None:
    """Blockers whose override was given become level 'override' (risk accepted, said in their detail). So does
    a wait that names one (Ceph's "not ok to stop" while PGs settle): the operator accepted that answer in
    advance, as they would once it turns into a blocker."""
    for c in checks:
        if c.level in ("block", "wait") and c.override and c.override in overrides:
            c.level = "override"
            c.detail = f"{c.detail} — OVERRIDDEN: {OVERRIDES[c.override]}"


def safe_to_destroy(client: Any, osds: list[int]) -> tuple[bool, str]:
    try:
        out = as_dict(client.mgr("osd safe-to-destroy", ids=[str(i) for i in osds]))
    except CephError as e:
        if isinstance(e, CephTimeout) or transient(e):
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
    for pg in pg_stats_list(client.mgr("pg dump", dumpcontents=["pgs_brief"])):
        state = as_str(pg.get("state")).split("+")
        # Pacific shows a PG whose only OSD died as 'unknown' with an empty acting set: no other OSD has it.
        if any(b in state for b in ("stale", "down", "incomplete", "unknown")) \
                and osd_set(pg.get("acting")) <= set(dead):
            out.append(str(pg.get("pgid")))
    return out


def osd_set(v: Any) -> set[int]:
    """An acting/up set as OSD ids; entries of another type (a damaged answer) are ignored."""
    return {i for i in as_list(v) if type(i) is int}


def _settling(state: str) -> bool:
    """Inactive only in the way PGs are for seconds after an OSD comes or goes (peering, activating, stale)."""
    parts = state.split("+")
    bad = [b for b in parts if b in BAD_PG_STATES]
    return bool(bad) and all(b in SETTLING_PG_STATES for b in bad)
