"""Where the data goes when OSDs leave: the fill of the OSDs that remain, against the cluster's own ratios.

Pure: `project_removal(osd_df, osd_dump, removing)` takes the JSON of `ceph osd df` and
`ceph osd dump` and answers how full each remaining OSD would be once the data of the
removed ones has moved, and whether that crosses the osdmap's nearfull / backfillfull /
full ratios.

Model: what moves is the removed OSDs' data (`kb_used_data`, which includes omap; their
BlueStore metadata goes with them), spread over the OSDs that stay in proportion to their
effective weight (CRUSH weight x reweight), as CRUSH does on average; only OSDs up and in
take data. A dead OSD's data counts too (`osd df` keeps its last report): its copies are
recreated elsewhere. Real placement is
lumpier (few PGs, failure domains), so the verdict keeps a margin: past nearfull is a
warning, past backfillfull a refusal, because there backfill stops (`backfill_toofull`) and
the drain could never finish; past full, writes stop altogether.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_float, as_int, as_list

DEFAULT_RATIOS = (0.85, 0.90, 0.95)  # nearfull, backfillfull, full: Ceph's defaults


def pct(fraction: float) -> str:
    """3.83% / 85%: enough digits to tell sandbox-sized ratios apart, none wasted on defaults."""
    return f"{fraction * 100:.3g}%"


def _names(ids: Iterable[int], limit: int = 6) -> str:
    ids = list(ids)
    return ", ".join(f"osd.{i}" for i in ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


@dataclass(frozen=True)
class OSDFill:
    osd: int
    kb: int
    kb_used: int
    kb_after: int  # kb_used once the removed OSDs' data has landed here
    weight: float  # effective weight: CRUSH weight x reweight

    @property
    def now(self) -> float:
        return self.kb_used / self.kb if self.kb else 0.0

    @property
    def after(self) -> float:
        return self.kb_after / self.kb if self.kb else 0.0


@dataclass(frozen=True)
class Projection:
    removing: tuple[int, ...]
    nearfull: float
    backfillfull: float
    full: float
    moved_kb: int
    remaining: tuple[OSDFill, ...]  # the OSDs that take the data, fullest afterwards first
    full_now: tuple[int, ...]  # OSDs the osdmap (or their own usage) says are full already
    backfillfull_now: tuple[int, ...]
    pool_full: tuple[str, ...]  # pools flagged full (not for a quota)

    @property
    def fullest(self) -> OSDFill | None:
        return self.remaining[0] if self.remaining else None

    @property
    def ratios_text(self) -> str:
        return f"nearfull {pct(self.nearfull)}, backfillfull {pct(self.backfillfull)}, full {pct(self.full)}"

    def verdict(self) -> tuple[str, str]:
        """(level, detail) for the removal preflight: ok / warn / block."""
        if self.full_now or self.pool_full:
            who = _names(self.full_now) if self.full_now else "its OSDs"
            pools = f" (pools flagged full: {', '.join(self.pool_full)})" if self.pool_full else ""
            return "block", (f"the cluster is full now: {who} past the full ratio {pct(self.full)}{pools}. "
                             f"Writes are blocked, and backfill will not move data onto OSDs past the "
                             f"backfillfull ratio ({pct(self.backfillfull)}), so removing an OSD would only "
                             f"make it worse. Free space or add OSDs first")
        top = self.fullest
        if top is None:
            return "block", "no OSD would remain in to take the data"
        after = (f"after the move the fullest remaining OSD, osd.{top.osd}, would be at about {pct(top.after)} "
                 f"(now {pct(top.now)}; {self.moved_kb * 1024 / 2**30:.2f} GiB to move)")
        if top.after >= self.full:
            return "block", (f"{after}: past the full ratio {pct(self.full)}, where writes stop. Add capacity "
                             f"or free space first")
        if top.after >= self.backfillfull:
            return "block", (f"{after}: past the backfillfull ratio {pct(self.backfillfull)}, where backfill "
                             f"stops (PGs backfill_toofull) and the drain could never finish. Add capacity or "
                             f"free space first")
        if self.backfillfull_now:
            return "warn", (f"{_names(self.backfillfull_now)} already past the backfillfull ratio "
                            f"{pct(self.backfillfull)}: backfill onto them waits; {after}")
        if top.after >= self.nearfull:
            return "warn", (f"{after}: past the nearfull ratio {pct(self.nearfull)}, close to backfillfull "
                            f"{pct(self.backfillfull)}; CRUSH places unevenly, so some OSDs may get there")
        return "ok", f"{after}; ratios: {self.ratios_text}"


def ratios_of(osd_dump: dict[str, Any]) -> tuple[float, float, float]:
    near, back, full = DEFAULT_RATIOS
    return (as_float(osd_dump.get("nearfull_ratio")) or near, as_float(osd_dump.get("backfillfull_ratio")) or back,
            as_float(osd_dump.get("full_ratio")) or full)


def project_removal(osd_df: Any, osd_dump: Any, removing: Iterable[int]) -> Projection:
    removing = tuple(dict.fromkeys(int(i) for i in removing))
    df = osd_df if isinstance(osd_df, dict) else {}
    dump = osd_dump if isinstance(osd_dump, dict) else {}
    nearfull, backfillfull, full = ratios_of(dump)
    states = {as_int(o.get("osd")): {s for s in as_list(o.get("state")) if isinstance(s, str)}
              for o in dump.get("osds") or () if isinstance(o, dict)}
    # Only OSDs up and in take data: a down one's PGs are remapped to the others meanwhile.
    in_map = {as_int(o.get("osd")): bool(o.get("in")) and bool(o.get("up"))
              for o in dump.get("osds") or () if isinstance(o, dict)}
    nodes = [n for n in df.get("nodes") or () if isinstance(n, dict) and as_int(n.get("id", -1)) >= 0]

    def used_data(n: dict[str, Any]) -> int:
        return as_int(n.get("kb_used_data", n.get("kb_used")))

    moved = sum(used_data(n) for n in nodes if as_int(n.get("id")) in removing)
    takers = []
    for n in nodes:
        i = as_int(n.get("id"))
        kb = as_int(n.get("kb"))
        crush = as_float(n.get("crush_weight")) if "crush_weight" in n else kb
        weight = crush * as_float(n.get("reweight", 1.0))
        if i in removing or kb <= 0 or weight <= 0 or not in_map.get(i, True):
            continue
        takers.append((i, kb, as_int(n.get("kb_used")), weight))
    total_weight = sum(t[3] for t in takers)
    remaining = tuple(sorted(
        (OSDFill(i, kb, used, used + round(moved * w / total_weight), w) for i, kb, used, w in takers),
        key=lambda f: (-f.after, f.osd)))

    def past(ratio: float, state: str) -> tuple[int, ...]:
        return tuple(sorted({as_int(n.get("id")) for n in nodes
                             if as_int(n.get("kb")) and as_int(n.get("kb_used")) / as_int(n.get("kb")) >= ratio}
                            | {i for i, s in states.items() if state in s}))

    pool_full = tuple(str(p.get("pool_name")) for p in dump.get("pools") or ()
                      if isinstance(p, dict) and "full" in str(p.get("flags_names", "")).split(","))
    return Projection(removing, nearfull, backfillfull, full, moved, remaining, past(full, "full"),
                      past(backfillfull, "backfillfull"), pool_full)
