"""Record `osd perf` frames from real fail-slow runs for the unit tests (tests/fixtures/history/failslow_REL.json).

On a sandbox with at least 6 OSDs, under a steady rados writer (tests/cluster/slowing.py), three scenarios:
  healthy   no fault
  one_osd   osd.2's process in a cgroup with 2 ms of CPU per 100 ms
  slow_host CRUSH hosts fh1 (osd.0,1), fh2 (osd.2,3), fh3 (osd.4,5); both OSDs of fh2 throttled, each its own cgroup
Each keeps its frames (every 5 s, from the first second of the fault: the transition is part of the record), the
`osd tree` it was judged with, and `health detail` at the end. Everything is undone (cgroups, CRUSH).

    /usr/bin/python3 scripts/sandbox.py start /tmp/slowsb --osds 6 --port 6910 --pool rbd:32
    PYTHONPATH=. .venv/bin/python scripts/capture_failslow_fixture.py /tmp/slowsb [--seconds 60]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient, ConnectionSpec  # noqa: E402
from cephtui.ceph.doctor.failslow import sample_frames  # noqa: E402
from tests.cluster.slowing import QUOTA_US, client_load, crush_hosts, osd_pid, throttled  # noqa: E402

LAYOUT = {"fh1": (0, 1), "fh2": (2, 3), "fh3": (4, 5)}


def cli(conf: Path):  # type: ignore[no-untyped-def]
    def ceph(*words: str) -> Any:
        out = subprocess.run(["ceph", "-c", str(conf), *words, "-f", "json"], capture_output=True, text=True,
                             check=True, timeout=60).stdout
        return json.loads(out) if out.strip() else None
    return ceph


def wait_clean(ceph: Any, timeout: float = 120) -> None:
    """All PGs active+clean after a CRUSH change (the writer keeps writing meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pgs = ceph("pg", "stat")
        summary = pgs.get("pg_summary", pgs)
        states = summary.get("num_pg_by_state", [])
        if states and all(s["name"] == "active+clean" for s in states):
            return
        time.sleep(1)
    raise SystemExit("PGs did not settle active+clean")


def record(client: CephClient, seconds: float, throttled_osds: list[int]) -> dict[str, Any]:
    frames = sample_frames(client, seconds)
    return {"throttled": throttled_osds, "tree": client.mon("osd tree"),
            "health": client.mon("health", detail="detail"),
            "frames": [{"t": round(f.t, 3), "commit_ms": {str(k): v for k, v in f.commit_ms.items()},
                        "apply_ms": {str(k): v for k, v in f.apply_ms.items()}} for f in frames]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("box", type=Path)
    p.add_argument("--seconds", type=float, default=60)
    args = p.parse_args()
    conf = args.box / "ceph.conf"
    ceph = cli(conf)
    client = CephClient(ConnectionSpec(conffile=str(conf))).connect()
    version = ceph("version")["version"]
    release = version.split()[-2] if "(" in version else "unknown"
    scenarios: dict[str, Any] = {}
    try:
        with client_load(conf):
            time.sleep(10)  # the writer's first seconds (pool warm-up) are not "healthy under load" yet
            scenarios["healthy"] = record(client, args.seconds, [])
            with throttled([osd_pid(args.box, 2)]):
                scenarios["one_osd"] = record(client, args.seconds, [2])
            with crush_hosts(ceph, {h: list(o) for h, o in LAYOUT.items()}):
                wait_clean(ceph)
                with contextlib.ExitStack() as stack:
                    for osd in LAYOUT["fh2"]:
                        stack.enter_context(throttled([osd_pid(args.box, osd)]))
                    scenarios["slow_host"] = record(client, args.seconds, list(LAYOUT["fh2"]))
            wait_clean(ceph)
    finally:
        client.close()
    out = ROOT / "tests" / "fixtures" / "history" / f"failslow_{release}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"script": "scripts/capture_failslow_fixture.py", "ceph_version": version,
            "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": args.seconds,
            "load": "4 threads of 4 KiB in-place writes over 64 objects of 64 KiB each (tests/cluster/slowing.py)",
            "fault": f"cgroup v1 cpu.cfs_quota_us={QUOTA_US} per 100000 us period, one cgroup per throttled OSD",
            "layout": {h: list(o) for h, o in LAYOUT.items()}}
    out.write_text(json.dumps({"meta": meta, "scenarios": scenarios}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
