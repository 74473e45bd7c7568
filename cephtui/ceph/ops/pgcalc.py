"""The classic Ceph PG calculator (old ceph.com/pgcalc) and the monitor's pg_num limits.

The published rule ("Logic behind Suggested PG Count", doc/rados/operations/pgcalc):

    ( Target PGs per OSD ) x ( OSD # ) x ( %Data ) / ( Size )

1. If the value of the above calculation is less than the value of ( OSD# ) / ( Size ),
   then the value is updated to the value of ( OSD# ) / ( Size ).
2. The output value is then rounded to the nearest power of 2.
3. If the nearest power of 2 is more than 25% below the original value, the next higher
   power of 2 is used.

The page's own code (nearestPow2) rounds in the log domain, 2**round(log2(x)), and then
doubles when that power is below 0.75 * x. We do the same with exact fractions so the 25%
edge does not depend on float rounding. Target PGs per OSD: 100 if the cluster will not
grow, 200 if it may double, 300 if it may triple. For EC pools Size is k+m.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

DEFAULT_TARGET_PER_OSD = 100
MON_MAX_POOL_PG_NUM = 65536  # mon_max_pool_pg_num default
MON_MAX_PG_PER_OSD = 250  # mon_max_pg_per_osd default
MIN_OSDS_ASSUMED = 3  # OSDMonitor::check_pg_num: "assume min cluster size 3"
BELOW_THRESHOLD = Fraction(1, 4)  # pgcalc.js pow2belowThreshold

_INT_RE = re.compile(r"^\+?[0-9]+$")


@dataclass(frozen=True)
class PGSuggestion:
    pg_num: int
    raw: float  # the value before rounding (after the OSD#/Size floor)
    steps: tuple[str, ...]  # the working, one line each, for the operator


def suggest(osd_count: int, size: int, data_share: float = 1.0,
            target_per_osd: int = DEFAULT_TARGET_PER_OSD) -> PGSuggestion:
    """Suggest pg_num for one pool. `data_share` is the pool's fraction of the data on these OSDs (0..1]."""
    _check_args(osd_count, size, data_share, target_per_osd)
    share = Fraction(str(data_share))  # the decimal the operator meant, not its binary approximation
    value = Fraction(target_per_osd) * osd_count * share / size
    steps = [f"{target_per_osd} PGs per OSD × {_plural(osd_count, 'OSD')} × {_pct(share)} of the data "
             f"÷ size {size} = {_num(value)}"]
    floor = Fraction(osd_count, size)
    if value < floor:
        steps.append(f"below OSDs ÷ size = {osd_count} ÷ {size} = {_num(floor)}, so use {_num(floor)} "
                     "(at least one PG copy on every OSD)")
        value = floor
    pg_num, rounding = _round_pow2(value)
    steps += rounding
    if pg_num > MON_MAX_POOL_PG_NUM:
        steps.append(f"note: above mon_max_pool_pg_num {MON_MAX_POOL_PG_NUM}; the monitor refuses this")
    return PGSuggestion(pg_num, float(value), tuple(steps))


