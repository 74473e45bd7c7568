"""Command line: the ceph CLI's connection flags, the TUI, and headless subcommands.

    cephtui [-c CONF] [--id ID | -n NAME] [-k KEYRING] [--cluster NAME] [--refresh S]
    cephtui snapshot [--json]
    cephtui bench --pool P [--seconds S] [--mode write|seq|rand] [--threads N] [--block-size B] [--json]

CEPH_ARGS is split and put before the command line, as `ceph` does; CEPH_CONF
names the config when -c is absent. Unknown `--option value` pairs go to
librados like the `ceph` CLI passes them (e.g. `--mon-host 10.0.0.1`).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from typing import Any, Sequence

from . import __version__
from .ceph.client import CephClient, CephError, ConnectionSpec, split_ceph_args
from .ceph.format import human_bytes, human_rate


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cephtui",
        description="A terminal admin companion for Ceph. Connects like the `ceph` CLI does.",
        epilog="Environment: CEPH_CONF (config path), CEPH_ARGS (extra arguments, put first).",
    )
    p.add_argument("command", nargs="?", choices=["snapshot", "bench"],
                   help="snapshot: print the current cluster snapshot and exit (add --json for scripts); "
                        "bench: run the benchmark headless and print its summary (see the bench options)")
    p.add_argument("-c", "--conf", help="ceph config file (default: $CEPH_CONF or /etc/ceph/$cluster.conf)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--id", "--user", dest="id", help="client id, e.g. admin for client.admin")
    who.add_argument("-n", "--name", help="full entity name, e.g. client.admin")
    p.add_argument("-k", "--keyring", help="keyring file")
    p.add_argument("--cluster", default="ceph", help="cluster name (default: ceph)")
    p.add_argument("--connect-timeout", type=int, default=5, metavar="S",
                   help="seconds to wait for the monitors when connecting (default: 5)")
    p.add_argument("--timeout", type=int, default=5, metavar="S",
                   help="seconds before one command counts as failed (default: 5)")
    p.add_argument("--refresh", type=float, default=2.0, metavar="S", help="seconds between refreshes (default: 2)")
    p.add_argument("--osd-stop-cmd", default="", metavar="CMD",
                   help="how the removal wizard stops an OSD daemon, {id} replaced by its id, e.g. "
                        "'ssh node3 systemctl stop ceph-osd@{id}' (default: systemd when the OSD runs here, "
                        "else it shows the command and waits until the OSD is down)")
    p.add_argument("--read-only", action="store_true",
                   help="look, never touch: every action that would change the cluster is disabled and says "
                        "so, and no writing command is sent (checked against the cluster's own command table)")
    p.add_argument("--json", action="store_true", help="with snapshot or bench: print JSON")
    p.add_argument("--pg-table", action="store_true", help="with snapshot: include every PG (pgs_brief)")
    p.add_argument("--version", action="version", version=f"cephtui {__version__}")
    b = p.add_argument_group("bench", "options of `cephtui bench` (the same engine as the Bench tab; "
                                      "semantics of `rados bench`)")
    b.add_argument("--pool", "-p", help="pool to benchmark (or --temp-pool)")
    b.add_argument("--seconds", type=float, default=10.0, metavar="S", help="run time (default: 10)")
    b.add_argument("--mode", default="write", choices=["write", "seq", "rand", "cleanup"],
                   help="write, or seq/rand reads of objects a write left with --no-cleanup, or cleanup: remove "
                        "them like `rados cleanup` (default: write)")
    b.add_argument("--threads", "-t", type=int, default=16, metavar="N", help="concurrent ops (default: 16)")
    b.add_argument("--block-size", "-b", default="4M", metavar="B", help="op size: bytes or 4K, 4M (default: 4M)")
    b.add_argument("--object-size", "-O", default="", metavar="B", help="object size (default: the op size)")
    b.add_argument("--run-name", default="", metavar="NAME",
                   help="metadata object name (default: benchmark_last_metadata), as rados bench --run-name")
    b.add_argument("--no-cleanup", action="store_true", help="keep the written objects (for seq/rand reads)")
    b.add_argument("--op-timeout", type=float, default=30.0, metavar="S",
                   help="an op without a reply for S seconds ends the run with an error (default: 30)")
    b.add_argument("--latency", action="store_true",
                   help="latency preset: 4 KiB ops, one at a time (what most workloads feel)")
    b.add_argument("--temp-pool", action="store_true",
                   help="create a size-1 pool for the run and delete it afterwards")
    b.add_argument("--no-verify", action="store_true", help="reads: do not check the contents")
    b.add_argument("--no-save", action="store_true", help="do not add the run to the bench history")
    return p


def spec_from_args(args: argparse.Namespace, extra: Sequence[str]) -> ConnectionSpec:
    if args.name:
        name = args.name
        if "." not in name:
            raise SystemExit(f"cephtui: --name must look like TYPE.ID (e.g. client.admin), got {name!r}")
    else:
        name = f"client.{args.id or 'admin'}"
    return ConnectionSpec(conffile=args.conf, name=name, keyring=args.keyring, cluster=args.cluster,
                          extra_args=tuple(extra), connect_timeout=max(1, args.connect_timeout),
                          op_timeout=max(1, args.timeout))


def split_librados_args(parser: argparse.ArgumentParser, raw: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separate our own arguments from librados `--option [value]` pairs we pass through."""
    known = {o for a in parser._actions for o in a.option_strings}
    ours: list[str] = []
    extra: list[str] = []
    i = 0
    while i < len(raw):
        tok = raw[i]
        if tok.startswith("--") and tok.split("=", 1)[0] not in known and tok != "--":
            extra.append(tok)
            if "=" not in tok and i + 1 < len(raw) and not raw[i + 1].startswith("-"):
                extra.append(raw[i + 1])
                i += 1
        else:
            ours.append(tok)
        i += 1
    return ours, extra


