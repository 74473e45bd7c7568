"""`cephtui fs status` and `cephtui fs clients`: the File systems tab, headless.

    cephtui [GLOBAL OPTIONS] fs status [--fs NAME] [--json]
    cephtui [GLOBAL OPTIONS] fs clients [--fs NAME] [--json]

`status`: each file system's ranks (state, daemon, requests/s, dentries, inodes, dirs, caps: the mgr's numbers, as
`ceph fs status` shows them), its pools, flags and clients, then the standbys and the MDS versions. `clients`: every
session of every active rank (`ceph tell mds.FS:RANK session ls`), with its host, mount root, kind and version.
--json keeps `ceph fs status -f json`'s and `session ls`'s key names.

Exit status: 0 shown; 1 cannot connect, or no such file system; 2 usage; 3 shown, but something could not be read
(said on stderr: a rank that did not answer, the mgr's `fs status` not served).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING, TextIO

from cephtui.ceph.format import human_bytes, human_duration

if TYPE_CHECKING:
    from cephtui.ceph.cephfs.model import FileSystem, FsStatus, Session
    from cephtui.ceph.cluster import Cluster
    from cephtui.cli.table import Invocation

EXIT_PROBLEMS = 3
HELP = "CephFS file systems (fs status) or their clients (session ls), headless"
DESCRIPTION = ("`fs status`: each file system's MDS ranks with their state, daemon, request rate, dentries, inodes, "
               "dirs and caps (the mgr's numbers, as `ceph fs status`), its pools, flags and client count, the "
               "standbys and MDS versions. `fs clients`: every client session of every active rank (`ceph tell "
               "mds.FS:RANK session ls`): id, host, mount root, kind (kernel, ceph-fuse, libcephfs), version, caps "
               "held, requests in flight, state and age. Read-only. Exit status: 0 shown; 1 cannot connect or no such "
               "file system; 2 usage; 3 shown, but something could not be read.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["status", "clients"], metavar="status|clients",
                   help="status: the file systems and their MDS ranks; clients: their client sessions")
    g = p.add_argument_group("fs options")
    g.add_argument("--fs", metavar="NAME", help="only this file system (default: every one)")
    g.add_argument("--json", action="store_true",
                   help="JSON with `ceph fs status -f json`'s key names (status) or `session ls`'s (clients)")


def run(inv: Invocation) -> int:
    return fs_command(inv.client, inv.args)


def fs_command(client: Cluster, args: argparse.Namespace, out: TextIO | None = None,
               err: TextIO | None = None) -> int:
    from cephtui.ceph.cephfs.reader import read_clients, read_fs_status
    from cephtui.ceph.errors import CephError

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        status = read_fs_status(client)
    except CephError as e:
        print(f"cephtui fs {args.action}: `ceph fs dump`: {e.message}", file=err)
        return 1
    names = [f.name for f in status.filesystems]
    if args.fs and args.fs not in names:
        print(f"cephtui fs {args.action}: no file system is called {args.fs!r} "
              f"({'the file systems: ' + ', '.join(names) if names else 'this cluster has none'})", file=err)
        return 1
    chosen = [args.fs] if args.fs else names
    problems = list(status.notes) if args.action == "status" else []  # what the sessions need is the map alone
    if args.action == "status":
        if args.fs:
            fs = status.get(args.fs)
            status = dataclasses.replace(status, filesystems=(fs,) if fs else ())
        if args.json:
            json.dump(status.to_json(), out, indent=2)
            print(file=out)
        else:
            print_status(status, out)
    else:
        sessions: list[Session] = []
        for name in chosen:
            clients = read_clients(client, status, name)
            sessions += clients.sessions
            problems += list(clients.problems)
        if args.json:
            json.dump([s.to_json() for s in sessions], out, indent=2)
            print(file=out)
        else:
            print_clients(sessions, out, chosen)
    if not names:
        print(f"cephtui fs {args.action}: this cluster has no file system (`ceph fs ls`)", file=err)
    for p in problems:
        print(f"cephtui fs {args.action}: {p}", file=err)
    return EXIT_PROBLEMS if problems else 0


def _num(value: int | None) -> str:
    return "-" if value is None else str(value)


def columns(rows: list[list[str]], out: TextIO, indent: str = "") -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print(indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)


def fs_lines(fs: FileSystem) -> tuple[str, list[list[str]], list[list[str]]]:
    """A file system's title line, rank rows and pool rows, as `ceph fs status` lays them out."""
    clients = "?" if fs.clients is None else str(fs.clients)
    flags = [f"max_mds {fs.max_mds}", "joinable" if fs.joinable else "NOT joinable",
             "standby-replay allowed" if fs.allow_standby_replay else "no standby-replay"]
    title = f"{fs.name} - {clients} clients ({fs.state_words}; {', '.join(flags)})"
    ranks = [["RANK", "STATE", "MDS", "ACTIVITY", "DNS", "INOS", "DIRS", "CAPS"]]
    for r in fs.ranks:
        activity = f"Reqs: {r.rate} /s" if r.rate is not None and r.state == "active" else ""
        ranks.append([str(r.rank), r.state + (" (laggy)" if r.laggy else ""), r.name, activity, _num(r.dns),
                      _num(r.inos), _num(r.dirs), _num(r.caps)])
    for name, rank in fs.standby_replay:
        ranks.append([f"{rank}-s", "standby-replay", name, "", "", "", "", ""])
    pools = [["POOL", "TYPE", "USED", "AVAIL"]]
    for p in fs.pools:
        pools.append([p.name or str(p.id), p.type, "-" if p.used is None else human_bytes(p.used),
                      "-" if p.avail is None else human_bytes(p.avail)])
    return title, ranks, pools


def print_status(status: FsStatus, out: TextIO) -> None:
    for fs in status.filesystems:
        title, ranks, pools = fs_lines(fs)
        print(title, file=out)
        columns(ranks, out, "  ")
        columns(pools, out, "  ")
        print(file=out)
    if status.standbys:
        print("STANDBY MDS: " + ", ".join(status.standbys), file=out)
    for version, daemons in status.versions:
        print(f"MDS version: {version}" + (f" ({', '.join(daemons)})" if daemons else ""), file=out)


def print_clients(sessions: list[Session], out: TextIO, names: list[str] | None = None) -> None:
    if not sessions:
        if names:  # a blank answer would look like a failure: say that nobody has it mounted
            print(f"no client session on {', '.join(names)}", file=out)
        return
    rows = [["ID", "FS", "RANK", "HOST", "ROOT", "KIND", "VERSION", "CAPS", "REQS", "STATE", "AGE", "ADDR"]]
    for s in sessions:
        rows.append([str(s.id), s.fs, str(s.rank), s.hostname, s.root, s.kind or "?", s.version, str(s.num_caps),
                     str(s.requests_in_flight), s.state + (" (reconnecting)" if s.reconnecting else ""),
                     human_duration(s.uptime), s.addr])
    columns(rows, out)
