#!/usr/bin/env python3
"""The latency probe's p50 against fio's, same cluster, same pool, same run.

    .venv/bin/python scripts/probe_vs_fio.py --conf CEPH_CONF [--pool rbd] [--seconds 10] [--rounds 3]

Each round runs cephtui's RADOS latency probe (random 4 KiB writes, then random reads, one op in flight:
probe.rados_probe) and fio's rados engine doing the same (`--ioengine=rados --iodepth=1 --bs=4k`,
randwrite then randread of what it wrote, on 16 objects of 4 MiB), the order alternating between rounds.
Prints each round's p50s, the median ratio (cephtui / fio: at most 1.05 means the probe reports what fio
does), the client CPU per op of both, and the last probe's words. fio's objects are removed after.

Not like for like in one respect, said here rather than hidden: rados bench semantics (which the probe
keeps, so native `rados bench` can read its objects) write each op to a new object, fio overwrites 4 KiB
inside existing 4 MiB objects. BlueStore does a little more for a new object (its onode).
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph import ops  # noqa: E402
from cephtui.ceph.bench.probe import rados_probe  # noqa: E402
from cephtui.ceph.bench.probe_result import ProbeResult  # noqa: E402
from cephtui.ceph.bench.results import Sample  # noqa: E402
from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402

JOB = "ctprobefio"


def cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def fio(conf: str, pool: str, rw: str, seconds: float) -> dict[str, Any]:
    cmd = ["fio", f"--name={JOB}", "--ioengine=rados", "--clientname=admin", f"--conf={conf}", f"--pool={pool}",
           f"--rw={rw}", "--bs=4k", "--iodepth=1", "--size=64M", "--nrfiles=16", f"--runtime={seconds:g}",
           "--time_based", "--output-format=json"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120)
    if res.returncode != 0:
        raise SystemExit(f"fio failed: {res.stderr.strip()}")
    job = json.loads(res.stdout[res.stdout.index("{"):])["jobs"][0]
    side = job["read" if "read" in rw else "write"]
    ops_done = side["total_ios"]
    run_s = job["job_runtime"] / 1000.0
    return {"p50": side["clat_ns"]["percentile"]["50.000000"] / 1e9, "mean": side["lat_ns"]["mean"] / 1e9,
            "iops": side["iops"], "ops": ops_done,
            "cpu_per_op": (job["usr_cpu"] + job["sys_cpu"]) / 100 * run_s / ops_done if ops_done else 0.0}


def remove_fio_objects(conf: str, pool: str) -> None:
    names = subprocess.run(["rados", "-c", conf, "-p", pool, "ls"], capture_output=True, text=True,
                           timeout=120).stdout.split()
    for name in names:
        if name.startswith(f"{JOB}."):
            subprocess.run(["rados", "-c", conf, "-p", pool, "rm", name], capture_output=True, timeout=60)


def probe(client: CephClient, pool: str, seconds: float) -> tuple[ProbeResult, float]:
    """One probe, and its writes' client CPU per op between their first and last per-second sample (so the
    connect and the cleanup around the run are not in it, as fio's steady state has none of them)."""
    audit = ops.AuditLog(Path(tempfile.mkdtemp()) / "audit.log", cluster=client.fsid())
    phase_now = [""]
    marks: list[tuple[float, int]] = []

    def sample(s: Sample) -> None:
        if phase_now[0].startswith("random 4 KiB writes"):
            marks.append((cpu(), s.finished))
    p, _ = rados_probe(client, pool, audit, None, seconds=seconds, on_phase=lambda t: phase_now.__setitem__(0, t),
                       on_sample=sample)
    r = p.run()
    done = marks[-1][1] - marks[0][1] if len(marks) > 1 else 0
    return r, (marks[-1][0] - marks[0][0]) / done if done else 0.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conf", required=True)
    ap.add_argument("--pool", default="rbd")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    client = CephClient(ConnectionSpec(conffile=a.conf)).connect()
    rows: list[dict[str, Any]] = []
    last: ProbeResult | None = None
    try:
        for i in range(a.rounds):
            row: dict[str, Any] = {}
            order = ("cephtui", "fio") if i % 2 == 0 else ("fio", "cephtui")
            for who in order:
                if who == "cephtui":
                    last, wcpu = probe(client, a.pool, a.seconds)
                    assert last.read is not None
                    row["ct_w"], row["ct_r"], row["ct_wcpu"] = last.write.p50, last.read.p50, wcpu
                    row["ct_wmean"], row["ct_rmean"] = last.write.mean, last.read.mean
                else:
                    w = fio(a.conf, a.pool, "randwrite", a.seconds)
                    r = fio(a.conf, a.pool, "randread", a.seconds)
                    remove_fio_objects(a.conf, a.pool)
                    row["fio_w"], row["fio_r"], row["fio_wcpu"] = w["p50"], r["p50"], w["cpu_per_op"]
                    row["fio_wmean"], row["fio_rmean"] = w["mean"], r["mean"]
            rows.append(row)
            print(f"round {i + 1} ({' then '.join(order)}): write p50 cephtui {row['ct_w'] * 1e3:.3f} ms, "
                  f"fio {row['fio_w'] * 1e3:.3f} ms (×{row['ct_w'] / row['fio_w']:.2f}); read p50 cephtui "
                  f"{row['ct_r'] * 1e3:.3f} ms, fio {row['fio_r'] * 1e3:.3f} ms (×{row['ct_r'] / row['fio_r']:.2f}); "
                  f"write CPU/op cephtui {row['ct_wcpu'] * 1e6:.0f} µs, fio {row['fio_wcpu'] * 1e6:.0f} µs",
                  flush=True)
    finally:
        client.close()
    med = statistics.median
    print(f"median write p50 ratio cephtui/fio: {med(r['ct_w'] / r['fio_w'] for r in rows):.2f}  "
          f"(mean latency: {med(r['ct_wmean'] / r['fio_wmean'] for r in rows):.2f})")
    print(f"median read p50 ratio cephtui/fio:  {med(r['ct_r'] / r['fio_r'] for r in rows):.2f}  "
          f"(mean latency: {med(r['ct_rmean'] / r['fio_rmean'] for r in rows):.2f})")
    print(f"write client CPU per op: cephtui {med(r['ct_wcpu'] for r in rows) * 1e6:.0f} µs, "
          f"fio {med(r['fio_wcpu'] for r in rows) * 1e6:.0f} µs")
    if last is not None:
        print("\nthe last probe's words:")
        print("\n".join(last.words))


if __name__ == "__main__":
    main()
