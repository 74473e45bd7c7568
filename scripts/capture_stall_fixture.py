#!/usr/bin/env python3
"""Capture tests/fixtures/<release>/osd_map_stall.json: where a bench's timed-out ops wait after an OSD died.

    .venv/bin/python scripts/capture_stall_fixture.py [OUTDIR]

OUTDIR defaults to tests/fixtures/<release>/, the release the sandbox's own Ceph reports
(see scripts/capturelib.py); RELEASE.json there records what made each file.

Its own sandbox: pool `strict` (size 3, min_size 3) and pool `one` (size 1), osd.1 killed with
SIGKILL; records `osd dump` and `osd map POOL OBJECT` for a few objects of each pool, as the
bench's diagnosis asks them. Stops and purges the sandbox after. Nothing typed by hand.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import captured_cluster, sandbox  # noqa: E402

from cephtui.ceph.client import CephError  # noqa: E402
from cephtui.ceph.recording import RecordingClient  # noqa: E402


def main() -> int:
    with captured_cluster("ctstall-", sys.argv, "--pool", "strict:8") as cap:
        client, out = cap.client, cap.out
        client.mon_raw("osd pool set", pool="strict", var="min_size", val="3")
        try:  # Octopus and later refuse size 1 unless allowed; Nautilus has no such option
            client.mon_raw("config set", who="global", name="mon_allow_pool_size_one", value="true")
        except CephError as e:
            if "unrecognized config option" not in e.message:
                raise
        client.mon_raw("osd pool create", pool="one", pg_num=8)
        client.mon_raw("osd pool set", pool="one", var="size", val="1", yes_i_really_mean_it=True)
        time.sleep(5)
        sandbox("kill", cap.dir, "osd.1", "--hard")
        deadline = time.monotonic() + 60
        while any(o["osd"] == 1 and o["up"] for o in client.mon("osd dump")["osds"]):
            if time.monotonic() > deadline:
                raise SystemExit("osd.1 not marked down")
            time.sleep(1)
        rec = RecordingClient(client)
        rec.mon("osd dump")
        names = {"strict": [f"benchmark_data_h_1_object{i}" for i in range(3)], "one": []}
        for i in range(40):  # objects of the size-1 pool that lived on osd.1: no OSD acting now
            name = f"benchmark_data_h_1_object{i}"
            if client.mon("osd map", pool="one", object=name)["acting_primary"] < 0:
                names["one"].append(name)
            if len(names["one"]) == 2:
                break
        for pool, objs in names.items():
            for name in objs:
                rec.mon("osd map", pool=pool, object=name)
        rec.save(out / "osd_map_stall.json", {
            "scenario": "osd.1 killed (SIGKILL); pool strict size 3 min_size 3, pool one size 1; osd map of objects",
            "ceph_version": cap.version, "objects": names,
            "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        print(f"wrote {out / 'osd_map_stall.json'}", file=sys.stderr)
        cap.note(["osd_map_stall.json"], __file__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