def main(argv: Sequence[str] | None = None) -> int:
    raw = split_ceph_args(os.environ.get("CEPH_ARGS")) + list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    ours, extra = split_librados_args(parser, raw)
    args = parser.parse_args(ours)
    if args.refresh < 0.2:
        parser.error("--refresh must be at least 0.2 seconds")
    spec = spec_from_args(args, extra)
    if args.command is None:
        _HANGUP.install()
    if args.command == "bench" and not (args.pool or args.temp_pool):
        parser.error("bench needs --pool P (or --temp-pool)")
    if args.command == "bench" and args.read_only and (args.mode in ("write", "cleanup") or args.temp_pool):
        parser.error(f"bench --mode {args.mode}{' --temp-pool' if args.temp_pool else ''} writes to the cluster; "
                     "not with --read-only (seq and rand reads of existing objects are fine)")
    client = CephClient(spec, read_only=args.read_only)
    try:
        client.connect()
    except CephError as e:
        print(f"cephtui: {e.message}", file=sys.stderr)
        return 1
    try:
        if args.command == "snapshot":
            return snapshot_command(client, as_json=args.json, pg_table=args.pg_table)
        if args.command == "bench":
            from .benchcli import bench_command
            return bench_command(client, spec, args)
        return run_tui(client, spec, args.refresh, args.osd_stop_cmd, read_only=args.read_only)
    except CephError as e:
        print(f"cephtui: {e.prefix + ': ' if e.prefix else ''}{e.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `cephtui snapshot | head`
        sys.stderr.close()
        return 0
    finally:
        client.close()


def snapshot_command(client: CephClient, *, as_json: bool, pg_table: bool) -> int:
    from .ceph.snapshot import SnapshotBuilder

    snap = SnapshotBuilder(client).build(pg_table=pg_table)
    if as_json:
        json.dump(snap.to_json(), sys.stdout, indent=2)
        print()
        return 0
    h, o, c = snap.health, snap.osds, snap.capacity
    print(f"cluster {snap.fsid}")
    print(f"health  {h.status}")
    for chk in h.checks:
        print(f"        [{chk.severity.removeprefix('HEALTH_')}] {chk.code}: {chk.summary}{' (muted)' if chk.muted else ''}")
    print(f"mon     {len(snap.mons.quorum)}/{len(snap.mons.names)} in quorum ({', '.join(snap.mons.quorum)})")
    print(f"mgr     {snap.mgr.active or 'none'}{' (active)' if snap.mgr.available else ' (NOT available)'}, "
          f"{len(snap.mgr.standbys)} standby")
    print(f"osd     {o.total} osds: {o.up} up, {o.in_} in")
    print(f"pgs     {snap.pgs.num_pgs} pgs: " + ", ".join(f"{s.count} {s.state}" for s in snap.pgs.by_state))
    print(f"usage   {human_bytes(c.used)} used, {human_bytes(c.avail)} / {human_bytes(c.total)} avail "
          f"({c.ratio * 100:.1f}%)")
    io = snap.io
    print(f"io      client {human_rate(io.read_bps)} rd, {human_rate(io.write_bps)} wr, "
          f"{io.read_ops} op/s rd, {io.write_ops} op/s wr")
    for note in snap.notes:
        print(f"note    {note}")
    return 0


def run_tui(client: CephClient, spec: ConnectionSpec, refresh: float, osd_stop_cmd: str = "",
            read_only: bool = False) -> int:
    from .ceph.secrets import log_to_file
    from .ui.app import CephTUI

    log_to_file()  # errors the UI summarises ("see the log") land here, secrets masked
    app = CephTUI(client=client, refresh=refresh, cluster=spec.cluster, osd_stop_cmd=osd_stop_cmd,
                  read_only=read_only)
    _HANGUP.app = app
    app.run()
    return 0


class _Hangup:
    """Quit when the terminal goes away (a dropped ssh session).

    Textual keeps running after a hangup: its writer thread dies on the dead
    terminal and the UI thread then waits forever on a full output queue. A
    Python signal handler would never run there (the signal lands in some other
    thread while the main one is stuck in a lock), so SIGHUP is blocked in every
    thread from the start and one watcher thread waits for it: it asks the app
    to exit and, if that has not happened within two seconds, ends the process.
    There is no terminal left to restore.
    """

    app: Any = None

    def install(self) -> None:
        # Before librados starts its threads: they inherit the blocked mask.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
        threading.Thread(target=self._watch, name="sighup-watcher", daemon=True).start()

    def _watch(self) -> None:
        signum = signal.sigwait({signal.SIGHUP})
        timer = threading.Timer(2.0, os._exit, args=(128 + signum,))
        timer.daemon = True
        timer.start()
        if self.app is not None:
            try:
                self.app.call_from_thread(self.app.exit)
            except Exception:
                pass
        else:
            os._exit(128 + signum)


_HANGUP = _Hangup()
