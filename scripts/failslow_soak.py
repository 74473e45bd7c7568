"""Soak the fail-slow ranking on a healthy cluster under load: every judgement it makes is printed, and every
OSD it names is a false positive (nothing is throttled here).

A rados writer (tests/cluster/slowing.py, 4 threads of 64 KiB writes) runs for the whole soak; `osd perf` is
sampled every 5 s (the mgr's stats period) and each new frame gives two judgements, the two ways `cephtui
doctor` judges:
- sampled: the last --window seconds (30, doctor's own sample when no recorder runs): the window's rule;
- recorded: every frame of the last HISTORY_SECONDS (900, what doctor reads of a recorder's history), where
  the recent rule (an episode of a minute, whatever came before) applies as well as the window's.

    /usr/bin/python3 scripts/sandbox.py start /tmp/slowsb --osds 6 --port 6910 --pool rbd:32
    PYTHONPATH=. .venv/bin/python scripts/failslow_soak.py /tmp/slowsb [--minutes 30] [--window 30]

Exit status 0 when no judgement named anyone, 1 otherwise.

Disk: the sandbox's OSDs are sparse files that grow under the writer and never shrink (measured: 15 GB for 6
OSDs in 25 minutes, at most 10 GB an OSD). Check `df` before a 30-minute soak and purge the sandbox after.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.doctor.failslow import HISTORY_SECONDS  # noqa: E402
from cephtui.ceph.errors import CephError  # noqa: E402
from cephtui.ceph.history.failslow import Window, frame_from_perf, places_from_tree  # noqa: E402
from cephtui.ceph.history.failslow_judge import rank  # noqa: E402
from cephtui.ceph.history.model import INTERVAL  # noqa: E402
from tests.cluster.slowing import cleanup_objects, client_load  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("box", type=Path, help="sandbox directory (its ceph.conf is used)")
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--window", type=float, default=30.0, help="seconds judged each time (default 30, doctor's)")
    p.add_argument("--pool", default="rbd")
    args = p.parse_args()
    conf = args.box / "ceph.conf"
    client = CephClient(ConnectionSpec(conffile=str(conf))).connect()
    places = places_from_tree(client.mon("osd tree"))
    frames: collections.deque = collections.deque()
    judged: collections.Counter = collections.Counter()  # per way of judging: "sampled", "recorded"
    named: collections.Counter = collections.Counter()  # judgements that named someone, per way
    per_osd: collections.Counter = collections.Counter()
    errors = 0
    worst_z: tuple[float, int, str] = (float("-inf"), -1, "")
    start = time.monotonic()
    try:
        with client_load(conf, args.pool):
            next_at = time.monotonic()
            while time.monotonic() - start < args.minutes * 60:
                time.sleep(max(0.0, next_at - time.monotonic()))
                next_at += INTERVAL
                try:
                    frames.append(frame_from_perf(time.time(), client.mgr("osd perf")))
                except CephError as e:
                    errors += 1
                    print(f"{time.strftime('%H:%M:%S')} osd perf: {e.message}", flush=True)
                    continue
                while frames and frames[-1].t - frames[0].t > HISTORY_SECONDS:
                    frames.popleft()
                # Half an interval of slack both ways: the frames come every 5 s give or take the call's own
                # time, and a strict bound would drop to 25 s of frames and skip every other judgement.
                if frames[-1].t - frames[0].t < args.window - INTERVAL / 2:
                    continue  # not even the sampled window is full yet
                tail = [f for f in frames if frames[-1].t - f.t <= args.window + INTERVAL / 2]
                line = [time.strftime("%H:%M:%S")]
                for way, judged_frames in (("sampled", tail), ("recorded", list(frames))):
                    span = judged_frames[-1].t - judged_frames[0].t
                    source = "sampled osd perf" if way == "sampled" else "recorded history (soak)"
                    report = rank(judged_frames, places, Window(span, len(judged_frames), source))
                    judged[way] += 1
                    names = [s.osd for s in report.suspects]
                    if names:
                        named[way] += 1
                        per_osd.update(names)
                    for s in report.scores:
                        if not s.suspect and s.z > worst_z[0]:
                            worst_z = (s.z, s.osd, f"{time.strftime('%H:%M:%S')}, {way}")
                    top = " ".join(f"osd.{s.osd}:{s.median_ms:.0f}ms/z{s.z:.1f}/{s.elevated:.0%}"
                                   for s in report.scores[:3])
                    line.append(f"{way} {len(judged_frames)} frames top: {top}"
                                + (f" FALSE POSITIVE: {names}" if names else ""))
                print("  |  ".join(line), flush=True)
    finally:
        client.close()
        cleanup_objects(conf, args.pool)
    minutes = (time.monotonic() - start) / 60
    print(f"\n{minutes:.1f} min, {judged['sampled']} judgements of a {args.window:.0f} s sampled window and "
          f"{judged['recorded']} of the recorded window (up to {HISTORY_SECONDS:.0f} s, recent rule included), "
          f"{errors} osd perf errors")
    print(f"false positives: {named['sampled']} sampled and {named['recorded']} recorded judgements named someone"
          + (f" ({dict(per_osd)})" if per_osd else ""))
    if worst_z[1] >= 0:
        print(f"highest z of an OSD not named: {worst_z[0]:.1f} (osd.{worst_z[1]} at {worst_z[2]})")
    named_rounds = sum(named.values())
    return 1 if named_rounds else 0


if __name__ == "__main__":
    raise SystemExit(main())
