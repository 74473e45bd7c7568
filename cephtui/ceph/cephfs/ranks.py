"""Changing a file system's ranks: how many are active (`max_mds`), whether a standby may take a failed rank
(`joinable`), whether spare daemons follow the active ranks (`allow_standby_replay`), and failing one rank over
(`mds fail FS:RANK`). Each operation says, from the map it was built on, which daemons that involves.

Ceph's own rules (src/mds/FSMap.cc, src/mon/FSCommands.cc, MDSMonitor): a new rank is filled from the standbys;
a rank above max_mds stops (it exports its subtrees to the others, then its daemon becomes a standby); a failed
rank is taken by its standby-replay daemon if it has one, else by a standby, and only while the file system is
joinable; with no daemon to take it the rank stays failed and the clients of its subtrees wait.
"""
from __future__ import annotations

from cephtui.ceph.cephfs.model import FileSystem
from cephtui.ceph.ops.core import DESTROYS, SAFE, Operation

MAX_MDS = 256  # MAX_MDS in src/mds/mdstypes.h: the mon refuses more


def _fs_set(fs: str, var: str, val: str, **kw: object) -> Operation:
    return Operation(prefix="fs set", args=(("fs_name", fs), ("var", var), ("val", val)),
                     cli=f"ceph fs set {fs} {var} {val}", **kw)  # type: ignore[arg-type]


def _daemons(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(f"mds.{n}" for n in names) or "none"


def build_max_mds(fs: FileSystem, standbys: tuple[str, ...], value: str) -> Operation:
    text = value.strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_MDS:
        raise ValueError(f"max_mds is a whole number from 1 to {MAX_MDS}")
    n, now = int(text), fs.max_mds
    if n == now:
        raise ValueError(f"max_mds is already {n}")
    active = len(fs.active)
    if n > now:
        new = n - max(active, now)
        if new > len(standbys):
            short = new - len(standbys)
            effect = (f"{n} active ranks wanted; {len(standbys)} standby daemon(s) ({_daemons(standbys)}) to fill "
                      f"{new} new rank(s): {short} rank(s) stay empty (MDS_UP_LESS_THAN_MAX) until {short} more "
                      "MDS daemon(s) start, and no standby is left to take a rank that fails.")
        else:
            left = len(standbys) - new
            first = max(active, now)
            ranks = f"becomes active rank {first}" if new == 1 else f"become active ranks {first}..{n - 1}"
            effect = (f"{new} of the standby daemons ({_daemons(standbys)}) {ranks}; {left} standby left"
                      + (" (MDS_INSUFFICIENT_STANDBY while fewer than standby_count_wanted)."
                         if left < fs.standby_count_wanted else "."))
        return _fs_set(fs.name, "max_mds", str(n), title=f"Raise {fs.name}'s active ranks from {now} to {n}",
                       impact=SAFE, effect=effect + " Subtrees spread over the new ranks only as the MDS balancer "
                       "(or pinning) moves them.")
    stopping = [r for r in fs.active if r.rank >= n]
    who = ", ".join(f"rank {r.rank} (mds.{r.name})" for r in stopping) or f"ranks {n}..{now - 1}"
    return _fs_set(fs.name, "max_mds", str(n), title=f"Lower {fs.name}'s active ranks from {now} to {n}",
                   impact=DESTROYS, confirm_text=fs.name,
                   confirm_why="the stopping ranks hand their subtrees and clients over while they run",
                   effect=f"{who} stop: each exports its subtrees and its clients' caps to the remaining ranks, "
                          "then its daemon becomes a standby. Metadata requests to those subtrees pause while "
                          "they move; data IO goes on.")


def build_joinable(fs: FileSystem, on: bool) -> Operation:
    val = "true" if on else "false"
    if on:
        return _fs_set(fs.name, "joinable", val, title=f"Let standbys take {fs.name}'s ranks (joinable)",
                       impact=SAFE, effect="Standby daemons take a failed or empty rank again (the usual state).")
    return _fs_set(fs.name, "joinable", val, title=f"Stop standbys taking {fs.name}'s ranks (not joinable)",
                   impact=DESTROYS, confirm_text=fs.name,
                   confirm_why="a rank that fails then stays failed and its clients wait",
                   effect="No standby takes a rank any more: the running ranks go on, but one that fails stays "
                          "failed (FS_DEGRADED) and the clients of its subtrees wait until joinable is true "
                          "again. Used with `ceph fs fail` to take a file system down for maintenance.")


def build_standby_replay(fs: FileSystem, on: bool, standbys: tuple[str, ...]) -> Operation:
    val = "true" if on else "false"
    if on:
        spare = len(standbys)
        want = len(fs.active)
        effect = (f"A standby daemon follows each active rank's journal, so a failover takes seconds instead of a "
                  f"full replay. {want} active rank(s), {spare} standby ({_daemons(standbys)}): "
                  + ("every rank gets one." if spare >= want else
                     f"{spare} rank(s) get one; the others still fail over to a plain standby, if any is left.")
                  + " A following daemon is no plain standby any more: it takes only its own rank.")
        return _fs_set(fs.name, "allow_standby_replay", val, title=f"Allow standby-replay in {fs.name}",
                       impact=SAFE, effect=effect)
    followers = [name for name, _ in fs.standby_replay]
    return _fs_set(fs.name, "allow_standby_replay", val, title=f"Stop standby-replay in {fs.name}", impact=SAFE,
                   effect=f"The following daemons ({_daemons(followers)}) stop and come back as plain standbys; a "
                          "failover then replays the rank's journal from the start (slower with a big journal).")


def build_fail_rank(fs: FileSystem, standbys: tuple[str, ...], rank_text: str, override: str) -> Operation:
    """`ceph mds fail FS:RANK`, refused when nobody would take the rank unless the admin says so."""
    active = {r.rank: r for r in fs.active}
    if not rank_text.strip().isdigit() or int(rank_text) not in active:
        raise ValueError(f"choose an active rank of {fs.name}: {', '.join(map(str, sorted(active))) or 'none'}")
    rank = active[int(rank_text)]
    follower = next((name for name, r in fs.standby_replay if r == rank.rank), "")
    if follower:
        who = f"mds.{follower}, which follows it (standby-replay), takes it over at once"
    elif standbys and fs.joinable:
        who = f"a standby ({_daemons(standbys)}) takes it over after replaying its journal"
    else:
        why = "the file system is not joinable" if standbys else "there is no standby daemon"
        if override != "yes":
            raise ValueError(f"nobody would take rank {rank.rank}: {why}. Its clients would wait until an MDS "
                             "daemon starts; choose 'yes' to fail it anyway")
        who = f"nobody takes it ({why}): it stays failed and its clients wait until an MDS daemon starts"
    spec = f"{fs.name}:{rank.rank}"
    return Operation(title=f"Fail rank {rank.rank} of {fs.name} (mds.{rank.name})", prefix="mds fail",
                     args=(("role_or_gid", spec),), cli=f"ceph mds fail {spec}", impact=DESTROYS,
                     confirm_text=spec, confirm_why="its clients pause while another daemon takes the rank",
                     effect=f"mds.{rank.name} is marked failed and restarts as a standby; {who}. Clients of its "
                            "subtrees pause until the new daemon has reconnected them (mds_reconnect_timeout, "
                            "45 s at most by default).")
