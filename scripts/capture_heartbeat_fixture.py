"""Record the mgr's heartbeat ping times from real fail-slow runs (tests/fixtures/history/heartbeat_REL.json).

The same sandbox, load and faults as capture_failslow_fixture.py (a 6-OSD sandbox, a steady rados writer,
osd.2's process throttled by a cgroup; then CRUSH hosts fh1-fh3 and both OSDs of fh2 throttled). After each
fault has lasted `--seconds` (the mgr's averages are over 1 minute: at least 60), it keeps
`ceph tell mgr dump_osd_network 0` (every pair, so a test can apply any threshold) and `osd tree`. Everything
is undone (cgroups, CRUSH).

    /usr/bin/python3 scripts/sandbox.py start /tmp/slowsb --osds 6 --port 6910 --pool rbd:32
    PYTHONPATH=. .venv/bin/python scripts/capture_heartbeat_fixture.py /tmp/slowsb [--seconds 75]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.capture_failslow_fixture import LAYOUT, cli, wait_clean  # noqa: E402
from tests.cluster.slowing import QUOTA_US, client_load, crush_hosts, osd_pid, throttled  # noqa: E402


def record(ceph: Any, seconds: float, throttled_osds: list[int]) -> dict[str, Any]:
    time.sleep(seconds)  # the 1-minute averages fill with the fault
    return {"throttled": throttled_osds, "seconds": seconds, "tree": ceph("osd", "tree"),
            "network": ceph("tell", "mgr", "dump_osd_network", "0")}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("box", type=Path)
    p.add_argument("--seconds", type=float, default=75)
    args = p.parse_args()
    conf = args.box / "ceph.conf"
    ceph = cli(conf)
    version = ceph("version")["version"]
    release = version.split()[-2] if "(" in version else "unknown"
    scenarios: dict[str, Any] = {}
    with client_load(conf):
        scenarios["healthy"] = record(ceph, args.seconds, [])
        with throttled([osd_pid(args.box, 2)]):
            scenarios["one_osd"] = record(ceph, args.seconds, [2])
        with crush_hosts(ceph, {h: list(o) for h, o in LAYOUT.items()}):
            wait_clean(ceph)
            time.sleep(60)  # the averages forget the one-OSD fault
            with contextlib.ExitStack() as stack:
                for osd in LAYOUT["fh2"]:
                    stack.enter_context(throttled([osd_pid(args.box, osd)]))
                scenarios["slow_host"] = record(ceph, args.seconds, list(LAYOUT["fh2"]))
        wait_clean(ceph)
    out = ROOT / "tests" / "fixtures" / "history" / f"heartbeat_{release}.json"
    meta = {"script": "scripts/capture_heartbeat_fixture.py", "ceph_version": version,
            "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": args.seconds,
            "load": "4 threads of 4 KiB in-place writes over 64 objects of 64 KiB each (tests/cluster/slowing.py)",
            "fault": f"cgroup v1 cpu.cfs_quota_us={QUOTA_US} per 100000 us period, one cgroup per throttled OSD",
            "layout": {h: list(o) for h, o in LAYOUT.items()}}
    out.write_text(json.dumps({"meta": meta, "scenarios": scenarios}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
