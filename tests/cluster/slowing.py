"""A slow OSD made for real: the OSD's process throttled by a cgroup v1 CPU quota, and client load to show it.

Throttling the CPU of a whole ceph-osd (every thread: messenger, op queue, BlueStore's kv and aio threads) makes
each op wait for the quota's next period, so `osd perf` commit/apply latency of that OSD rises under load while
its peers stay where they were: a fail-slow disk as the cluster sees it, without being down (heartbeats still
get answered within the grace). Measured on the 6-OSD sandbox under a 4-thread rados writer: see
cephtui/ceph/history/failslow.py's module docstring for the numbers.

Always undone: `throttled()` is a context manager that moves the process back to the cgroup it came from and
removes its own cgroup, whatever happens inside. Only pids this run started (the sandbox's own, from its pid
files) are ever moved. Needs root and the v1 cpu controller at /sys/fs/cgroup/cpu.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

CPU_ROOT = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000
# 2 ms of CPU per 100 ms period: an idle OSD needs well under that, a loaded one far more, so ops queue.
QUOTA_US = 2_000


def osd_pid(box_dir: Path, osd: int) -> int:
    """The sandbox's own record of the OSD's pid (scripts/sandbox.py writes DIR/pids/osd.N.json), checked to
    be alive and to be that OSD of that sandbox (its argv carries the sandbox's conf), never a guess."""
    rec = json.loads((box_dir / "pids" / f"osd.{osd}.json").read_text())
    pid = int(rec["pid"])
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    conf = str(box_dir / "ceph.conf").encode()
    if conf not in argv or str(osd).encode() not in argv:
        raise RuntimeError(f"pid {pid} is not osd.{osd} of {box_dir}: {argv!r}")
    return pid


def available() -> str:
    """'' when throttling can work here, else why not."""
    if not (CPU_ROOT / "cgroup.procs").exists():
        return f"no cgroup v1 cpu controller at {CPU_ROOT}"
    if not os.access(CPU_ROOT, os.W_OK):
        return f"{CPU_ROOT} is not writable (not root?)"
    return ""


def _cpu_cgroup_of(pid: int) -> Path:
    """The v1 cpu cgroup the process is in now (`/proc/PID/cgroup`'s `N:cpu,…:/path` line)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            return CPU_ROOT / path.lstrip("/")
    raise RuntimeError(f"pid {pid} is in no v1 cpu cgroup")


@contextlib.contextmanager
def throttled(pids: Sequence[int], quota_us: int = QUOTA_US, period_us: int = PERIOD_US) -> Iterator[Path]:
    """Each pid in one cgroup of ours (`cephtui-slow-<first pid>`) with `quota_us` of CPU per `period_us`
    (shared by them all: give each process its own call for a per-OSD quota). Undone on exit."""
    why = available()
    if why:
        raise RuntimeError(f"cannot throttle: {why}")
    homes = {pid: _cpu_cgroup_of(pid) for pid in pids}
    group = CPU_ROOT / f"cephtui-slow-{pids[0]}"
    group.mkdir(exist_ok=True)
    moved: list[int] = []
    try:
        (group / "cpu.cfs_period_us").write_text(str(period_us))
        (group / "cpu.cfs_quota_us").write_text(str(quota_us))
        for pid in pids:
            (group / "cgroup.procs").write_text(str(pid))  # the whole process: every thread
            moved.append(pid)
        yield group
    finally:
        for pid in moved:
            with contextlib.suppress(ProcessLookupError, FileNotFoundError):  # it may have exited meanwhile
                (homes[pid] / "cgroup.procs").write_text(str(pid))
        _rmdir(group)


def _rmdir(group: Path) -> None:
    """rmdir of a cgroup is refused (EBUSY) while a task is still listed; a thread moved a moment ago can
    still be counted: retry briefly, then say what is left."""
    deadline = time.monotonic() + 5
    while True:
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                left = (group / "cgroup.procs").read_text().split()
                raise RuntimeError(f"could not remove {group}: tasks still in it: {left}") from None
            time.sleep(0.05)


# ------------------------------------------------------------------ CRUSH hosts

Ceph = Callable[..., Any]  # words as the ceph CLI takes them -> the parsed JSON answer (Sandbox.ceph)


@contextlib.contextmanager
def crush_hosts(ceph: Ceph, layout: dict[str, Sequence[int]]) -> Iterator[None]:
    """CRUSH host buckets made for real (`osd crush add-bucket H host`, moved under root=default) with the
    OSDs given moved into them (`osd crush set osd.N W host=H`, W their weight as it was). Undone on exit:
    each OSD set back where `osd tree` had it, then the buckets removed (`osd crush rm`, empty by then).
    The sandbox's single host keeps whatever is not moved."""
    tree = ceph("osd", "tree")
    nodes = {n["id"]: n for n in tree["nodes"]}
    home: dict[int, tuple[str, float]] = {}
    for n in tree["nodes"]:
        if n["type"] == "host":
            for c in n.get("children", []):
                home[c] = (n["name"], nodes[c]["crush_weight"])
    made: list[str] = []
    moved: list[int] = []
    try:
        for host, osds in layout.items():
            ceph("osd", "crush", "add-bucket", host, "host")
            made.append(host)
            ceph("osd", "crush", "move", host, "root=default")
            for osd in osds:
                ceph("osd", "crush", "set", f"osd.{osd}", str(home[osd][1]), f"host={host}")
                moved.append(osd)
        yield
    finally:
        for osd in moved:
            ceph("osd", "crush", "set", f"osd.{osd}", str(home[osd][1]), f"host={home[osd][0]}", "root=default")
        for host in made:
            ceph("osd", "crush", "rm", host)


# ------------------------------------------------------------------ client load

WRITER = r"""
import sys, threading, rados, time
conf, pool, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = rados.Rados(conffile=conf, conf={"log_to_stderr": "false", "err_to_stderr": "false"})
r.connect(timeout=10)
io = r.open_ioctx(pool)
small = bytes(4096)
for n in range(threads):  # 64 objects of 64 KiB per thread: spread over every PG
    for k in range(64):
        io.write_full(f"failslow-load-{n}-{k}", bytes(64 * 1024))
def loop(n):
    i = 0
    while True:
        # 4 KiB overwrites in place: fewer new extents than whole-object rewrites (write_full: 54 GB of the
        # host's disk in 40 minutes, a sparse-file OSD never gives freed extents back), but BlueStore's WAL
        # and RocksDB still take new ones: measured ~15 GB for the 6 OSDs in 25 minutes. A sandbox costs at
        # most its OSDs' size (sandbox.py: 10 GB each); purge it after a long run.
        io.write(f"failslow-load-{n}-{i % 64}", small, offset=(i * 4096) % (64 * 1024))
        i += 1
for n in range(threads):
    threading.Thread(target=loop, args=(n,), daemon=True).start()
print("writing", flush=True)
while True:
    time.sleep(3600)
"""


@contextlib.contextmanager
def client_load(conf: Path, pool: str = "rbd", threads: int = 4) -> Iterator[subprocess.Popen]:
    """Steady small writes from a child process of ours (librados, Debian's python3), stopped by its pid.
    Writes, not reads: a write waits for every replica, so a slow OSD shows in commit latency. In-place 4 KiB
    overwrites; the sandbox's sparse OSD files still grow under it (see WRITER), up to their full size."""
    proc = subprocess.Popen(["/usr/bin/python3", "-c", WRITER, str(conf), pool, str(threads)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if "writing" not in line:
            err = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
            raise RuntimeError(f"load writer did not start: {line!r} {err}")
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def pool_writes(ceph: Ceph, pool: str = "rbd") -> int:
    """The pool's write ops since it was made, as the mgr last heard from the OSDs (`pg dump pools`)."""
    dump = ceph("pg", "dump", "pools")
    pools = dump["pool_stats"] if isinstance(dump, dict) else dump  # Pacific on: a dict; before: the list
    pool_id = next(p["pool_id"] for p in ceph("osd", "pool", "ls", "detail") if p["pool_name"] == pool)
    return int(next(p["stat_sum"]["num_write"] for p in pools if p["poolid"] == pool_id))


def wait_for_load(ceph: Ceph, wait: Callable[..., Any], pool: str = "rbd", ops: int = 1000) -> None:
    """Until the mgr has seen `ops` more writes in `pool` than when called: the writer's load is there. Not `osd
    perf`: it says whole milliseconds, and a fast disk commits a 4 KiB write in 0.4 ms, so a loaded OSD there
    says 0 ms just as an idle one does (seen on a fresh machine: 0 ms everywhere at 900 writes/s)."""
    start = pool_writes(ceph, pool)
    wait(lambda: pool_writes(ceph, pool) >= start + ops, 60, f"{ops} writes of the load in pool {pool}")


def cleanup_objects(conf: Path, pool: str = "rbd") -> None:
    """Remove the load's objects (failslow-load-*), so a shared sandbox is left as found."""
    code = ("import sys, rados\n"
            "r = rados.Rados(conffile=sys.argv[1]); r.connect(timeout=10); io = r.open_ioctx(sys.argv[2])\n"
            "for o in list(io.list_objects()):\n"
            "    if o.key.startswith('failslow-load-'): io.remove_object(o.key)\n"
            "r.shutdown()\n")
    subprocess.run(["/usr/bin/python3", "-c", code, str(conf), pool], check=True, timeout=120)


if __name__ == "__main__":  # by hand: python tests/cluster/slowing.py BOXDIR OSD [SECONDS]
    box, osd = Path(sys.argv[1]), int(sys.argv[2])
    secs = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    with client_load(box / "ceph.conf"), throttled([osd_pid(box, osd)]) as g:
        print(f"osd.{osd} throttled in {g} for {secs:.0f} s", flush=True)
        end = time.monotonic() + secs
        while time.monotonic() < end:
            out = subprocess.run(["ceph", "-c", str(box / "ceph.conf"), "osd", "perf", "-f", "json"],
                                 capture_output=True, text=True).stdout
            infos = json.loads(out).get("osdstats", {}).get("osd_perf_infos", [])
            print(time.strftime("%H:%M:%S"), sorted((i["id"], i["perf_stats"]["commit_latency_ms"]) for i in infos),
                  flush=True)
            time.sleep(5)
