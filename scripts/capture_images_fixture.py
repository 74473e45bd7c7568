#!/usr/bin/env python3
"""Capture tests/fixtures/images/ from a real sandbox cluster: per-image IO as the mgr and `rbd perf image
iostat` report it in the same moment, and what cephtui's reader reads of real images.

    .venv/bin/python scripts/capture_images_fixture.py [--conf CEPH_CONF] [--port P] [--timeout S] [OUTDIR]

Without --conf it starts its own sandbox (/tmp/rbdls-cap-*, --port when given, else a free one) and purges it
after; with --conf it works in pool rbd (which must have the rbd application) on images named cap-*, and
removes them at the end.

perf_stats.json: two `rbd bench --io-type write` runs in the background on cap-busy (16 IOs in flight) and
cap-calm (1), until the mgr's `rbd perf image stats` (pool_spec rbd, sort_by write_ops: the query `rbd perf
image iostat rbd` makes) reports both (--timeout, 90 s by default); its first answer, before any numbers, is
kept too. Then, in one moment: the mgr's answer,
`rbd perf image iostat --iterations 1 rbd` (plain, and --format json), and the mgr's answer again; kept only
when both answers of the mgr are the same report (same timestamp and numbers), so the iostat outputs were
computed from it too; retried otherwise.

images.json: cephtui's reader (read_image, list_trash, snap_children) on images made with the rbd CLI: cap-base
(data, a snapshot, a protected snapshot, data since), its clone cap-clone, cap-nofd (layering only: no
fast-diff), cap-plain (empty), cap-watched (held open read-write by a second client while read), cap-inns in
namespace capns, and two images in the trash (one purgeable now, one deferred an hour), and where each holds
data (reader.used_extents); with the rbd CLI's own JSON (info, du, snap ls, status, diff --whole-object) of
each at the same time.

VERSION: per file, the cluster's `ceph version`, the script, the Python, the time (--only recaptures one file).
Nothing here is typed by hand.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from capturelib import SANDBOX, start_sandbox  # noqa: E402

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.images import perf, reader  # noqa: E402
from cephtui.ceph.images.model import ImageRef, Place  # noqa: E402

POOL, NS = "rbd", "capns"
BENCHES = (("cap-busy", 16), ("cap-calm", 1))  # image, --io-threads
IMAGES = ("cap-base", "cap-clone", "cap-nofd", "cap-plain", "cap-watched")


class Cluster:
    def __init__(self, conf: str) -> None:
        self.conf = conf
        self.client = CephClient(ConnectionSpec(conffile=conf)).connect()

    def rbd(self, *args: str, check: bool = True) -> str:
        res = subprocess.run(["rbd", "-c", self.conf, *args], capture_output=True, text=True, timeout=300)
        if check and res.returncode != 0:
            raise SystemExit(f"rbd {' '.join(args)}: {res.stderr.strip()}")
        return res.stdout

    def rbd_json(self, *args: str) -> Any:
        return json.loads(self.rbd(*args, "--format", "json"))

    def stats(self) -> Any:
        """The mgr's raw answer to the query `rbd perf image iostat POOL` makes."""
        return self.client.mgr("rbd perf image stats", pool_spec=POOL, sort_by="write_ops")


