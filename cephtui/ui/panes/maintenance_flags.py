"""The Maintenance tab's flags table: one row per cluster flag, then every scoped flag set."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cephtui.ceph import ops
from cephtui.ceph.snapshot.models import FlagState
from cephtui.ceph.workflows import maintenance as mt


@dataclass(frozen=True)
class FlagRow:
    flag: str
    scope: str  # "" cluster-wide
    is_set: bool
    since: float | None
    owner: str  # "maintenance host vm" / "" (someone else)
    partial: str = ""  # pause only: "pauserd" or "pausewr" when just one of the two is set

    @property
    def key(self) -> tuple[str, str]:
        return (self.flag, self.scope)


def flag_rows(flags: Sequence[FlagState], maintenances: Sequence[mt.Maintenance]) -> list[FlagRow]:
    """Every cluster flag, harmless ones first (mt.FLAG_ORDER), then every scoped or unlisted flag set.

    pauserd + pausewr show as one `pause` row (what `osd set pause` sets); a lone one shows on the
    pause row as partial, with what it means.
    """
    flags = mt.fold_pause(flags)
    now_set = {(f.flag, f.scope): f for f in flags}
    owners: dict[tuple[str, str], str] = {}
    for m in maintenances:
        for k in m.owned:
            owners.setdefault(k, f"maintenance {m.target.label}")
    rows = []
    order = [f for f in mt.FLAG_ORDER if f in ops.CLUSTER_FLAGS] + [f for f in ops.CLUSTER_FLAGS
                                                                    if f not in mt.FLAG_ORDER]
    for flag in order:
        f = now_set.get((flag, ""))
        partial = next((p for p in mt.PAUSE_PARTS if (p, "") in now_set), "") if flag == "pause" and not f else ""
        since = f.seen_since if f else (now_set[(partial, "")].seen_since if partial else None)
        rows.append(FlagRow(flag, "", f is not None, since, owners.get((flag, ""), ""), partial))
    for f in flags:
        if (f.scope or f.flag not in ops.CLUSTER_FLAGS) and not (not f.scope and f.flag in mt.PAUSE_PARTS):
            rows.append(FlagRow(f.flag, f.scope, True, f.seen_since, owners.get((f.flag, f.scope), "")))
    return rows
