"""Record `osd perf` frames from real fail-slow runs for the unit tests (tests/fixtures/history/failslow_REL.json).

On a sandbox with at least 6 OSDs, under a steady rados writer (tests/cluster/slowing.py), three scenarios:
  healthy   no fault
  one_osd   osd.2's process in a cgroup with 2 ms of CPU per 100 ms
  slow_host CRUSH hosts fh1 (osd.0,1), fh2 (osd.2,3), fh3 (osd.4,5); both OSDs of fh2 throttled, each its own cgroup
Each keeps its frames (every 5 s, from the first second of the fault: the transition is part of the record), the
`osd tree` it was judged with, and `health detail` at the end. Everything is undone (cgroups, CRUSH).

    /usr/bin/python3 scripts/sandbox.py start /tmp/slowsb --osds 6 --port 6910 --pool rbd:32
    PYTHONPATH=. .venv/bin/python scripts/capture_failslow_fixture.py /tmp/slowsb [--seconds 60]

--timeline records one continuous run as a recorder sees a disk turn slow and recover
(tests/fixtures/history/timeline_REL_Nosds[_CLASS].json): --healthy seconds under load, then --slow seconds
with one OSD throttled, then --after seconds with the throttle lifted, with the moments of the throttle and its
lifting. On 3 OSDs each OSD gets a CRUSH host of its own (one per node, the Proxmox minimum); --small-class
puts the last two OSDs in a device class of their own (ssd) and throttles the last one, so that class has one
peer per OSD and only each OSD's own recorded past can judge it.

    PYTHONPATH=. .venv/bin/python scripts/capture_failslow_fixture.py /tmp/slowsb --timeline [--small-class]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.doctor.failslow import sample_frames  # noqa: E402
from cephtui.ceph.history.failslow import frame_from_perf, latency  # noqa: E402
from cephtui.ceph.history.model import INTERVAL, OsdFrame  # noqa: E402
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
            "frames": [_frame_json(f) for f in frames]}


def timeline(client: CephClient, box: Path, culprit: int, healthy: float, slow: float,
             after: float, spike: tuple[float, float] | None = None) -> dict[str, Any]:
    """One continuous recording, a frame every INTERVAL as the recorder takes them: healthy, then `culprit`
    throttled, then the throttle lifted. The moments of both changes are kept (unix seconds). `spike` (at, for):
    `at` seconds after the lift the throttle again for `for` seconds, once: a lone slow moment, as CI's load gave
    one (marks "spike" and "spike_end")."""
    frames: list[OsdFrame] = []
    marks: dict[str, float] = {}
    health: dict[str, Any] = {}
    tree: Any = None
    start = time.time()
    ends = (start + healthy, start + healthy + slow, start + healthy + slow + after)
    with contextlib.ExitStack() as stack:
        while time.time() < ends[2]:
            now = time.time()
            if "throttled" not in marks and now >= ends[0]:
                stack.enter_context(throttled([osd_pid(box, culprit)]))
                marks["throttled"] = time.time()
            if "lifted" not in marks and now >= ends[1]:
                tree, health = client.mon("osd tree"), client.mon("health", detail="detail")
                stack.close()
                marks["lifted"] = time.time()
            if spike and "lifted" in marks and "spike" not in marks and now >= marks["lifted"] + spike[0]:
                stack.enter_context(throttled([osd_pid(box, culprit)]))
                marks["spike"] = time.time()
            if spike and "spike" in marks and "spike_end" not in marks and now >= marks["spike"] + spike[1]:
                stack.close()
                marks["spike_end"] = time.time()
            frames.append(frame_from_perf(time.time(), client.mgr("osd perf")))
            print(time.strftime("%H:%M:%S"), sorted(latency(frames[-1]).items()), flush=True)
            time.sleep(max(0.0, INTERVAL - (time.time() - now)))
    return {"throttled": [culprit], "marks": {k: round(v, 3) for k, v in marks.items()},
            "phases": {"healthy": healthy, "slow": slow, "after": after}, "tree": tree, "health": health,
            "frames": [_frame_json(f) for f in frames]}


def _frame_json(f: OsdFrame) -> dict[str, Any]:
    return {"t": round(f.t, 3), "commit_ms": {str(k): v for k, v in f.commit_ms.items()},
            "apply_ms": {str(k): v for k, v in f.apply_ms.items()}}


@contextlib.contextmanager
def device_class(ceph: Any, cls: str, osds: list[int]) -> Iterator[None]:
    """`osd crush set-device-class CLS osd.N…` for real, each OSD's class put back on exit."""
    tree = ceph("osd", "tree")
    before = {n["id"]: n.get("device_class", "") for n in tree["nodes"] if n["id"] in osds}
    names = [f"osd.{o}" for o in osds]
    ceph("osd", "crush", "rm-device-class", *names)
    ceph("osd", "crush", "set-device-class", cls, *names)
    try:
        yield
    finally:
        ceph("osd", "crush", "rm-device-class", *names)
        for o, c in before.items():
            if c:
                ceph("osd", "crush", "set-device-class", c, f"osd.{o}")


