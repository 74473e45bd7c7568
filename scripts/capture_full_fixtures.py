#!/usr/bin/env python3
"""Capture the fullness fixtures under tests/fixtures/<release>/ from a real sandbox cluster.

    .venv/bin/python scripts/capture_full_fixtures.py [OUTDIR]

OUTDIR defaults to tests/fixtures/<release>/, the release the sandbox's own Ceph reports
(see scripts/capturelib.py); RELEASE.json there records what made each file.

Starts its own sandbox (3 OSDs, pool `full` of size 2, so that removing one OSD moves data
onto the two others), writes about 300 MiB, and records what the removal preflight asks
(`osd dump`, `osd df`, `osd ok-to-stop`, `pg dump`) plus `health detail` in four states,
each made with the cluster's own commands:

- removal_ok.json: Ceph's default ratios; removing osd.1 is fine capacity-wise.
- removal_nearfull.json: ratios moved so that the fullest OSD after removing osd.1 would pass
  nearfull but not backfillfull (no OSD is past any ratio now).
- removal_backfillfull.json: the same, but past backfillfull (and below full).
- full.json: filled with scripts/fill_sandbox.py until OSD_FULL; also every command a
  snapshot needs, for the Health pane.

Stops and purges the sandbox after. Nothing is typed by hand: the files are what Ceph answered.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import captured_cluster, wait_for  # noqa: E402

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.ops.fillcalc import project_removal  # noqa: E402
from cephtui.ceph.recording import RecordingClient  # noqa: E402
from cephtui.ceph.snapshot.builder import SnapshotBuilder  # noqa: E402
from cephtui.ceph.workflows.removal_checks import preflight  # noqa: E402

FILL = [sys.executable, str(ROOT / "scripts" / "fill_sandbox.py")]
REMOVING = [1]


def checks(client: CephClient) -> set[str]:
    """The raised health checks, without muted ones (a distro quirk muted for the capture)."""
    raised = client.mon("health").get("checks") or {}
    return {code for code, c in raised.items() if not c.get("muted")}



def record(client: CephClient, path: Path, scenario: str, snapshot: bool = False) -> None:
    rec = RecordingClient(client)
    if snapshot:
        SnapshotBuilder(rec).build(pg_table=True, osd_tree=True)
    preflight(rec, REMOVING)
    rec.mon("health", detail="detail")
    version = client.mon("version")
    rec.save(path, {"scenario": scenario, "ceph_version": version.get("version", ""),
                    "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "removing": REMOVING})
    print(f"wrote {path}", file=sys.stderr)


def set_ratios(client: CephClient, nearfull: float, backfillfull: float, full: float) -> None:
    for name, value in (("full", full), ("backfillfull", backfillfull), ("nearfull", nearfull)):
        client.mon_raw(f"osd set-{name}-ratio", ratio=round(value, 5))


def main() -> int:
    with captured_cluster("ctfull-", sys.argv, "--pool", "full:16") as cap:
        client, out = cap.client, cap.out
        client.mon_raw("osd pool set", pool="full", var="size", val="2")
        with client.handle.open_ioctx("full") as io:
            for i in range(75):
                io.write_full(f"data-{i}", b"d" * (4 << 20))
        wait_for("usage in osd df", lambda: min(n["kb_used_data"] for n in client.mgr("osd df")["nodes"]) > 150_000)
        wait_for("HEALTH_OK", lambda: not checks(client))
        record(client, out / "removal_ok.json", "size-2 pool on 3 OSDs, ~300 MiB, default ratios; removing osd.1")

        proj = project_removal(client.mgr("osd df"), client.mon("osd dump"), REMOVING)
        top = proj.fullest
        assert top is not None
        now = max(f.now for f in proj.remaining)
        u, p = max(now, max(n["kb_used"] / n["kb"] for n in client.mgr("osd df")["nodes"])), top.after
        gap = p - u
        set_ratios(client, u + 0.5 * gap, p + gap, p + 2 * gap)
        time.sleep(8)  # the OSDs re-evaluate their full state on their next stats report
        wait_for("no fullness check", lambda: not checks(client) & {"OSD_NEARFULL", "OSD_BACKFILLFULL", "OSD_FULL"})
        record(client, out / "removal_nearfull.json",
               f"ratios moved: after removing osd.1 the fullest OSD passes nearfull ({u:.4f} now, {p:.4f} after)")
        set_ratios(client, u + 0.3 * gap, u + 0.6 * gap, p + gap)
        time.sleep(8)
        wait_for("no fullness check", lambda: not checks(client) & {"OSD_NEARFULL", "OSD_BACKFILLFULL", "OSD_FULL"})
        record(client, out / "removal_backfillfull.json",
               f"ratios moved: after removing osd.1 the fullest OSD passes backfillfull ({u:.4f} now, {p:.4f} after)")

        subprocess.run([*FILL, cap.conf, "full"], check=True, stdout=sys.stderr)
        time.sleep(3)
        record(client, out / "full.json", "filled on purpose (scripts/fill_sandbox.py): OSD_FULL and POOL_FULL",
               snapshot=True)
        cap.note(["removal_ok.json", "removal_nearfull.json", "removal_backfillfull.json", "full.json"], __file__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
