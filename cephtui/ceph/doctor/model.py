"""What the Doctor knows about a health check (Explanation, from the catalog) and what it found on this
cluster (Finding: the raised check, the entities it names, cluster-specific context, the fixes offered)."""
from __future__ import annotations

from dataclasses import dataclass

from cephtui.ceph.snapshot.models import HealthCheck, HealthMute


@dataclass(frozen=True)
class Explanation:
    """One health check code in our own words. Data only: no cluster state here (diagnose adds that)."""
    code: str  # "OSD_DOWN"; a family ends in "*": "BLUESTORE_*", "OSD_*_DOWN"
    title: str  # short: "OSDs are down"
    meaning: str  # what Ceph is saying, one or two sentences
    why: str  # why it matters: what breaks, or what breaks next
    causes: tuple[str, ...]  # the usual causes, most likely first
    actions: tuple[str, ...]  # what to do, in order; commands in `backticks`
    options: tuple[str, ...] = ()  # config options that tune or silence it (names only; values via `config help`)
    fix: str = ""  # a built-in fix cephtui offers for it (doctor.fixes.FIXES key); "" = advice only
    raised_by: str = ""  # "mon", "mgr", "mgr module NAME", "osd": whose config tunes it
    releases: str = ""  # where it differs by release ("Reef 18.2.1+ also for empty pools"); "" = all


@dataclass(frozen=True)
class Affected:
    """The entities a check's detail (or summary) names. `more`: how many the detail list left out."""
    osds: tuple[int, ...] = ()
    hosts: tuple[str, ...] = ()
    pools: tuple[str, ...] = ()
    pgs: tuple[str, ...] = ()
    daemons: tuple[str, ...] = ()  # "mon.a", "mgr.x", "osd.3", crash entities
    other: tuple[str, ...] = ()  # flags, modules, crush buckets, versions: whatever the code names
    more: int = 0
    unparsed: tuple[str, ...] = ()  # detail lines no pattern knew: shown verbatim


@dataclass(frozen=True)
class FixOffer:
    """A fix the `f` key offers for a finding: which fix, for which targets, and the command it sends.
    The operation itself is built by doctor.fixes when the operator has given what it asks for."""
    kind: str  # doctor.fixes.FIXES key
    label: str  # "Enable an application on pool 'scratch'"
    cli: str  # the command, <placeholders> for what the form asks: "ceph osd pool application enable p <app>"
    targets: tuple[str, ...] = ()  # pools / pgs / flags / codes the fix acts on


@dataclass(frozen=True)
class Precheck:
    """What a fix's own check found on the cluster before the confirmation (doctor.fixes `precheck`)."""
    lines: tuple[str, ...]  # shown with the confirmation, or as the reason the fix does not go
    blocked: bool = False  # running the fix now would break something the lines name


@dataclass(frozen=True)
class Finding:
    check: HealthCheck
    explanation: Explanation | None  # None: a code cephtui has no text for (shown verbatim, said so)
    affected: Affected = Affected()
    context: tuple[str, ...] = ()  # this cluster's facts: "osd.2 is on host node1 (2 of 3 OSDs there are down)"
    fixes: tuple[FixOffer, ...] = ()
    mute: HealthMute | None = None

    @property
    def code(self) -> str:
        return self.check.code