def main_timeline(args: argparse.Namespace, ceph: Any, client: CephClient, version: str, release: str) -> int:
    n = len([x for x in ceph("osd", "tree")["nodes"] if x["type"] == "osd"])
    culprit = n - 1 if args.small_class else 1
    with contextlib.ExitStack() as stack:
        stack.enter_context(client_load(args.box / "ceph.conf"))
        if n == 3:  # one OSD per node, as a 3-node homelab has them
            stack.enter_context(crush_hosts(ceph, {f"node{i + 1}": [i] for i in range(3)}))
            wait_clean(ceph)
        if args.small_class:
            stack.enter_context(device_class(ceph, "ssd", [n - 2, n - 1]))
        time.sleep(10)  # the writer's first seconds (pool warm-up) are not "healthy under load" yet
        scenario = timeline(client, args.box, culprit, args.healthy, args.slow, args.after,
                            (args.spike_at, args.spike_for) if args.spike_at is not None else None)
    wait_clean(ceph)
    suffix = "_ssd2" if args.small_class else ""
    name = f"spike_{release}_{n}osds" if args.spike_at is not None else f"timeline_{release}_{n}osds{suffix}"
    out = ROOT / "tests" / "fixtures" / "history" / f"{name}.json"
    meta = {"script": "scripts/capture_failslow_fixture.py --timeline" + (" --small-class" if args.small_class else "")
            + (f" --spike-at {args.spike_at:g} --spike-for {args.spike_for:g}" if args.spike_at is not None else ""),
            "ceph_version": version, "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "osds": n,
            "load": "4 threads of 4 KiB in-place writes over 64 objects of 64 KiB each (tests/cluster/slowing.py)",
            "fault": f"cgroup v1 cpu.cfs_quota_us={QUOTA_US} per 100000 us period on osd.{culprit}",
            "small_class": [n - 2, n - 1] if args.small_class else []}
    out.write_text(json.dumps({"meta": meta, "scenario": scenario}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("box", type=Path)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--timeline", action="store_true", help="one run: healthy, one OSD slow, lifted")
    p.add_argument("--healthy", type=float, default=150)
    p.add_argument("--slow", type=float, default=150)
    p.add_argument("--after", type=float, default=120)
    p.add_argument("--small-class", action="store_true", help="the last two OSDs in a class of their own")
    p.add_argument("--spike-at", type=float, default=None,
                   help="--timeline: throttle the OSD again this many seconds after the lift, once (spike_*.json)")
    p.add_argument("--spike-for", type=float, default=4, help="... for this many seconds")
    args = p.parse_args()
    conf = args.box / "ceph.conf"
    ceph = cli(conf)
    client = CephClient(ConnectionSpec(conffile=str(conf))).connect()
    version = ceph("version")["version"]
    release = version.split()[-2] if "(" in version else "unknown"
    if args.timeline:
        try:
            return main_timeline(args, ceph, client, version, release)
        finally:
            client.close()
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
