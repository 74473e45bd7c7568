"""The Doctor's operations: health mutes, config database entries, PG scrubs and repairs.
Each knows its exact `ceph` command, like every other Operation."""
from __future__ import annotations

import re

from cephtui.ceph.ops.core import DESTROYS, MOVES_DATA, SAFE, Operation
from cephtui.ceph.validate import cli_line

CODE_RE = re.compile(r"^[A-Z][A-Z0-9_]{1,63}$")
# `health mute CODE TTL`: the mon takes a number and a unit (s, m, h, d, w), e.g. 30m or 4h.
TTL_RE = re.compile(r"^(\d{1,6})([smhdw])$")
PGID_RE = re.compile(r"^\d{1,10}\.[0-9a-f]{1,8}$")
OPTION_RE = re.compile(r"^[a-z][a-z0-9_]{1,127}$|^mgr/[a-z0-9_]{1,64}/[a-z0-9_]{1,127}$")
WHO_RE = re.compile(r"^(global|mon|mgr|osd|mds|client)(\.[\w.-]{1,64})?(/(host|class|rack|root|datacenter|zone)"
                    r":[\w.-]{1,64})?$")


def _checked(value: str, rx: re.Pattern[str], what: str, empty_ok: bool = False) -> str:
    value = value.strip()
    if not (empty_ok and not value) and not rx.match(value):
        raise ValueError(f"'{value}' is not {what}")
    return value


def check_code(code: str) -> str:
    return _checked(code, CODE_RE, "a health check code (upper case, like OSD_DOWN)")


def check_ttl(ttl: str) -> str:
    return _checked(ttl, TTL_RE, "a duration: a number and a unit, s m h d or w (30m, 4h, 7d)", empty_ok=True)


def check_pgid(pgid: str) -> str:
    return _checked(pgid, PGID_RE, "a PG id (pool.hex, like 2.1f)")


def health_mute(code: str, ttl: str = "", sticky: bool = False) -> Operation:
    """Mute a check: `ttl` ("" = until unmuted); `sticky` keeps the mute when the check clears and returns."""
    code, ttl = check_code(code), check_ttl(ttl)
    args: list[tuple[str, object]] = [("code", code)]
    words = ["health", "mute", code]
    if ttl:
        args.append(("ttl", ttl))
        words.append(ttl)
    if sticky:
        args.append(("sticky", True))
        words.append("--sticky")
    until = f"for {ttl}" if ttl else "until unmuted"
    return Operation(title=f"Mute {code} {until}{' (sticky)' if sticky else ''}", prefix="health mute",
                     args=tuple(args), cli=cli_line(*words),
                     effect=f"{code} stops counting towards HEALTH_WARN/ERR {until}. A non-sticky mute ends "
                            f"by itself when the check clears or gets worse (more items affected).")


def health_unmute(code: str) -> Operation:
    code = check_code(code)
    return Operation(title=f"Unmute {code}", prefix="health unmute", args=(("code", code),),
                     cli=cli_line("health", "unmute", code))


def config_set(who: str, name: str, value: str) -> Operation:
    who, name, value = who.strip(), name.strip(), value.strip()
    if not WHO_RE.match(who):
        raise ValueError(f"'{who}' is not a config section (global, mon, osd, osd.3, mgr …)")
    if not OPTION_RE.match(name):
        raise ValueError(f"'{name}' is not an option name (lower case with underscores)")
    if not value or len(value) > 4096 or "\n" in value:
        raise ValueError("the value is empty, too long or has a line break")
    return Operation(title=f"Set {name} = {value} for {who}", prefix="config set",
                     args=(("who", who), ("name", name), ("value", value)),
                     cli=cli_line("config", "set", who, name, value))


def pg_scrub(pgid: str, deep: bool) -> Operation:
    pgid = check_pgid(pgid)
    verb = "deep-scrub" if deep else "scrub"
    return Operation(title=f"{'Deep-scrub' if deep else 'Scrub'} pg {pgid}", prefix=f"pg {verb}",
                     args=(("pgid", pgid),), cli=cli_line("pg", verb, pgid),
                     effect="reads every replica of the PG's objects (deep: their data too) on its OSDs")


def pg_repair(pgid: str) -> Operation:
    pgid = check_pgid(pgid)
    return Operation(title=f"Repair pg {pgid}", prefix="pg repair", args=(("pgid", pgid),),
                     cli=cli_line("pg", "repair", pgid),
                     effect="the primary rewrites the copies that disagree from the copy it judges good "
                            "(BlueStore checksums decide); look at list-inconsistent-obj first")




CRASH_ID_RE = re.compile(r"^[0-9T:.\-Z_a-f]{10,120}$")


def check_crash_id(crash_id: str) -> str:
    return _checked(crash_id, CRASH_ID_RE, "a crash id (like 2026-11-24T04:05:08.123456Z_<uuid>)")


