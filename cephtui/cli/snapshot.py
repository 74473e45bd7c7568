"""`cephtui snapshot`: the cluster's state in one look (health, mons, mgr, OSDs, PGs, usage, IO), or --json."""
from __future__ import annotations

import argparse
import json
import sys

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.format import human_bytes, human_rate
from cephtui.cli.table import Invocation

HELP = "print the current cluster snapshot and exit"
DESCRIPTION = "Print the current cluster snapshot and exit."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON, for scripts")
    p.add_argument("--pg-table", action="store_true", help="include every PG (pgs_brief)")


def run(inv: Invocation) -> int:
    return snapshot_command(inv.client, as_json=inv.args.json, pg_table=inv.args.pg_table)


def snapshot_command(client: Cluster, *, as_json: bool, pg_table: bool) -> int:
    from cephtui.ceph.snapshot.builder import SnapshotBuilder

    snap = SnapshotBuilder(client).build(pg_table=pg_table)
    if as_json:
        json.dump(snap.to_json(), sys.stdout, indent=2)
        print()
        return 0
    h, o, c = snap.health, snap.osds, snap.capacity
    print(f"cluster {snap.fsid}")
    print(f"health  {h.status}")
    for chk in h.checks:
        muted = " (muted)" if chk.muted else ""
        print(f"        [{chk.severity.removeprefix('HEALTH_')}] {chk.code}: {chk.summary}{muted}")
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