def _check_args(osd_count: int, size: int, data_share: float, target_per_osd: int) -> None:
    for name, v in (("OSD count", osd_count), ("size", size), ("target PGs per OSD", target_per_osd)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{name} must be a whole number (got {v!r})")
        if v < 1:
            raise ValueError(f"{name} must be at least 1 (got {v})")
    if isinstance(data_share, bool) or not isinstance(data_share, (int, float)):
        raise ValueError(f"data share must be a number between 0 and 1 (got {data_share!r})")
    if not 0 < data_share <= 1:
        raise ValueError(f"data share must be more than 0 and at most 1, i.e. 100% (got {data_share:g})")


def _round_pow2(value: Fraction) -> tuple[int, list[str]]:
    """Rule steps 2 and 3, with the working."""
    if value < 1:  # only with a tiny share on few OSDs; a pool needs at least one PG
        return 1, [f"at least 1 PG: {_num(value)} rounds up to 1"]
    lower = 1 << (value.numerator // value.denominator).bit_length() - 1  # largest power of 2 <= value
    if value == lower:
        return lower, [f"{lower} is already a power of two"]
    # Nearest in the log domain, as the page's 2**round(log2(x)): lower when x < lower * sqrt(2).
    nearest = lower if value * value < 2 * lower * lower else lower * 2
    if nearest < value * (1 - BELOW_THRESHOLD):
        return nearest * 2, [f"nearest power of two: {nearest * 2} ({nearest} is more than 25% below {_num(value)})"]
    return nearest, [f"nearest power of two: {nearest}"]


def _num(v: Fraction) -> str:
    return f"{float(v):.1f}"


def _pct(share: Fraction) -> str:
    return f"{float(share * 100):g}%"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def check_pg_num(text: str | int, max_pg_num: int = MON_MAX_POOL_PG_NUM) -> tuple[int, str | None]:
    """Parse a pg_num the operator typed: (value, warning or None). ValueError when the mon would refuse it.

    0 is refused here although `osd pool create NAME 0` is accepted by the mon: there it means
    "osd_pool_default_pg_num", which a form should say explicitly rather than type as 0.
    """
    if isinstance(text, bool):
        raise ValueError(f"pg_num must be a whole number (got {text!r})")
    raw = str(text).strip()
    if not raw:
        raise ValueError("pg_num is empty")
    if not _INT_RE.match(raw):
        raise ValueError(f"pg_num must be a positive whole number (got '{raw}')")
    if len(raw) > 18:  # int() refuses more than 4,300 digits with a message that does not say pg_num
        raise ValueError(f"pg_num must be at most {max_pg_num} (got a {len(raw)}-digit number)")
    value = int(raw)
    if not 0 < value <= max_pg_num:
        # the mon's own wording (OSDMonitor::prepare_new_pool / "osd pool set")
        raise ValueError(f"'pg_num' must be greater than 0 and less than or equal to {max_pg_num} "
                         "(you may adjust 'mon max pool pg num' for higher values)")
    warning = None
    if not is_power_of_two(value):
        lo = 1 << value.bit_length() - 1
        warning = (f"pg_num {value} is not a power of two: PGs will differ in size and Ceph raises "
                   f"POOL_PG_NUM_NOT_POWER_OF_TWO (consider {lo} or {lo * 2})")
    return value, warning


@dataclass(frozen=True)
class PGBudget:
    """The mon's projection for a new pool (OSDMonitor::check_pg_num)."""
    projected: int  # PG copies on these OSDs after the change
    max_pgs: int  # mon_max_pg_per_osd * max(OSDs, 3)
    num_osds: int
    mon_max_pg_per_osd: int
    pg_num: int
    size: int

    @property
    def ok(self) -> bool:
        return self.projected <= self.max_pgs

    @property
    def per_osd(self) -> float:
        return self.projected / self.num_osds

    @property
    def refusal(self) -> str | None:
        """The mon's ERANGE text when it would refuse, else None."""
        if self.ok:
            return None
        return (f"pg_num {self.pg_num} size {self.size} would mean {self.projected} total pgs, which exceeds "
                f"max {self.max_pgs} (mon_max_pg_per_osd {self.mon_max_pg_per_osd} * num_in_osds {self.num_osds})")


def pg_budget(pg_num: int, size: int, existing: Iterable[tuple[int, int]], osd_count: int,
              mon_max_pg_per_osd: int = MON_MAX_PG_PER_OSD) -> PGBudget:
    """Project PG copies per OSD the way the mon does before it creates a pool.

    `existing`: (pg_num_target, size) of every pool whose PGs land on these OSDs (for a pg_num
    change, every pool except the one being changed). `osd_count`: in OSDs under the rule's
    root(s); the mon assumes at least 3. Its exact figure counts acting PGs per OSD, which equals
    sum(pg_num * size) once PGs are mapped; while a pool is undersized it counts fewer.
    """
    if pg_num < 1 or size < 1 or osd_count < 0 or mon_max_pg_per_osd < 1:
        raise ValueError("pg_num, size and mon_max_pg_per_osd must be positive and OSD count not negative")
    projected = pg_num * size + sum(p * s for p, s in existing)
    num_osds = max(osd_count, MIN_OSDS_ASSUMED)
    return PGBudget(projected, mon_max_pg_per_osd * num_osds, num_osds, mon_max_pg_per_osd, pg_num, size)


def warn_pg_per_osd(pg_num: int, size: int, existing: Iterable[tuple[int, int]], osd_count: int,
                    mon_max_pg_per_osd: int = MON_MAX_PG_PER_OSD) -> str | None:
    """The mon's refusal text if creating this pool would exceed mon_max_pg_per_osd, else None."""
    return pg_budget(pg_num, size, existing, osd_count, mon_max_pg_per_osd).refusal


# ------------------------------------------------------------------ the existing pools' shares
@dataclass(frozen=True)
class PoolShare:
    name: str
    used: int  # raw bytes used now (`df detail` bytes_used: every copy / chunk)
    target_ratio: float = 0.0  # target_size_ratio, when the admin declared one


def shares(pools: Iterable[PoolShare]) -> list[tuple[str, float]]:
    """Each pool's share (0..1) of the raw space the pools use now, largest first."""
    pools = list(pools)
    total = sum(max(p.used, 0) for p in pools)
    if total <= 0:
        return [(p.name, 0.0) for p in pools]
    return sorted(((p.name, max(p.used, 0) / total) for p in pools), key=lambda x: -x[1])


# Pools Ceph makes for itself: small by design, they hold no user data and claim no share.
INTERNAL_POOLS = (".mgr", "device_health_metrics")


def default_share(existing: Iterable[str]) -> int:
    """The share (%) to start the calculator at: an even split with the existing data pools.

    The old default, 100 %, sized every new pool as if it would hold everything (128 PGs on 4 OSDs),
    and the autoscaler then merged it back down: an even split is the calculator's honest guess
    until the operator types their own.
    """
    n = sum(1 for name in existing if name not in INTERNAL_POOLS)
    return max(1, round(100 / (n + 1)))


# ------------------------------------------------------------------ what the autoscaler will do
AUTOSCALE_PG_NUM_MIN = 32  # pg_autoscaler PG_NUM_MIN: its floor unless the pool sets pg_num_min
AUTOSCALE_THRESHOLD = 3.0  # it moves pg_num only when its target is more than 3x away (Pacific: fixed)


def autoscaler_pow2(n: float) -> int:
    """pg_autoscaler's nearest_power_of_two, ported literally (its bounds come from int(n), ties go up)."""
    v = int(n) - 1
    for shift in (1, 2, 4, 8, 16):
        v |= v >> shift
    v += 1
    x = v >> 1
    return x if (v - n) > (n - x) else v


@dataclass(frozen=True)
class AutoscaleOutlook:
    target_now: int  # the autoscaler's pg_num_final for the new, empty pool
    pg_num_after: int  # what pg_num becomes within minutes (== pg_num when it is left alone)
    target_full: int  # its target once the pool holds its expected share of the raw capacity
    lines: tuple[str, ...]


def _moves(target: int, pg_num: int, threshold: float) -> bool:
    return target > pg_num * threshold or target < pg_num / threshold


def autoscale_outlook(pg_num: int, size: int, osd_count: int, share: float,
                      target_per_osd: int = DEFAULT_TARGET_PER_OSD, pg_num_min: int = AUTOSCALE_PG_NUM_MIN,
                      bias: float = 1.0, threshold: float = AUTOSCALE_THRESHOLD) -> AutoscaleOutlook:
    """What the pg autoscaler (mode on, pool not `bulk`) will do to a new pool created with `pg_num`.

    From pg_autoscaler/module.py: an empty pool's capacity ratio is 0, so its target is
    max(pg_num_min, 0) = pg_num_min; pg_num moves only when the target is more than `threshold`
    times away. Later, at a capacity ratio r, the target is about nearest_pow2(r x
    mon_target_pg_per_osd x OSDs / size x bias) (less when other pools already use the root's
    PG budget). What cannot be known before the pool exists: how fast data arrives, and the other
    pools' growth; the lines say so.
    """
    _check_args(osd_count, size, share, target_per_osd)
    if pg_num < 1:
        raise ValueError("pg_num must be at least 1")
    now = max(pg_num_min, autoscaler_pow2(0))
    after = now if _moves(now, pg_num, threshold) else pg_num
    full_raw = share * target_per_osd * osd_count / size * bias
    full = max(pg_num_min, autoscaler_pow2(full_raw))
    lines = [f"Autoscaler: a new pool is empty, so its target is {now} (pg_num_min {pg_num_min})."]
    if after > pg_num:
        lines.append(f"pg_num {pg_num} is more than {threshold:g}x below that: within minutes it splits the pool "
                     f"to {after} PGs.")
    elif after < pg_num:
        lines.append(f"pg_num {pg_num} is more than {threshold:g}x above that: within minutes it merges the pool "
                     f"down to {after} PGs, pair by pair (pointless peering; data moves once there is data). "
                     f"Choose at most {1 << int(now * threshold).bit_length() - 1}, autoscale warn or off, or set "
                     f"pg_num_min {pg_num} afterwards.")
    else:
        lines.append(f"pg_num {pg_num} is within {threshold:g}x of that: it leaves it alone.")
    pct = _pct(Fraction(str(share)))
    later = (f"Later, at {pct} of the raw capacity, its target is about {full} ({target_per_osd} PGs per OSD × "
             f"{_plural(osd_count, 'OSD')} × {pct} ÷ size {size}" + (f" × bias {bias:g}" if bias != 1 else "") + ")")
    if _moves(full, after, threshold):
        later += f": then it changes pg_num {after} → {full}."
    else:
        later += f": within {threshold:g}x of {after}, so it would not change pg_num."
    lines.append(later)
    lines.append("An estimate: how fast data arrives and how the other pools grow (they share the PG budget) "
                 "cannot be known yet.")
    return AutoscaleOutlook(now, after, full, tuple(lines))
