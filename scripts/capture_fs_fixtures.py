#!/usr/bin/env python3
"""Capture tests/fixtures/<release>/cephfs.json and cephfs_standby_replay.json: the File systems tab's answers.

    .venv/bin/python scripts/capture_fs_fixtures.py [OUTDIR]
    scripts/chroot.sh run trixie -- .venv-trixie/bin/python scripts/capture_fs_fixtures.py    (Reef)

Its own sandbox with a file system (`sandbox.py start DIR --fs cephfs`: mds.a active, mds.b standby) and two real
libcephfs clients (scripts/cephfs_client.py): one holding a file open, one writing and reading in a loop. Records
what cephtui asks for the tab and `cephtui fs`: `fs dump`, the mgr's `fs status cephfs`, `df detail`, `versions`,
`mgr module ls` and rank 0's `session ls`. Then standby-replay is allowed, and the same again once mds.b follows
rank 0. Stops the clients and purges the sandbox after. Nothing typed by hand.
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

from cephtui.ceph.errors import CephError  # noqa: E402
from cephtui.ceph.recording import RecordingClient  # noqa: E402

FS = "cephfs"


def record(client: object, path: Path, meta: dict) -> None:
    rec = RecordingClient(client)  # type: ignore[arg-type]
    rec.mon("fs dump")
    for ask in (lambda: rec.mgr("fs status", fs=FS), lambda: rec.mgr("mgr module ls")):
        try:  # Debian's Reef mgr runs no Python module: the refusal is recorded as it came
            ask()
        except CephError:
            pass
    rec.mon("df", detail="detail")
    rec.mon("versions")
    rec.mds_tell(f"{FS}:0", "session ls")
    rec.save(path, {**meta, "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    print(f"wrote {path}", file=sys.stderr)


def main() -> int:
    with captured_cluster("ctfs-", sys.argv, "--pool", "rbd:32", "--fs", FS) as cap:
        client, out = cap.client, cap.out
        clients = [subprocess.Popen(["/usr/bin/python3", str(ROOT / "scripts" / "cephfs_client.py"), cap.conf,
                                     mode, path, *extra], stdout=subprocess.PIPE, text=True)
                   for mode, path, extra in (("hold", "/held.txt", []), ("io", "/io.bin", ["--size", "4194304"]))]
        try:
            for c in clients:
                line = c.stdout.readline() if c.stdout else ""
                if line.strip() != "ready":
                    raise SystemExit(f"a CephFS client did not mount: {line!r}")

            def two_sessions() -> bool:
                return len(client.mds_tell(f"{FS}:0", "session ls")) == 2

            wait_for("both clients' sessions", two_sessions)

            def counters() -> bool:  # the mgr has sampled the MDS (Reef on Debian: no fs status at all)
                try:
                    st = client.mgr("fs status", fs=FS)
                except CephError:
                    return True
                return any(e.get("caps") for e in st.get("mdsmap", []))

            wait_for("the mgr's counters of rank 0", counters)
            time.sleep(6)  # two mgr samples (mgr_stats_period 5 s): a request rate, not a first sample
            meta = {"scenario": f"fs {FS}: mds.a active, mds.b standby; two libcephfs clients (one holds /held.txt "
                                "open, one writes and reads /io.bin in a loop)", "ceph_version": cap.version}
            record(client, out / "cephfs.json", meta)

            client.mon_raw("fs set", fs_name=FS, var="allow_standby_replay", val="true")

            def replaying() -> bool:
                info = client.mon("fs dump")["filesystems"][0]["mdsmap"]["info"]
                return any(d["state"] == "up:standby-replay" for d in info.values())

            wait_for("mds.b in standby-replay", replaying)
            record(client, out / "cephfs_standby_replay.json",
                   {**meta, "scenario": meta["scenario"] + "; then allow_standby_replay true: mds.b follows rank 0"})
        finally:
            for c in clients:
                c.kill()
                c.wait()
        cap.note(["cephfs.json", "cephfs_standby_replay.json"], __file__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
