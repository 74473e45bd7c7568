"""Cluster-wide and group (per OSD/host) flags, and what each dangerous one does."""
from __future__ import annotations

from collections.abc import Sequence

from cephtui.ceph.ops.core import Operation
from cephtui.ceph.validate import check_name, cli_line

CLUSTER_FLAGS = ("pause", "noup", "nodown", "noout", "noin", "nobackfill", "norebalance", "norecover", "noscrub",
                 "nodeep-scrub", "notieragent", "nosnaptrim")
GROUP_FLAGS = ("noup", "nodown", "noin", "noout")
# What setting each of these does to the cluster: they move no data, but stop client IO, hide failures or
# stop recovery. Setting one needs its name typed.
DANGEROUS_FLAGS: dict[str, str] = {
    "pause": "stops ALL client reads and writes (sets pauserd and pausewr): every VM, mount and gateway "
             "using this cluster hangs until it is unset. No data moves",
    "noup": "OSDs that start or restart are not marked up: a restarted OSD stays out of service and its PGs "
            "stay degraded until this is unset",
    "nodown": "failed OSDs are not marked down: clients keep waiting on dead OSDs (IO to their PGs blocks "
              "instead of failing over) and failure detection is off",
    "noin": "OSDs that boot are not marked in: a new or returning OSD gets no data until marked in by hand",
    "norecover": "recovery stops: degraded objects keep fewer copies than the pool's size, so another "
                 "failure meanwhile can lose data",
}
FLAG_UNSET_EFFECT: dict[str, str] = {
    "pause": "client reads and writes resume",
    "noup": "OSDs that are running mark themselves up again",
    "nodown": "the mons again mark failed OSDs down (any OSD that died meanwhile goes down now)",
    "noin": "booting OSDs are marked in again (mon_osd_auto_mark_in rules apply)",
    "norecover": "recovery of degraded objects resumes",
}


def flag_set(flag: str, on: bool) -> Operation:
    if on and flag not in CLUSTER_FLAGS:
        raise ValueError(f"unknown flag '{flag}' (known: {', '.join(CLUSTER_FLAGS)})")
    # Unsetting a flag the osdmap shows is always offered: the mon says itself if it does not know it.
    check_name(flag, "flag")
    verb = "set" if on else "unset"
    effect = DANGEROUS_FLAGS.get(flag, "") if on else FLAG_UNSET_EFFECT.get(flag, "")
    danger = on and flag in DANGEROUS_FLAGS
    return Operation(title=f"{'Set' if on else 'Unset'} the cluster flag {flag}", prefix=f"osd {verb}",
                     args=(("key", flag),), cli=cli_line("osd", verb, flag), effect=effect,
                     confirm_text=flag if danger else None,
                     confirm_why=f"{flag} stops client IO, hides failures or stops recovery (see Impact)."
                     if danger else "")


def group_flag_set(flag: str, who: Sequence[str], on: bool) -> Operation:
    """Flags scoped to CRUSH nodes, device classes or OSDs (`osd set-group noout HOST`)."""
    if flag not in GROUP_FLAGS:
        raise ValueError(f"only {', '.join(GROUP_FLAGS)} can be scoped to a host, class or OSD")
    names = [check_name(w, "host, class or OSD") for w in who]
    if not names:
        raise ValueError("no host, class or OSD chosen")
    verb = "set-group" if on else "unset-group"
    return Operation(title=f"{'Set' if on else 'Unset'} {flag} on {', '.join(names)}", prefix=f"osd {verb}",
                     args=(("flags", flag), ("who", names)), cli=cli_line("osd", verb, flag, *names))