def crash_archive(crash_id: str) -> Operation:
    crash_id = check_crash_id(crash_id)
    return Operation(title=f"Archive crash report {crash_id}", prefix="crash archive", args=(("id", crash_id),),
                     cli=cli_line("crash", "archive", crash_id),
                     effect="the report stays (crash ls, crash info) but no longer counts as new or in RECENT_CRASH")


def crash_archive_all() -> Operation:
    return Operation(title="Archive every new crash report", prefix="crash archive-all", args=(),
                     cli=cli_line("crash", "archive-all"),
                     effect="every report stays but none counts as new; RECENT_CRASH clears")


def crash_rm(crash_id: str, entity: str) -> Operation:
    crash_id = check_crash_id(crash_id)
    return Operation(title=f"Delete crash report {crash_id} of {entity}", prefix="crash rm", args=(("id", crash_id),),
                     cli=cli_line("crash", "rm", crash_id), impact=DESTROYS, confirm_text=entity,
                     effect="the report and its backtrace are gone for good (archive keeps them)")




def config_rm(who: str, name: str) -> Operation:
    who, name = _checked(who, WHO_RE, "a config section (global, mon, osd, osd.3, osd/class:ssd …)"), name.strip()
    if not OPTION_RE.match(name):
        raise ValueError(f"'{name}' is not an option name (lower case with underscores)")
    return Operation(title=f"Remove {name} for {who} from the config database", prefix="config rm",
                     args=(("who", who), ("name", name)), cli=cli_line("config", "rm", who, name),
                     effect="the daemons fall back to the next source: a broader section, ceph.conf, or the default")




PLAN_RE = re.compile(r"^[\w.-]{1,64}$")


def balancer_active(on: bool) -> Operation:
    verb = "on" if on else "off"
    return Operation(title=f"Turn the balancer {verb}", prefix=f"balancer {verb}", args=(),
                     cli=cli_line("balancer", verb),
                     effect="the mgr's balancer resumes moving PGs towards an even spread, a few at a time" if on
                     else "the balancer stops planning moves; nothing moves back")


def balancer_optimize(plan: str) -> Operation:
    plan = _checked(plan, PLAN_RE, "a plan name (letters, digits, - _ .)")
    return Operation(title=f"Compute the balancer plan {plan} (nothing is applied)", prefix="balancer optimize",
                     args=(("plan", plan),), cli=cli_line("balancer", "optimize", plan),
                     effect="the mgr computes the moves it would make and keeps them as a plan; no PG moves")


def balancer_rm(plan: str) -> Operation:
    plan = _checked(plan, PLAN_RE, "a plan name (letters, digits, - _ .)")
    return Operation(title=f"Forget the balancer plan {plan}", prefix="balancer rm", args=(("plan", plan),),
                     cli=cli_line("balancer", "rm", plan))




def reweight_by_utilization(dry_run: bool, oload: int = 120, max_change: float = 0.05, max_osds: int = 4,
                            weights: tuple[tuple[int, float], ...] | None = None) -> Operation:
    """`osd test-reweight-by-utilization` (changes nothing: what it would do) or the real one. `weights`: the
    override weights the dry run proposed, so the confirmation can preview the PGs they move."""
    if not 100 < oload <= 200:
        raise ValueError("the overload threshold is a percentage of the average: over 100, at most 200")
    if not 0 < max_change <= 1:
        raise ValueError("the largest change per OSD must be over 0 and at most 1")
    if not 1 <= max_osds <= 1000:
        raise ValueError("the number of OSDs to change must be between 1 and 1000")
    prefix = "osd test-reweight-by-utilization" if dry_run else "osd reweight-by-utilization"
    title = "What reweight-by-utilization would do" if dry_run else "Reweight the fullest OSDs by utilization"
    return Operation(title=title, prefix=prefix, args=(("oload", oload), ("max_change", max_change),
                                                       ("max_osds", max_osds)),
                     cli=cli_line(*prefix.split(), str(oload), str(max_change), str(max_osds)),
                     impact=SAFE if dry_run else MOVES_DATA, osd_weights=weights,
                     effect="" if dry_run else "lowers the override weight of the fullest OSDs, so some of their "
                                               "PGs move to emptier ones (backfill traffic)")


def parse_reweight_plan(text: str) -> tuple[tuple[int, float, float], ...]:
    """`osd test-reweight-by-utilization`'s lines "osd.3 weight 1.0000 -> 0.9500": (osd, old, new)."""
    return tuple((int(m.group(1)), float(m.group(2)), float(m.group(3)))
                 for m in re.finditer(r"osd\.(\d+) weight ([\d.]+) -> ([\d.]+)", text))


__all__ = ["balancer_active", "balancer_optimize", "balancer_rm", "check_code", "check_crash_id", "check_pgid",
           "check_ttl", "config_rm", "config_set", "crash_archive", "crash_archive_all", "crash_rm", "health_mute",
           "health_unmute", "parse_reweight_plan", "pg_repair", "pg_scrub", "reweight_by_utilization"]
