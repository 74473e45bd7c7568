#!/usr/bin/env python3
"""Capture tests/fixtures/history/: a real Prometheus' answers about a sandbox's mgr.

    .venv/bin/python scripts/capture_prometheus_fixture.py [--conf CEPH_CONF] [OUTDIR]

Without --conf it starts its own 3-OSD sandbox (temporary directory, free port) and stops it after.
Enables the mgr's prometheus module on loopback, starts /usr/bin/prometheus scraping it every second
(tests/cluster/promlab.py), writes into pool rbd until the write rate shows, sets and unsets noout, and then
keeps the raw bodies of the range queries PrometheusSource sends (write_bps, the OSD frames, the health
events), of a query the server refuses, of one that matches nothing and of one whose values are NaN.
capture.json says, per file, the PromQL, start, end, step and HTTP status, and the wall times of the
writes and of the flag. Nothing here is typed by hand.
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.history.prometheus import PrometheusSource  # noqa: E402
from tests.cluster import promlab  # noqa: E402

SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]
RATE_FLOOR = 10.0


def capture(conf: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    mon = promlab.Mon(conf)
    server = None
    try:
        metrics = promlab.enable_module(mon, promlab.free_port())
        server = promlab.PromServer([metrics.split("/")[2]])
        server.wait_ready(timeout=120)
        src = PrometheusSource(server.url, min_rate_window=RATE_FLOOR)

        def still() -> bool:  # the respawned mgr's counters back at their totals (see the cluster test)
            now = time.time()
            pts = src.cluster_series("write_bps", now - 2 * RATE_FLOOR, now)
            return len(pts) > 2 * RATE_FLOOR - 3 and all(v == 0 for _, v in pts)
        promlab.wait_for(still, 120, "the mgr's pool write counter holding still")

        t0 = time.time()
        writer = promlab.Writer(conf, "rbd")
        try:
            promlab.wait_for(lambda: sum(v > 0 for _, v in src.cluster_series("write_bps", t0, time.time())) >= 5,
                             90, "5 non-zero points of write_bps")
        finally:
            writer.stop()
        meta: dict[str, Any] = {"write_start": writer.first, "write_end": writer.last, "bytes_written": writer.bytes}

        def flags() -> list[Any]:
            return [e for e in src.events(t0, time.time()) if e.code == "OSDMAP_FLAGS"]
        meta["noout_set"] = time.time()
        mon("osd set", key="noout")
        try:
            promlab.wait_for(flags, 60, "OSDMAP_FLAGS raised")
        finally:
            mon("osd unset", key="noout")
            meta["noout_unset"] = time.time()
        promlab.wait_for(lambda: len(flags()) >= 2, 60, "OSDMAP_FLAGS cleared")
        quiet = (writer.last or time.time()) + 2 * RATE_FLOOR
        promlab.wait_for(lambda: time.time() > quiet and src.cluster_series("write_bps", quiet, time.time())[-1][1]
                         == 0, 90, "write_bps back to 0")

        start, end, step = src.plan(t0 - 5, time.time())
        active, known = src.events_promql(step)
        queries = {"write_bps": (src.cluster_promql("write_bps", step), start),
                   **{f"osd_{k}": (q, start) for k, q in src.osd_promql(step).items()},
                   "health_detail": (active, start - step), "health_status": (known, start - step),
                   "error_bad_data": ("sum(rate(", start),
                   "empty": ("ceph_no_such_metric", start),
                   "nan": ("max by (ceph_daemon) (ceph_osd_stat_bytes_used * 0) / max by (ceph_daemon) "
                           "(ceph_osd_stat_bytes * 0)", start)}
        meta["rate_window"] = src.rate_window(step)
        meta["files"] = {}
        for name, (promql, first) in queries.items():
            status, body = server.raw("/api/v1/query_range", query=promql, start=first, end=end, step=step)
            (out / f"prom_{name}.json").write_bytes(body)
            meta["files"][f"prom_{name}.json"] = {"promql": promql, "start": first, "end": end, "step": step,
                                                  "http_status": status}
        meta["osds"] = [int(o) for o in mon("osd ls")]
        meta["ceph_version"] = mon("version")["version"]
        meta["prometheus_version"] = subprocess.run([promlab.PROMETHEUS, "--version"], capture_output=True,
                                                    text=True).stdout.splitlines()[0]
        meta["captured"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        meta["script"] = "scripts/capture_prometheus_fixture.py"
        meta["python"] = platform.python_version()
        (out / "capture.json").write_text(json.dumps(meta, indent=1) + "\n")
        print(json.dumps({k: v for k, v in meta.items() if k != "files"}, indent=1))
    finally:
        if server is not None:
            server.stop()
        promlab.disable_module(mon)
        mon.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conf", help="a running cluster's ceph.conf (default: a sandbox of its own)")
    ap.add_argument("outdir", nargs="?", default=str(ROOT / "tests" / "fixtures" / "history"))
    a = ap.parse_args()
    if a.conf:
        capture(Path(a.conf), Path(a.outdir))
        return
    d = tempfile.mkdtemp(prefix="ctpromcap-", dir="/tmp")
    try:
        conf = subprocess.run([*SANDBOX, "start", d, "--pool", "rbd:32"], check=True, capture_output=True,
                              text=True).stdout.strip().splitlines()[-1]
        capture(Path(conf), Path(a.outdir))
    finally:
        subprocess.run([*SANDBOX, "stop", d, "--purge"], capture_output=True)


if __name__ == "__main__":
    main()
