#!/usr/bin/env python3
"""The timeline of one real drain: out -> clean -> stop -> purge (or destroy -> new disk -> backfill -> done).

    .venv/bin/python scripts/drain_timeline.py [--replace] [--drain crush0|out] [--objects 3000] [--osd 3] [--keep DIR]

Starts a 4-OSD sandbox with Ceph's default settings, fills a size-3 pool with checksummed objects, runs
cephtui's removal state machine headlessly (the stop command records `ceph pg stat` at the moment it runs),
and prints every step with its time, what the cluster said at the stop, what `ceph pg stat` says right
after "done", and whether every object reads back with its checksum. The cluster log is watched all along
(`ceph -w`, ended by its pid) and the PG states sampled every 0.5 s: it prints every PG_AVAILABILITY line and
every sample with a PG not active, with their times, the purge's (or destroy's) time among them.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.workflows.removal import Removal  # noqa: E402
from cephtui.ceph.workflows.removal_engine import RemovalEngine  # noqa: E402
from cephtui.ceph.workflows.store import WorkflowStore  # noqa: E402
from tests.cluster import drainlab  # noqa: E402

SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]


def ceph(conf: Path, *args: str) -> object:
    out = subprocess.run(["ceph", "-c", str(conf), *args, "-f", "json"], check=True, capture_output=True,
                         text=True, timeout=60).stdout
    return json.loads(out) if out.strip() else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replace", action="store_true")
    ap.add_argument("--drain", choices=("crush0", "out"), help="default: the workflow's (crush0; out with --replace)")
    ap.add_argument("--objects", type=int, default=3000)
    ap.add_argument("--osd", type=int, default=3)
    ap.add_argument("--keep", help="use (and keep) this sandbox directory")
    ap.add_argument("--timeout", type=float, default=900)
    a = ap.parse_args()
    box = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="drain-", dir="/tmp"))
    conf = box / "ceph.conf"
    subprocess.run([*SANDBOX, "start", str(box), "--osds", "4"], check=True, capture_output=True, timeout=300)
    try:
        ceph(conf, "osd", "pool", "create", "lab", "32")
        ceph(conf, "osd", "pool", "application", "enable", "lab", "rbd")
        subprocess.run([*SANDBOX, "start", str(box), "--osds", "4"], check=True, capture_output=True, timeout=300)
        sums = drainlab.fill(conf, "lab", a.objects)
        subprocess.run([*SANDBOX, "start", str(box), "--osds", "4"], check=True, capture_output=True, timeout=300)
        client = CephClient(ConnectionSpec(conffile=str(conf), op_timeout=10)).connect()
        stop = f"/usr/bin/python3 {ROOT}/tests/cluster/stop_recorder.py {conf} {box} {{id}}"
        state = Removal(osds=[a.osd], replace=a.replace, stop_template=stop, drain_mode=a.drain or "")
        engine = RemovalEngine(client, state, WorkflowStore(box / "state"))
        watch = drainlab.ClusterWatch(conf)
        t0 = time.time()
        deadline = t0 + a.timeout
        recreated = False
        while not state.finished and state.status in ("running",) and time.time() < deadline:
            engine.tick()
            if state.step == "replace" and not recreated:
                subprocess.run([*SANDBOX, "recreate", str(box), f"osd.{a.osd}"], check=True, timeout=300)
                recreated = True
            time.sleep(1)
        # "done" must stay true: `ceph pg stat` once a second for 15 s after it.
        after = []
        for _ in range(15):
            after.append((time.time() - t0, ceph(conf, "pg", "stat")))
            time.sleep(1)
        at_done = after[0][1]
        watch.stop()
        print(f"drain: {state.drain_mode}")
        print(drainlab.timeline(state.log, t0))
        removed = next((e["time"] for e in state.log if "-actual" in str(e.get("cli"))), None)
        print(f"cluster watched: {watch.samples} PG samples; "
              + (f"purge/destroy at +{removed - t0:.1f}s" if removed else "no purge/destroy"))
        if removed:
            moved = watch.remapped(removed - 0.5, time.time())
            print(f"PGs whose up set changed at the purge/destroy: {len(moved)} {moved[:8]}")
        health = [(t, line) for t, line in watch.log if "Health check" in line or "HEALTH_" in line]
        print(f"ceph -w: {len(watch.log)} lines, {len(health)} about health:")
        for t, line in health[:12]:
            print(f"  +{t - t0:6.1f}s  {line[-160:]}")
        for t, line in watch.log:
            if "PG_AVAILABILITY" in line:
                print(f"  +{t - t0:6.1f}s  {line}")
        for t, bad in watch.inactive:
            print(f"  +{t - t0:6.1f}s  not active: {bad}")
        if not any("PG_AVAILABILITY" in line for _, line in watch.log) and not watch.inactive:
            print("  no PG_AVAILABILITY, no PG seen inactive")
        print(f"status: {state.status}  ({state.waiting_for})")
        for s in drainlab.stops(box):
            pm = s["pgmap"]
            print(f"at the stop (+{s['time'] - t0:.1f}s): pg states "
                  f"{ {x['state_name']: x['count'] for x in pm['pgs_by_state']} }, degraded "
                  f"{pm.get('degraded_objects', 0)}/{pm.get('degraded_total', 0)}, misplaced "
                  f"{pm.get('misplaced_objects', 0)}; clean by pg stat: {drainlab.clean(s['pg_stat'])}")
        print(f"right after the end: pg stat clean: {drainlab.clean(at_done)}  {json.dumps(at_done)[:300]}")
        unclean = [(t, x) for t, x in after if not drainlab.clean(x)]
        print(f"pg stat over the 15 s after the end: {15 - len(unclean)}/15 readings clean"
              + "".join(f"\n  +{t:.1f}s {json.dumps(x.get('pg_summary', x).get('num_pg_by_state'))}"
                        for t, x in unclean[:5]))
        if not a.replace and state.status == "done":
            subprocess.run([*SANDBOX, "forget", str(box), f"osd.{a.osd}"], check=True, timeout=120)
        bad = drainlab.verify(conf, "lab", sums)
        print(f"objects read back intact: {len(sums) - len(bad)}/{len(sums)}")
        client.close()
        return 0 if state.status == "done" and not bad else 1
    finally:
        if not a.keep:
            subprocess.run([*SANDBOX, "stop", str(box), "--purge"], timeout=300)


if __name__ == "__main__":
    sys.exit(main())
