#!/usr/bin/env python3
"""Capture tests/fixtures/<release>/cephfs_stuck_*.json: a CephFS client that holds caps and stops answering, and the
request of another client that waits for it, as the MDS shows them (the File systems tab's slow requests).

    .venv/bin/python scripts/capture_fs_stuck_fixture.py [OUTDIR]
    scripts/chroot.sh run trixie -- .venv-trixie/bin/python scripts/capture_fs_stuck_fixture.py    (Reef)

As it happens in life, on the sandbox's defaults: client A (scripts/cephfs_client.py `hold`) writes /held.txt and
keeps it open, holding its caps; A is stopped (SIGSTOP, every thread); client B opens /held.txt for writing (`try`),
which needs A to give up caps it cannot answer for, so B's open waits at the MDS. Recorded (rank 0's answers:
`dump_ops_in_flight`, `dump_blocked_ops`, `session ls`, `dump inode` of the file, and `health detail`):
  cephfs_stuck_early.json    a few seconds into B's wait
  cephfs_stuck_slow.json     once the MDS reports it (MDS_SLOW_REQUEST, after mds_op_complaint_time), or B's
                             wait ended first (A's session went stale), whichever comes
Then A is evicted (`client evict id=A`) and B's open completes:
  cephfs_stuck_evicted.json  after the eviction, B's open done
The times of each step are in the files' meta. Stops the clients and purges the sandbox after. Nothing typed by hand.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import captured_cluster, stop_process, wait_for  # noqa: E402

from cephtui.ceph.errors import CephError  # noqa: E402
from cephtui.ceph.recording import RecordingClient  # noqa: E402

FS = "cephfs"
CLIENT = ["/usr/bin/python3", str(ROOT / "scripts" / "cephfs_client.py")]


def session_of(client: Any, pid: int) -> dict[str, Any] | None:
    return next((s for s in client.mds_tell(f"{FS}:0", "session ls")
                 if s.get("client_metadata", {}).get("pid") == str(pid)), None)


def ops_of(client: Any, cid: int) -> list[dict[str, Any]]:
    """The client requests of client.CID in flight at rank 0."""
    ops = client.mds_tell(f"{FS}:0", "dump_ops_in_flight").get("ops", [])
    return [o for o in ops if f"client.{cid}:" in o.get("description", "")]


def record(client: Any, path: Path, ino: str, name: str, meta: dict[str, Any]) -> None:
    """Rank 0's answers; the op's directory (`dump inode`) and the file it names in there (`dump tree PATH 0`)."""
    rec = RecordingClient(client)
    for prefix in ("dump_ops_in_flight", "dump_blocked_ops", "session ls"):
        rec.mds_tell(f"{FS}:0", prefix)
    try:
        where = rec.mds_tell(f"{FS}:0", "dump inode", number=int(ino, 16))["path"]
        rec.mds_tell(f"{FS}:0", "dump tree", root=f"{where.rstrip('/')}/{name}" if name else where, depth=0)
    except CephError as e:  # kept as the MDS said it
        print(f"dump inode {ino} / dump tree: {e.message}", file=sys.stderr)
    rec.mon("health", detail="detail")
    rec.mon("fs dump")
    rec.save(path, {**meta, "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "monotonic": time.monotonic()})
    print(f"wrote {path}", file=sys.stderr)


def main() -> int:
    with captured_cluster("ctfsstuck-", sys.argv, "--pool", "rbd:8", "--fs", FS) as cap:
        client, out = cap.client, cap.out
        holder = subprocess.Popen([*CLIENT, cap.conf, "hold", "/held.txt"], stdout=subprocess.PIPE, text=True)
        waiter: subprocess.Popen[str] | None = None
        files: list[str] = []
        try:
            line = holder.stdout.readline() if holder.stdout else ""
            if line.strip() != "ready":
                raise SystemExit(f"the holding client did not mount: {line!r}")
            wait_for("the holder's session", lambda: session_of(client, holder.pid) is not None)
            a = session_of(client, holder.pid)
            assert a is not None
            stop_process(holder.pid)
            stopped = time.monotonic()
            waiter = subprocess.Popen([*CLIENT, cap.conf, "try", "/held.txt"], stdout=subprocess.PIPE, text=True)
            wait_for("the waiter's session", lambda: session_of(client, waiter.pid) is not None)  # type: ignore
            b = session_of(client, waiter.pid)
            assert b is not None
            wait_for("the waiter's open in flight", lambda: ops_of(client, b["id"]), timeout=60)
            time.sleep(3)  # "a few seconds into the wait"
            target = ops_of(client, b["id"])[0]["description"].split("#")[1].split()[0]  # "0x1/held.txt"
            ino, _, name = target.partition("/")
            meta = {"scenario": f"fs {FS}: client.{a['id']} (pid {holder.pid}) holds /held.txt open and is stopped "
                                f"(SIGSTOP); client.{b['id']} (pid {waiter.pid}) opens /held.txt for writing",
                    "ceph_version": cap.version, "holder": a["id"], "waiter": b["id"], "inode": ino,
                    "session_timeout": client.mon("fs get", fs_name=FS)["mdsmap"]["session_timeout"]}
            record(client, out / "cephfs_stuck_early.json", ino, name,
                   {**meta, "since_stop": round(time.monotonic() - stopped, 1)})
            files.append("cephfs_stuck_early.json")

            def reported_or_over() -> bool:
                checks = client.mon("health", detail="detail").get("checks", {})
                return "MDS_SLOW_REQUEST" in checks or not ops_of(client, b["id"])
            wait_for("MDS_SLOW_REQUEST, or the wait over", reported_or_over, timeout=120)
            record(client, out / "cephfs_stuck_slow.json", ino, name,
                   {**meta, "since_stop": round(time.monotonic() - stopped, 1),
                    "waiting": bool(ops_of(client, b["id"]))})
            files.append("cephfs_stuck_slow.json")
            evicted = client.mds_tell_raw(f"{FS}:0", "client evict", filters=[f"id={a['id']}"])
            print(f"client evict id={a['id']}: {evicted!r}", file=sys.stderr)
            answer = waiter.stdout.readline() if waiter.stdout else ""
            waiter.wait(timeout=60)
            record(client, out / "cephfs_stuck_evicted.json", ino, name,
                   {**meta, "since_stop": round(time.monotonic() - stopped, 1), "waiter_said": answer.strip()})
            files.append("cephfs_stuck_evicted.json")
            print(json.dumps({"waiter": answer.strip()}), file=sys.stderr)
        finally:
            for p in (holder, waiter):
                if p is not None and p.poll() is None:
                    os.kill(p.pid, signal.SIGCONT)
                    p.kill()
                    p.wait()
            cap.note(files, __file__)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
