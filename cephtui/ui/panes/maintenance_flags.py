"""The Maintenance tab's flags table: one row per cluster flag, then every scoped flag set; each set flag with
who set it and when, from durable sources (maintenance records, audit logs, the osdmap history: see
workflows/flag_origin), never from this process's memory."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cephtui.ceph import ops
from cephtui.ceph.snapshot.models import FlagState
from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows.flag_origin import FlagOrigin


@dataclass(frozen=True)
class FlagRow:
    flag: str
    scope: str  # "" cluster-wide
    is_set: bool
    since: float | None  # when it was set ("" shown when not known yet); None when unset
    owner: str  # "maintenance host vm, alice@mon1" / who set it / "" (not known)
    partial: str = ""  # pause only: "pauserd" or "pausewr" when just one of the two is set
    origin: FlagOrigin | None = None  # who and when, as found (None: still being looked up)
    maintenance: str = ""  # the id of the maintenance that owns it (exit unsets it)

    @property
    def key(self) -> tuple[str, str]:
        return (self.flag, self.scope)

    def when_text(self) -> str:
        if self.maintenance and self.since is not None:
            return mt.clock_time(self.since)
        return self.origin.when_text() if self.origin is not None else ("…" if self.is_set or self.partial else "")


def flag_rows(flags: Sequence[FlagState], maintenances: Sequence[mt.Maintenance],
              origins: Mapping[mt.FlagKey, FlagOrigin] | None = None) -> list[FlagRow]:
    """Every cluster flag, harmless ones first (mt.FLAG_ORDER), then every scoped or unlisted flag set.

    pauserd + pausewr show as one `pause` row (what `osd set pause` sets); a lone one shows on the
    pause row as partial, with what it means. A flag a maintenance owns names that maintenance, who started
    it and when; any other set flag its setter and time as `origins` found them.
    """
    origins = origins or {}
    flags = mt.fold_pause(flags)
    now_set = {(f.flag, f.scope): f for f in flags}
    owners: dict[tuple[str, str], mt.Maintenance] = {}
    for m in maintenances:
        for k in m.owned:
            owners.setdefault(k, m)

    def row(flag: str, scope: str, is_set: bool, partial: str = "") -> FlagRow:
        key = (flag, scope)
        m = owners.get(key)
        origin = origins.get((partial, "") if partial else key)
        if m is not None:
            return FlagRow(flag, scope, is_set, m.started, f"maintenance {m.target.label}, {m.starter}", partial,
                           origin, m.id)
        if not (is_set or partial):
            return FlagRow(flag, scope, False, None, "")
        return FlagRow(flag, scope, is_set, origin.since if origin else None, origin.who if origin else "", partial,
                       origin)

    rows = []
    order = [f for f in mt.FLAG_ORDER if f in ops.CLUSTER_FLAGS] + [f for f in ops.CLUSTER_FLAGS
                                                                    if f not in mt.FLAG_ORDER]
    for flag in order:
        f = now_set.get((flag, ""))
        partial = next((p for p in mt.PAUSE_PARTS if (p, "") in now_set), "") if flag == "pause" and not f else ""
        rows.append(row(flag, "", f is not None, partial))
    for f in flags:
        if (f.scope or f.flag not in ops.CLUSTER_FLAGS) and not (not f.scope and f.flag in mt.PAUSE_PARTS):
            rows.append(row(f.flag, f.scope, True))
    return rows
