#!/usr/bin/env python3
"""Capture the JSON fixtures under tests/fixtures/ from a real sandbox cluster.

    .venv/bin/python scripts/capture_fixtures.py [OUTDIR]
    scripts/chroot.sh run trixie -- .venv-trixie/bin/python scripts/capture_fixtures.py

OUTDIR defaults to tests/fixtures/<release>/, the release the sandbox's own Ceph reports
(see scripts/capturelib.py); RELEASE.json there records what made each file.

Starts its own sandbox (a temporary directory, a free port), writes some
objects, then records every command a snapshot needs in three states: healthy,
one OSD down, and OSDs/pools past the nearfull ratio. Stops the sandbox after.
Nothing here is typed by hand: the files are what Ceph answered.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import captured_cluster, sandbox, wait_for  # noqa: E402

from cephtui.ceph.answers import loads  # noqa: E402
from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.recording import RecordingClient, command_key  # noqa: E402
from cephtui.ceph.snapshot.builder import STUCK_KINDS, SnapshotBuilder  # noqa: E402


def record(client: CephClient, path: Path, scenario: str, expect: frozenset[str] = frozenset()) -> None:
    """Record a snapshot's commands; again (a few times) until the recorded `health detail` holds
    every check in `expect`: a check the cluster raised a moment ago can be re-evaluated away."""
    raised: set[str] = set()
    for _ in range(10):
        rec = RecordingClient(client)
        SnapshotBuilder(rec).build(pg_table=True, osd_tree=True, shadow=True)
        # Also what the comparisons and parsers cover beyond one build.
        rec.mon("osd stat")
        for kind in STUCK_KINDS:
            rec.mgr("pg dump_stuck", stuckops=[kind])
        health = loads(rec.records[command_key("mon", "health", {"format": "json", "detail": "detail"})]["out"])
        raised = {code for code, c in (health.get("checks") or {}).items() if not c.get("muted")}
        if expect <= raised:
            version = client.mon("version")
            rec.save(path, {"scenario": scenario, "ceph_version": version.get("version", ""),
                            "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            print(f"wrote {path}", file=sys.stderr)
            return
        time.sleep(2)
    raise SystemExit(f"{path.name}: {sorted(expect - raised)} not raised while recording")


def checks(client: CephClient) -> set[str]:
    """The raised health checks, without muted ones (a distro quirk muted for the capture)."""
    raised = client.mon("health").get("checks") or {}
    return {code for code, c in raised.items() if not c.get("muted")}


def main() -> int:
    with captured_cluster("ctfix-", sys.argv, "--pool", "rbd:32", "--pool", "data:16") as cap:
        client, out = cap.client, cap.out
        with client.handle.open_ioctx("rbd") as io:
            for i in range(200):
                io.write_full(f"obj{i}", bytes(64 * 1024))
        # The mgr reports usage a few seconds late: wait until `df` counts every object written.
        wait_for("200 objects in df", lambda: any(
            p["name"] == "rbd" and p["stats"]["objects"] == 200 for p in client.mon("df")["pools"]))
        time.sleep(3)  # and one more stats report, so that every daemon's figures agree
        record(client, out / "healthy.json", "HEALTH_OK, 3/3 OSDs up and in, all PGs active+clean")

        sandbox("kill", cap.dir, "osd.2")
        wait_for("PG_DEGRADED", lambda: {"OSD_DOWN", "PG_DEGRADED"} <= checks(client))
        # PGs count as stuck after mon_pg_stuck_threshold (60 s) without being clean.
        wait_for("stuck PGs", lambda: client.mgr("pg dump_stuck", stuckops=["unclean"])["stuck_pg_stats"], 150)
        record(client, out / "osd_down.json", "osd.2 stopped: OSD_DOWN, PGs undersized+degraded",
               frozenset({"OSD_DOWN", "PG_DEGRADED"}))
        sandbox("revive", cap.dir, "osd.2")
        sandbox("start", cap.dir)  # waits for HEALTH_OK again

        # Half the least-used OSD's use: every OSD is past it, whatever this release's BlueStore
        # overhead (Pacific's OSDs reported 3% used, Reef's 0.4%, Nautilus's 10% for the same data;
        # Nautilus's OSDs judge their fullness without that overhead, so the data alone counts too).
        ratio = max(round(min(min(n["utilization"] / 100, n["kb_used_data"] / n["kb"])
                              for n in client.mgr("osd df")["nodes"]) / 2, 5), 0.00001)
        client.mon_raw("osd set-nearfull-ratio", ratio=ratio)
        client.mon_raw("osd add-noout", ids=["0"])
        expect = {"OSD_NEARFULL", "POOL_NEARFULL", "OSD_FLAGS"}
        wait_for(" and ".join(sorted(expect)), lambda: expect <= checks(client))
        time.sleep(3)
        record(client, out / "nearfull.json",
               f"nearfull ratio {ratio}: every OSD past it, {' and '.join(sorted(expect))}; noout on osd.0",
               frozenset(expect))
        client.mon_raw("osd rm-noout", ids=["0"])
        client.mon_raw("osd set-nearfull-ratio", ratio=0.85)
        cap.note(["healthy.json", "osd_down.json", "nearfull.json"], __file__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