def wait_for(what: str, cond: Any, timeout: float, interval: float = 1.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


# ------------------------------------------------------------------ perf

def capture_perf(c: Cluster, timeout: float) -> dict[str, Any]:
    for image, _ in BENCHES:
        c.rbd("create", "--size", "256M", f"{POOL}/{image}")
    procs = [subprocess.Popen(["rbd", "-c", c.conf, "bench", "--io-type", "write", "--io-size", "4K",
                               "--io-pattern", "rand", "--io-threads", str(threads), "--io-total", "100G",
                               f"{POOL}/{image}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for image, threads in BENCHES]
    try:
        t0 = time.monotonic()
        first = c.stats()  # registers the query: no numbers yet (the mgr needs two OSD reports)

        def both() -> bool:
            for p in procs:
                if p.poll() is not None:
                    raise SystemExit(f"rbd bench ended early: {p.stderr.read() if p.stderr else ''}")
            names = {i.image for i in perf.parse_stats(c.stats()).images}
            return all(image in names for image, _ in BENCHES)
        wait_for("both images in rbd perf image stats", both, timeout)
        print(f"capture: both images reported after {time.monotonic() - t0:.0f} s", file=sys.stderr)
        for attempt in range(1, 11):
            before = c.stats()
            plain = subprocess.Popen(["rbd", "-c", c.conf, "perf", "image", "iostat", "--iterations", "1", POOL],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            assert plain.stdout is not None
            table = []
            for line in plain.stdout:  # the table, then a blank line (it sleeps a stats period before exiting)
                if not line.strip():
                    break
                table.append(line.rstrip("\n"))
            as_json = json.loads(c.rbd("perf", "image", "iostat", "--iterations", "1", "--format", "json", POOL))
            after = c.stats()
            plain.wait(timeout=60)
            same = before == after and [r.to_json() for r in perf.parse_stats(before).images] == as_json
            print(f"capture: attempt {attempt}: {'one report' if same else 'the report changed, again'}",
                  file=sys.stderr)
            if same:
                return {"pool_spec": POOL, "sort_by": "write_ops",
                        "benches": [{"image": i, "io_threads": t, "io_size": 4096, "io_pattern": "rand"}
                                    for i, t in BENCHES],
                        "mgr_first": first, "mgr": before, "iostat_json": as_json, "iostat_plain": table}
        raise SystemExit("the mgr's report changed during every attempt")
    finally:
        for p in procs:
            p.terminate()  # our own rbd bench processes, by their pid
            p.wait(timeout=30)


# ------------------------------------------------------------------ images

def fields(obj: Any) -> Any:
    """A model object as JSON, field by field (dataclasses.asdict, datetimes as ISO text): the test rebuilds it."""
    def plain(v: Any) -> Any:
        if isinstance(v, dt.datetime):
            return v.isoformat()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v
    return plain(dataclasses.asdict(obj))


def make_images(c: Cluster) -> None:
    w = ("bench", "--io-type", "write", "--io-size", "4M", "--io-threads", "1")
    c.rbd("create", "--size", "64M", f"{POOL}/cap-base")
    c.rbd(*w, "--io-total", "12M", f"{POOL}/cap-base")
    c.rbd("snap", "create", f"{POOL}/cap-base@first")
    c.rbd(*w, "--io-total", "4M", f"{POOL}/cap-base")
    c.rbd("snap", "create", f"{POOL}/cap-base@gold")
    c.rbd("snap", "protect", f"{POOL}/cap-base@gold")
    c.rbd(*w, "--io-total", "8M", f"{POOL}/cap-base")
    c.rbd("clone", f"{POOL}/cap-base@gold", f"{POOL}/cap-clone")
    c.rbd("create", "--size", "32M", "--image-feature", "layering", f"{POOL}/cap-nofd")
    c.rbd(*w, "--io-total", "8M", f"{POOL}/cap-nofd")
    c.rbd("create", "--size", "1G", f"{POOL}/cap-plain")
    c.rbd("create", "--size", "16M", f"{POOL}/cap-watched")
    c.rbd("namespace", "create", f"{POOL}/{NS}")
    c.rbd("create", "--size", "16M", "--object-size", "1M", f"{POOL}/{NS}/cap-inns")
    for name in ("cap-trash-now", "cap-trash-later"):
        c.rbd("create", "--size", "8M", f"{POOL}/{name}")
    c.rbd("trash", "mv", f"{POOL}/cap-trash-now")
    c.rbd("trash", "mv", "--expires-at", "now + 3600 seconds", f"{POOL}/cap-trash-later")


def capture_images(c: Cluster) -> dict[str, Any]:
    import rados
    import rbd

    make_images(c)
    hosts = reader.host_names(c.client)
    holder = rados.Rados(conffile=c.conf, conf={"log_to_stderr": "false", "err_to_stderr": "false"})
    holder.connect(timeout=10)
    out: dict[str, Any] = {"images": {}, "snap_children": {}, "trash": []}
    try:
        with holder.open_ioctx(POOL) as hio, rbd.Image(hio, "cap-watched"):  # read-write: a watch, as a VM's
            wait_for("the holder's watch", lambda: c.rbd_json("status", f"{POOL}/cap-watched")["watchers"], 30, 0.2)
            refs = [ImageRef(POOL, n) for n in IMAGES] + [ImageRef(POOL, "cap-inns", NS)]
            for ref in refs:
                for du in ("fast", "scan"):
                    info = reader.read_image(c.client.handle, ref, du=du, hosts=hosts)
                    out["images"][f"{ref.spec} du={du}"] = {"fields": fields(info), "to_json": info.to_json()}
                out["images"][f"{ref.spec} extents"] = [list(e) for e in reader.used_extents(c.client.handle, ref)]
                out["images"][f"{ref.spec} rbd"] = {
                    "info": c.rbd_json("info", ref.spec), "du": c.rbd_json("du", ref.spec),
                    "snap_ls": c.rbd_json("snap", "ls", ref.spec), "status": c.rbd_json("status", ref.spec),
                    "diff": c.rbd_json("diff", "--whole-object", ref.spec)}
    finally:
        holder.shutdown()
    for snap in ("first", "gold"):
        out["snap_children"][f"{POOL}/cap-base@{snap}"] = list(
            reader.snap_children(c.client.handle, ImageRef(POOL, "cap-base"), snap))
    out["trash"] = [fields(e) for e in reader.list_trash(c.client.handle, Place(POOL))
                    if e.name.startswith("cap-")]
    out["trash_ls"] = [e for e in c.rbd_json("trash", "ls", "--long", POOL) if e["name"].startswith("cap-")]
    out["captured_at"] = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None).isoformat()
    return out


def capture_tasks(c: Cluster) -> dict[str, Any]:
    """`rbd task add flatten` on a clone of a 256 MiB image full of data, and `rbd task list` asked until it
    is done: the answers as the mgr gave them (queued, in progress with its fraction, gone when done)."""
    c.rbd("create", "--size", "256M", f"{POOL}/cap-task")
    c.rbd("bench", "--io-type", "write", "--io-size", "4M", "--io-total", "256M", f"{POOL}/cap-task")
    c.rbd("snap", "create", f"{POOL}/cap-task@s")
    c.rbd("snap", "protect", f"{POOL}/cap-task@s")
    c.rbd("clone", f"{POOL}/cap-task@s", f"{POOL}/cap-taskc")
    added = c.client.mgr("rbd task add flatten", image_spec=f"{POOL}/cap-taskc")
    answers = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = c.client.mgr("rbd task list")
        answers.append(answer)
        if not answer:
            break
        time.sleep(0.2)
    c.rbd("rm", f"{POOL}/cap-taskc", check=False)
    c.rbd("snap", "unprotect", f"{POOL}/cap-task@s", check=False)
    c.rbd("snap", "purge", f"{POOL}/cap-task", check=False)
    c.rbd("rm", f"{POOL}/cap-task", check=False)
    if not any(a and a[0].get("progress") is not None for a in answers):
        raise SystemExit("no `rbd task list` answer caught the flatten in progress: run again")
    return {"added": added, "task_list": answers}


def cleanup(c: Cluster) -> None:
    """With --conf: the cap-* images and trash entries this script made, removed."""
    c.rbd("rm", f"{POOL}/cap-clone", check=False)
    c.rbd("snap", "unprotect", f"{POOL}/cap-base@gold", check=False)
    for name in IMAGES + tuple(i for i, _ in BENCHES):
        c.rbd("snap", "purge", f"{POOL}/{name}", check=False)
        c.rbd("rm", f"{POOL}/{name}", check=False)
    c.rbd("rm", f"{POOL}/{NS}/cap-inns", check=False)
    c.rbd("namespace", "rm", f"{POOL}/{NS}", check=False)
    for e in json.loads(c.rbd("trash", "ls", "--format", "json", POOL, check=False) or "[]"):
        if e["name"].startswith("cap-"):
            c.rbd("trash", "rm", "--force", f"{POOL}/{e['id']}", check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conf", help="an existing cluster (default: a sandbox of the script's own)")
    ap.add_argument("--port", help="the own sandbox's mon port (default: a free one)")
    ap.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for the mgr's first numbers")
    ap.add_argument("--only", choices=["images", "perf", "tasks"], help="capture one of the files (default: all)")
    ap.add_argument("outdir", nargs="?", default=str(ROOT / "tests" / "fixtures" / "images"))
    a = ap.parse_args()
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    own = None
    quirks: list[str] = []
    conf = a.conf
    if not conf:
        own = tempfile.mkdtemp(prefix="rbdls-cap-", dir="/tmp")
        conf, quirks = start_sandbox(own, "--pool", f"{POOL}:32", *(("--port", a.port) if a.port else ()))
    c = Cluster(conf)
    try:
        version = c.client.mon("version")["version"]
        if a.only in (None, "images"):
            images = capture_images(c)
            (out / "images.json").write_text(json.dumps(images, indent=1, sort_keys=True) + "\n")
        if a.only in (None, "tasks"):
            (out / "tasks.json").write_text(json.dumps(capture_tasks(c), indent=1) + "\n")
        if a.only in (None, "perf"):
            stats = capture_perf(c, a.timeout)
            (out / "perf_stats.json").write_text(json.dumps(stats, indent=1) + "\n")
            print("\n".join(stats["iostat_plain"]))
        # VERSION, as tests/fixtures/crush/ has it: a RELEASE.json would make this directory a release's
        meta = json.loads((out / "VERSION").read_text()) if (out / "VERSION").exists() else {}
        for name in [n for n, w in (("images.json", "images"), ("perf_stats.json", "perf"),
                                                     ("tasks.json", "tasks")) if a.only in (None, w)]:
            meta[name] = {"version": version, "script": f"scripts/{Path(__file__).name}",
                          "python": platform.python_version(),
                          "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "quirks": quirks}
        (out / "VERSION").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
        if not own:
            cleanup(c)
    finally:
        c.client.close()
        if own:
            subprocess.run([*SANDBOX, "stop", own, "--purge"], capture_output=True)


if __name__ == "__main__":
    main()
