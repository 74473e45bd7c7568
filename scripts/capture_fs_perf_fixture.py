#!/usr/bin/env python3
"""Capture tests/fixtures/<release>/cephfs_perf_off.json, cephfs_perf.json and cephfs_perf_later.json: the File
systems tab's IO view (`fs perf stats`, the mgr's stats module).

    .venv/bin/python scripts/capture_fs_perf_fixture.py [OUTDIR]
    scripts/chroot.sh run trixie -- .venv-trixie/bin/python scripts/capture_fs_perf_fixture.py    (Reef)

Its own sandbox with a file system and two real libcephfs clients (scripts/cephfs_client.py): one holding a file
open, one writing and reading 1 MiB at a time in a loop. First `fs perf stats` as the mgr answers with the stats
module off (its default); then `ceph mgr module enable stats`, and once the writing client's metrics have come
(or the mgr has refused for a minute) the answer twice, at least SECONDS apart, for the rates. Where the mon refuses the
module (Debian's Reef mgr runs no PyO3 module: "cannot run on the active manager daemon") only the first answer
is kept. The clients' `session ls` is recorded beside each. Stops the clients and purges the sandbox after.
Nothing typed by hand.
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
SECONDS = 6.0  # between the two answers: three MDS metric updates (mds_metrics_update_interval 2 s)


def record(client: object, path: Path, meta: dict) -> None:
    rec = RecordingClient(client)  # type: ignore[arg-type]
    try:
        rec.mgr("fs perf stats")
    except CephError as e:  # recorded as the mgr said it
        print(f"fs perf stats: {e.message}", file=sys.stderr)
    rec.mds_tell(f"{FS}:0", "session ls")
    rec.save(path, {**meta, "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "monotonic": time.monotonic()})
    print(f"wrote {path}", file=sys.stderr)


def main() -> int:
    with captured_cluster("ctfsperf-", sys.argv, "--pool", "rbd:8", "--fs", FS) as cap:
        client, out = cap.client, cap.out
        clients = [subprocess.Popen(["/usr/bin/python3", str(ROOT / "scripts" / "cephfs_client.py"), cap.conf,
                                     mode, path, *extra], stdout=subprocess.PIPE, text=True)
                   for mode, path, extra in (("hold", "/held.txt", []), ("io", "/io.bin", []))]
        files = ["cephfs_perf_off.json", "cephfs_perf.json"]
        try:
            for c in clients:
                line = c.stdout.readline() if c.stdout else ""
                if line.strip() != "ready":
                    raise SystemExit(f"a CephFS client did not mount: {line!r}")
            wait_for("both clients' sessions", lambda: len(client.mds_tell(f"{FS}:0", "session ls")) >= 2)
            meta = {"scenario": f"fs {FS}: two libcephfs clients (one holds /held.txt open, one writes and reads "
                                "/io.bin 1 MiB at a time in a loop)", "ceph_version": cap.version}
            record(client, out / "cephfs_perf_off.json", {**meta, "scenario": meta["scenario"] +
                                                          "; the mgr's stats module off (its default)"})
            try:
                client.mon_raw("mgr module enable", module="stats")
            except CephError as e:  # Debian's Reef: "cannot run on the active manager daemon: PyO3 ..."
                print(f"mgr module enable stats refused: {e.message}", file=sys.stderr)
                files = ["cephfs_perf_off.json"]
                return 0
            writer = clients[1].pid
            ids = {s["id"] for s in client.mds_tell(f"{FS}:0", "session ls")
                   if s.get("client_metadata", {}).get("pid") == str(writer)}
            started = time.monotonic()

            def metrics_or_refusal() -> bool:
                try:
                    answer = client.mgr("fs perf stats")
                except CephError:
                    return time.monotonic() - started > 60
                mine = [m for c, m in answer.get("global_metrics", {}).get(FS, {}).items()
                        if int(c.partition(".")[2]) in ids]
                counters = answer.get("global_counters", [])
                at = counters.index("write_io_sizes") if "write_io_sizes" in counters else -1
                return bool(mine) and at >= 0 and mine[0][at][1] > 0

            wait_for("the writing client's metrics (or a minute of refusals)", metrics_or_refusal, timeout=120)
            scenario = meta["scenario"] + "; the stats module enabled, the writer's metrics in"
            record(client, out / "cephfs_perf.json", {**meta, "scenario": scenario})
            time.sleep(SECONDS)
            # Tentacle's mgr once answered with no client at all 6 s after a full answer (its query started
            # again): the second answer is taken once the writer is in it again, whatever the time between.
            wait_for("the writer's metrics again", metrics_or_refusal, timeout=120)
            record(client, out / "cephfs_perf_later.json", {**meta, "scenario": scenario + f", {SECONDS:g} s on"})
            files.append("cephfs_perf_later.json")
        finally:
            for c in clients:
                c.kill()
                c.wait()
            cap.note(files, __file__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
