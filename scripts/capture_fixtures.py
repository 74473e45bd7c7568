#!/usr/bin/env python3
"""Capture the JSON fixtures under tests/fixtures/ from a real sandbox cluster.

    .venv/bin/python scripts/capture_fixtures.py [OUTDIR]

Starts its own sandbox (a temporary directory, a free port), writes some
objects, then records every command a snapshot needs in three states: healthy,
one OSD down, and OSDs/pools past the nearfull ratio. Stops the sandbox after.
Nothing here is typed by hand: the files are what Ceph answered.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cephtui.ceph.client import CephClient, ConnectionSpec  # noqa: E402
from cephtui.ceph.recording import RecordingClient  # noqa: E402
from cephtui.ceph.snapshot import STUCK_KINDS, SnapshotBuilder  # noqa: E402

SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]


def sandbox(*args: str) -> str:
    return subprocess.run([*SANDBOX, *args], check=True, capture_output=True, text=True).stdout.strip()


def wait_for(what: str, cond, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(1)
    raise SystemExit(f"timed out waiting for {what}")


def record(client: CephClient, path: Path, scenario: str) -> None:
    rec = RecordingClient(client)
    SnapshotBuilder(rec).build(pg_table=True, osd_tree=True, shadow=True)
    # Also what the comparisons and parsers cover beyond one build.
    rec.mon("osd stat")
    for kind in STUCK_KINDS:
        rec.mgr("pg dump_stuck", stuckops=[kind])
    version = client.mon("version")
    rec.save(path, {"scenario": scenario, "ceph_version": version.get("version", ""),
                    "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    print(f"wrote {path}", file=sys.stderr)


def checks(client: CephClient) -> set[str]:
    return set((client.mon("health").get("checks") or {}).keys())


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "fixtures" / "pacific"
    out.mkdir(parents=True, exist_ok=True)
    d = tempfile.mkdtemp(prefix="ctfix-", dir="/tmp")
    conf = sandbox("start", d, "--pool", "rbd:32", "--pool", "data:16")
    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    try:
        with client.handle.open_ioctx("rbd") as io:
            for i in range(200):
                io.write_full(f"obj{i}", bytes(64 * 1024))
        time.sleep(6)  # let the mgr report the new usage
        record(client, out / "healthy.json", "HEALTH_OK, 3/3 OSDs up and in, all PGs active+clean")

        sandbox("kill", d, "osd.2")
        wait_for("PG_DEGRADED", lambda: {"OSD_DOWN", "PG_DEGRADED"} <= checks(client))
        # PGs count as stuck after mon_pg_stuck_threshold (60 s) without being clean.
        wait_for("stuck PGs", lambda: client.mgr("pg dump_stuck", stuckops=["unclean"])["stuck_pg_stats"], 150)
        record(client, out / "osd_down.json", "osd.2 stopped: OSD_DOWN, PGs undersized+degraded")
        sandbox("revive", d, "osd.2")
        sandbox("start", d)  # waits for HEALTH_OK again

        client.mon_raw("osd set-nearfull-ratio", ratio=0.02)
        client.mon_raw("osd add-noout", ids=["0"])
        wait_for("OSD_NEARFULL", lambda: "OSD_NEARFULL" in checks(client))
        time.sleep(3)
        record(client, out / "nearfull.json", "nearfull ratio 0.02: OSD_NEARFULL and POOL_NEARFULL; noout on osd.0")
        client.mon_raw("osd rm-noout", ids=["0"])
        client.mon_raw("osd set-nearfull-ratio", ratio=0.85)
    finally:
        client.close()
        sandbox("stop", d, "--purge")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
