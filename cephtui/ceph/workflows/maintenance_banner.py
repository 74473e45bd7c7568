"""The status bar's maintenance banner: what is under maintenance and which flags, since when, fitted to
the room."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from cephtui.ceph.snapshot.models import FlagState
from cephtui.ceph.workflows.flag_origin import FlagOrigin
from cephtui.ceph.workflows.maintenance import (
    FlagKey,
    Maintenance,
    clock_time,
    flag_label,
    fold_pause,
)


def since_text(ts: float, now: float | None = None) -> str:
    """HH:MM today, else the date too (a maintenance's start, from its record)."""
    return clock_time(ts, now)


def banner_items(maintenances: Sequence[Maintenance], flags: Sequence[FlagState],
                 origins: Mapping[FlagKey, FlagOrigin] | None = None, now: float | None = None) -> list[str]:
    """One short phrase per active maintenance and per other flag, for the header: each flag with when it was set
    and by whom as `origins` found them (workflows.flag_origin), '…' while they are being looked up."""
    origins = origins or {}
    items: list[str] = []
    flags = fold_pause(flags)
    owned: set[FlagKey] = set()
    for m in maintenances:
        if not m.active:
            continue
        owned |= set(m.owned)
        extra = [flag_label(k) if k[1] else k[0] for k in m.owned if not (k[0] == "noout" and k[1])]
        state = "" if m.state == "active" else f" ({m.state})"
        items.append(f"maintenance: {m.target.label} since {clock_time(m.started, now)}{state}"
                     + (f" +{' +'.join(extra)}" if extra else ""))
    for f in flags:
        if (f.flag, f.scope) in owned:
            continue
        o = origins.get((f.flag, f.scope))
        when = o.when_text(now) if o is not None else "…"
        items.append(f"{f.label} {'set ' + when if when.startswith('before') else 'since ' + when}"
                     + (f" (by {short_who(o.who)})" if o is not None and o.who else
                        " (not by a maintenance)" if maintenances else ""))
    return items


def short_who(who: str) -> str:
    """'alice@mon1' of 'alice@mon1 (cephtui)', 'client.admin' of 'client.admin at 10.0.0.5 (ceph CLI …)'."""
    return who.split(" (")[0].split(" at ")[0]


def banner_short(maintenances: Sequence[Maintenance], flags: Sequence[FlagState]) -> str:
    n_m = sum(m.active for m in maintenances)
    flags = fold_pause(flags)
    owned = {k for m in maintenances if m.active for k in m.owned}
    n_f = sum((f.flag, f.scope) not in owned for f in flags)
    parts = []
    if n_m:
        parts.append(f"{n_m} maintenance" + ("s" if n_m > 1 else ""))
    if n_f:
        parts.append(f"{n_f} flag" + ("s" if n_f > 1 else ""))
    return ", ".join(parts) + " (tab 7)" if parts else ""


def fit_banner(items: Sequence[str], short: str, room: int) -> str:
    """As many whole items as fit in `room` cells, then '+N more', else the short count."""
    full = "⚑ " + " · ".join(items)
    if len(full) <= room:
        return full
    for n in range(len(items) - 1, 0, -1):
        text = "⚑ " + " · ".join(items[:n]) + f" · +{len(items) - n} more (tab 7)"
        if len(text) <= room:
            return text
    return "⚑ " + short
