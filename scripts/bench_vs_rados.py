#!/usr/bin/env python3
"""cephtui's bench engine against native `rados bench --no-hints`, interleaved A/B on one cluster.

    .venv/bin/python scripts/bench_vs_rados.py [--seconds 10] [--rounds 3] [--json out.json]
    .venv/bin/python scripts/bench_vs_rados.py --sandbox /tmp/sbx-cmp     # use / start that sandbox, keep it
    .venv/bin/python scripts/bench_vs_rados.py --conf /etc/ceph/ceph.conf --pool bench   # existing cluster

Without --conf / --sandbox it starts its own sandbox (scripts/sandbox.py, 3 OSDs, pool cmp:32) in
/tmp/sbx-cmp on port 7020 and purges it at the end, also on Ctrl-C or error.

Workloads (--workloads, comma separated; default write4m,seq4m,write4k):
  write4m   4 MiB writes (op = object = 4 MiB), --threads in flight
  seq4m     4 MiB sequential reads of the objects the same tool just wrote (--no-cleanup write first);
            like rados bench, a seq run ends early once every object has been read once
  rand4m    4 MiB random reads of those objects for the full duration (optional)
  write4k   4 KiB writes (op = object = 4 KiB)
Each tool uses its own --run-name, so the metadata objects never collide and each reads its own data;
writes always run with --no-cleanup and the objects are removed afterwards by `rados cleanup` for both
tools alike (so the cleanup time and CPU are outside every measurement).

Per round the order alternates (cephtui first in odd rounds, native first in even ones) to cancel
drift; between runs the script waits for every PG to be active+clean, then sleeps --settle seconds.

Ratios: cephtui/native for throughput, native/cephtui for latency, so above 1 is better for cephtui;
cephtui/native for client CPU per op, so below 1 is better for cephtui.
Goals: median throughput ratio >= 0.95 (4 MiB and 4 KiB); at 4 KiB also median client CPU per op
<= 1.2x native's (on a fast cluster the client, not the OSDs, sets the IOPS).

CPU: while a client runs, /proc is sampled every 0.1 s: the client's own CPU (utime+stime) over the
steady part of the run (the bench window minus its first 0.5 s and last 0.3 s), the OSDs' CPU, the
host's busy share and "other" (host minus client minus this cluster's daemons: other clusters, kernel
writeback ...; a high value flags a noisy run). Total client CPU, startup included, is the child's
rusage.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shlex
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]
VENV_PY = ROOT / ".venv" / "bin" / "python"
MiB = 1024 * 1024
CLK_TCK = os.sysconf("SC_CLK_TCK")
GOALS = {4 * MiB: 0.95, 4096: 0.95}
CPU_GOALS = {4096: 1.2}  # the highest median cephtui/native client CPU per op
TOOLS = ("cephtui", "native")

WORKLOADS = {  # name -> (mode, op/object size, title)
    "write4m": ("write", 4 * MiB, "4 MiB writes"),
    "seq4m": ("seq", 4 * MiB, "4 MiB sequential reads"),
    "rand4m": ("rand", 4 * MiB, "4 MiB random reads"),
    "write4k": ("write", 4096, "4 KiB writes"),
}


# ------------------------------------------------------------------ small helpers

def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def sh(cmd: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def proc_cpu_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    rest = data[data.rfind(b")") + 2:].split()
    return int(rest[11]) + int(rest[12])  # utime + stime


def tree_cpu_ticks(root: int) -> int | None:
    """utime+stime of `root`, its live descendants and their reaped children: cephtui runs each bench's
    engine in a child process of its own (bench/worker.py), native rados bench in one process."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            data = (d / "stat").read_bytes()
        except OSError:
            continue
        rest = data[data.rfind(b")") + 2:].split()
        parents[int(d.name)] = int(rest[1])
        ticks[int(d.name)] = int(rest[11]) + int(rest[12]) + int(rest[13]) + int(rest[14])
    if root not in ticks:
        return None
    total, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in ticks:
            continue
        seen.add(pid)
        total += ticks[pid]
        todo += [c for c, pp in parents.items() if pp == pid]
    return total


def host_ticks() -> tuple[int, int]:
    """(busy, total) jiffies over all CPUs."""
    with open("/proc/stat") as f:
        vals = [int(v) for v in f.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
    total = sum(vals[:8])  # guest time is already inside user/nice
    return total - idle, total


def _processes() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, argv) of every process we may read."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv:
            yield int(d.name), argv


def _is(argv: list[bytes], kinds: tuple[str, ...]) -> bool:
    return os.path.basename(argv[0]).decode(errors="replace") in kinds


def find_daemon_pids(conf: str, kinds: tuple[str, ...] = ("ceph-osd",)) -> list[int]:
    """Daemons started with this conf (the sandbox's); [] for a cluster that is not on this host."""
    return sorted(pid for pid, argv in _processes()
                  if _is(argv, kinds) and conf.encode() in argv and b"--mkfs" not in argv)


def foreign_ceph_daemons(conf: str) -> list[str]:
    """Other clusters' daemons on this host: they compete for the same cores and make the numbers noisy."""
    return [" ".join(a.decode(errors="replace") for a in argv if a) for _, argv in _processes()
            if _is(argv, ("ceph-osd", "ceph-mon", "ceph-mgr")) and conf.encode() not in argv]


def median(xs: list[Any]) -> float | None:
    vals = [x for x in xs if x is not None]
    return statistics.median(vals) if vals else None


def num(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x == x else None  # drop NaN


def parse_json_output(text: str) -> dict:
    """The JSON object in a tool's stdout (rados prints `hints = 0` before it)."""
    text = text.strip()
    try:
        obj = json.loads(text)
        if isinstance(obj, dict):
            return obj
    except ValueError:
        pass
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
            if isinstance(obj, dict):
                return obj
        except ValueError:
            pass
        start = text.find("{", start + 1)
    raise ValueError(f"no JSON object in output: {text[:300]!r}")


# ------------------------------------------------------------------ one run

@dataclass
class Result:
    tool: str
    workload: str
    round: int
    position: int  # 0 = ran first in its round
    cmd: str = ""
    error: str | None = None
    ops: int | None = None
    total_time: float | None = None
    mib_s: float | None = None
    iops: float | None = None
    lat_avg: float | None = None  # seconds
    lat_max: float | None = None
    lat_p50: float | None = None
    lat_p95: float | None = None
    lat_p99: float | None = None
    wall: float | None = None  # process wall time, startup and teardown included
    cpu_total: float | None = None  # client CPU seconds (rusage), startup included
    cpu_pct: float | None = None  # client CPU % of one core over the steady bench window
    cpu_us_per_op: float | None = None  # steady client CPU per op
    osd_cpu_pct: float | None = None  # sum over the OSDs, % of one core, same window
    other_cpu_pct: float | None = None  # everything else on the host (other clusters ...), % of one core
    idle_host_pct: float | None = None  # host busy just before the run, % of all cores
    host_busy_pct: float | None = None  # whole host, % of all cores, same window
    window: float | None = None  # length of the steady window the CPU figures cover
    raw: dict = field(default_factory=dict)


class Sampler(threading.Thread):
    def __init__(self, pid: int, osd_pids: list[int], own_pids: list[int], period: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.pid, self.osd_pids, self.own_pids, self.period = pid, osd_pids, own_pids, period
        self.samples: list[tuple[float, int | None, int, int, int, int]] = []
        self.done = threading.Event()
        self.t0 = time.monotonic()

    def sample(self) -> None:
        busy, total = host_ticks()
        osd = sum(t for t in (proc_cpu_ticks(p) for p in self.osd_pids) if t is not None)
        own = sum(t for t in (proc_cpu_ticks(p) for p in self.own_pids) if t is not None)
        self.samples.append((time.monotonic() - self.t0, tree_cpu_ticks(self.pid), busy, total, osd, own))

    def run(self) -> None:
        while not self.done.is_set():
            self.sample()
            self.done.wait(self.period)

    def window(self, lo: float, hi: float) -> tuple[float, dict[str, float]] | None:
        pts = [(t, c, busy, tot, osd, own) for t, c, busy, tot, osd, own in self.samples if c is not None]
        a = next((s for s in pts if s[0] >= lo), None)
        b = next((s for s in reversed(pts) if s[0] <= hi), None)
        if a is None or b is None or b[0] - a[0] < 0.5:
            return None
        dt = b[0] - a[0]
        host = (b[2] - a[2]) / max(1, b[3] - a[3])
        cpu = (b[1] - a[1]) / CLK_TCK / dt
        osd = (b[4] - a[4]) / CLK_TCK / dt
        own = (b[5] - a[5]) / CLK_TCK / dt
        ncpu = os.cpu_count() or 1
        return dt, {"cpu": cpu, "osd": osd, "host": host, "other": max(0.0, host * ncpu - cpu - osd - own)}


CURRENT: list[subprocess.Popen] = []  # the child running now, so Ctrl-C can end exactly it


def run_client(res: Result, argv: list[str], osd_pids: list[int], own_pids: list[int],
               timeout: float) -> dict | None:
    res.cmd = shlex.join(argv)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    CURRENT.append(proc)
    sampler = Sampler(proc.pid, osd_pids, own_pids)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        res.error = f"timed out after {timeout:.0f}s"
    finally:
        sampler.done.set()
        sampler.join()
        CURRENT.remove(proc)
    res.wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    res.cpu_total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if res.error:
        return None
    if proc.returncode != 0:
        res.error = f"exit {proc.returncode}: {(err.strip() or out.strip())[-500:]}"
        return None
    try:
        data = parse_json_output(out)
    except ValueError as e:
        res.error = f"{e}; stderr: {err.strip()[-300:]}"
        return None
    res.raw = data
    res._sampler = sampler  # type: ignore[attr-defined]  # used by fill_cpu once total_time is known
    return data


def fill_cpu(res: Result) -> None:
    sampler: Sampler | None = getattr(res, "_sampler", None)
    if sampler is None or res.wall is None:
        return
    del res._sampler  # type: ignore[attr-defined]
    bench_t = res.total_time or 0.0
    # Anchor the window at the bench's start, not at the process's end: rados bench computes its time,
    # then joins its status-printer thread, which sleeps up to 1 s (obj_bencher.cc), so native runs
    # end with up to a second of idle tail. Connecting takes well under 0.35 s for either tool.
    s0 = min(max(0.0, res.wall - bench_t), 0.35)
    lo, end = s0 + 0.5, s0 + bench_t - 0.3
    if end - lo < 0.5:  # short seq runs
        lo, end = s0 + 0.1, s0 + bench_t - 0.1
    w = sampler.window(lo, end) or sampler.window(0.0, res.wall)
    if w is None:
        return
    dt, v = w
    res.window = dt
    res.cpu_pct = 100 * v["cpu"]
    res.osd_cpu_pct = 100 * v["osd"] if sampler.osd_pids else None
    res.host_busy_pct = 100 * v["host"]
    res.other_cpu_pct = 100 * v["other"] if sampler.osd_pids else None
    if res.iops:
        res.cpu_us_per_op = v["cpu"] / res.iops * 1e6


def normalise(res: Result, data: dict, mode: str, size: int) -> None:
    """Both tools' JSON -> the same fields. rados prints numbers as strings; its stddev_iops is garbage."""
    if data.get("error"):
        res.error = str(data["error"])
    ops = data.get("ops")
    if ops is None:
        ops = data.get("total_writes_made" if mode == "write" else "total_reads_made")
    n_ops = num(ops)
    res.ops = int(n_ops) if n_ops is not None else None
    res.total_time = num(data.get("total_time_run"))
    op_size = num(data.get("op_size")) or num(data.get("write_size")) or num(data.get("read_size")) or size
    if res.ops is not None and res.total_time:
        res.iops = res.ops / res.total_time
        res.mib_s = res.ops * op_size / MiB / res.total_time
    bw = num(data.get("bandwidth"))
    if bw is not None:
        res.mib_s = bw  # the tool's own figure (same formula)
    res.lat_avg = num(data.get("average_latency"))
    res.lat_max = num(data.get("max_latency"))
    res.lat_p50 = num(data.get("latency_p50"))
    res.lat_p95 = num(data.get("latency_p95"))
    res.lat_p99 = num(data.get("latency_p99"))
    if res.ops == 0 and not res.error:
        res.error = "no operations completed"


# ------------------------------------------------------------------ the comparison

class Bench:
    def __init__(self, args: argparse.Namespace, conf: str) -> None:
        self.args, self.conf = args, conf
        self.c = ["-c", conf]
        self.osd_pids = find_daemon_pids(conf)
        self.own_pids = find_daemon_pids(conf, ("ceph-mon", "ceph-mgr"))
        self.results: list[Result] = []
        self.cephtui_cmd = [str(VENV_PY), "-m", "cephtui"] if not args.cephtui else shlex.split(args.cephtui)
        self.cephtui_ok, self.cephtui_why, self.json_flag_global = self.probe_cephtui()
        self.runs_done = 0

    # ----- cluster helpers
    def probe_cephtui(self) -> tuple[bool, str, bool]:
        self.no_save = False
        r = sh([*self.cephtui_cmd, "bench", "--help"], timeout=60)
        if r.returncode != 0:
            lines = (r.stderr.strip() or r.stdout.strip()).splitlines()
            return False, lines[-1] if lines else f"exit {r.returncode}", False
        # --json may belong to the bench subcommand or only to the top-level parser.
        self.no_save = "--no-save" in r.stdout  # keep these runs out of the user's bench history
        return True, "", "--json" not in r.stdout

    def wait_clean(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            r = sh(["ceph", *self.c, "pg", "stat", "-f", "json"], timeout=30)
            if r.returncode == 0:
                try:
                    d = json.loads(r.stdout)
                    s = d.get("pg_summary", d)
                    states = {x["name"]: x["num"] for x in s.get("num_pg_by_state", [])}
                    if states and set(states) == {"active+clean"} and states["active+clean"] == s.get("num_pgs"):
                        return
                    last = ", ".join(f"{n} {k}" for k, n in states.items())
                except (ValueError, KeyError) as e:
                    last = str(e)
            else:
                last = r.stderr.strip()
            time.sleep(0.5)
        log(f"  warning: PGs not all active+clean after {timeout:.0f}s ({last}); continuing")

    def settle(self) -> float:
        """PGs clean, the host quiet (up to --quiet-wait s), then --settle s. Returns the host's busy %."""
        self.wait_clean()
        deadline = time.monotonic() + self.args.quiet_wait
        while True:
            b0, t0 = host_ticks()
            time.sleep(0.5)
            b1, t1 = host_ticks()
            busy = 100 * (b1 - b0) / max(1, t1 - t0)
            if busy < self.args.quiet or time.monotonic() > deadline:
                break
        if busy >= self.args.quiet:
            log(f"  warning: host still {busy:.0f}% busy before the run")
        if self.args.settle > 0:
            time.sleep(self.args.settle)
        return busy

    def cleanup(self, run_name: str) -> None:
        """Remove one run's objects: `rados cleanup` first, then anything with the bench prefix left."""
        p = ["rados", *self.c, "-p", self.args.pool]
        r = sh([*p, "cleanup", "--run-name", run_name, "-t", "64"], timeout=600)
        if r.returncode != 0:
            log(f"  rados cleanup --run-name {run_name}: {r.stderr.strip()[-200:]}")
        ls = sh([*p, "ls"], timeout=300)
        left = [o for o in ls.stdout.split() if o.startswith("benchmark_data") or o == run_name]
        if left:
            log(f"  {len(left)} objects left after cleanup of {run_name}; removing by prefix")
            sh([*p, "cleanup", "--prefix", "benchmark_data", "-t", "64"], timeout=600)
            for o in (o for o in left if not o.startswith("benchmark_data")):
                sh([*p, "rm", o])

    # ----- one run of one tool
    def argv(self, tool: str, mode: str, size: int, run_name: str) -> list[str]:
        a = self.args
        if tool == "native":
            argv = ["rados", *self.c, "-p", a.pool, "bench", str(a.seconds), mode, "-t", str(a.threads),
                    "--no-hints", "--run-name", run_name, "-f", "json"]
            if mode == "write":
                argv += ["-b", str(size), "-O", str(size), "--no-cleanup"]
            return argv
        argv = [*self.cephtui_cmd, *self.c]
        if self.json_flag_global:
            argv.append("--json")
        argv += ["bench", "--pool", a.pool, "--seconds", str(a.seconds), "--mode", mode,
                 "--threads", str(a.threads), "--run-name", run_name]
        if mode == "write":
            argv += ["--block-size", str(size), "--object-size", str(size), "--no-cleanup"]
        if self.no_save:
            argv.append("--no-save")
        if not self.json_flag_global:
            argv.append("--json")
        return argv

    def run_one(self, tool: str, wl: str, rnd: int, pos: int, run_name: str) -> Result:
        mode, size, _ = WORKLOADS[wl]
        res = Result(tool=tool, workload=wl, round=rnd, position=pos)
        if tool == "cephtui" and not self.cephtui_ok:
            res.error = f"cephtui bench unavailable: {self.cephtui_why}"
            return res
        res.idle_host_pct = self.settle()
        try:
            data = run_client(res, self.argv(tool, mode, size, run_name), self.osd_pids, self.own_pids,
                              timeout=self.args.seconds * 3 + 60)
            if data is not None:
                normalise(res, data, mode, size)
                fill_cpu(res)
        except Exception as e:  # noqa: BLE001 -- a failing run must not end the comparison
            res.error = f"{type(e).__name__}: {e}"
        self.runs_done += 1
        line = f"  round {rnd} {tool:7} {wl:8}"
        if res.error:
            line += f" ERROR {res.error}"
        else:
            line += (f" {res.mib_s:8.2f} MiB/s {res.iops:8.1f} IOPS avg {fmt_ms(res.lat_avg)} ms"
                     f"  cpu {fmt(res.cpu_pct, 0)}%  other {fmt(res.other_cpu_pct, 0)}%  ops {res.ops}")
        log(line)
        return res

    def run(self) -> None:
        a = self.args
        big = [w for w in ("write4m", "seq4m", "rand4m") if w in a.workloads]
        small = [w for w in ("write4k",) if w in a.workloads]
        for rnd in range(1, a.rounds + 1):
            order = TOOLS if rnd % 2 == 1 else TOOLS[::-1]
            log(f"round {rnd}/{a.rounds}: {order[0]} first")
            for group in (big, small):
                if not group:
                    continue
                for pos, tool in enumerate(order):
                    run_name = f"cmp_{tool}_{os.getpid()}_r{rnd}_{group[0]}"
                    wrote: Result | None = None
                    if group[0] not in ("write4m", "write4k"):  # reads without the write workload
                        wrote = self.run_one(tool, "write4m", rnd, pos, run_name)
                        wrote.workload = "prep"
                        self.results.append(wrote)
                    for wl in group:
                        if WORKLOADS[wl][0] != "write" and (wrote is None or wrote.error):
                            r = Result(tool=tool, workload=wl, round=rnd, position=pos,
                                       error=f"no data to read: the write failed ({wrote.error if wrote else '?'})")
                            log(f"  round {rnd} {tool:7} {wl:8} skipped: {r.error}")
                        else:
                            r = self.run_one(tool, wl, rnd, pos, run_name)
                        if WORKLOADS[wl][0] == "write":
                            wrote = r
                        self.results.append(r)
                    if wrote is not None and not (tool == "cephtui" and not self.cephtui_ok):
                        self.cleanup(run_name)


# ------------------------------------------------------------------ report

def fmt(x: float | None, digits: int = 2, width: int = 0) -> str:
    s = "-" if x is None else f"{x:.{digits}f}"
    return s.rjust(width) if width else s


def fmt_ms(x: float | None) -> str:
    return fmt(None if x is None else x * 1000, 1)


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def summarise(results: list[Result], rounds: int, workloads: list[str], threads: int, seconds: int) -> dict:
    out: dict[str, Any] = {}
    for wl in workloads:
        mode, size, title = WORKLOADS[wl]
        rows: list[dict[str, Any]] = []
        for rnd in range(1, rounds + 1):
            pair = {t: next((r for r in results if r.workload == wl and r.round == rnd and r.tool == t), None)
                    for t in TOOLS}
            c, n = pair["cephtui"], pair["native"]
            row: dict[str, Any] = {"round": rnd, "first": TOOLS[0] if rnd % 2 == 1 else TOOLS[1],
                                   "cephtui": c, "native": n,
                                   "thr_ratio": None, "iops_ratio": None, "lat_ratio": None, "cpu_ratio": None}
            if c is not None and n is not None and not c.error and not n.error:
                row.update(thr_ratio=ratio(c.mib_s, n.mib_s), iops_ratio=ratio(c.iops, n.iops),
                           lat_ratio=ratio(n.lat_avg, c.lat_avg), cpu_ratio=ratio(c.cpu_us_per_op, n.cpu_us_per_op))
            rows.append(row)
        thr = median([r["thr_ratio"] for r in rows])
        goal = GOALS.get(size, 0.95)
        cpu_goal = CPU_GOALS.get(size)
        cpu_ratio = median([r["cpu_ratio"] for r in rows])
        out[wl] = {
            "title": f"{title}, {threads} threads, {seconds} s", "mode": mode, "size": size, "rows": rows,
            "median_thr_ratio": thr,
            "median_iops_ratio": median([r["iops_ratio"] for r in rows]),
            "median_lat_ratio": median([r["lat_ratio"] for r in rows]),
            "median_cpu_per_op_ratio": cpu_ratio,
            "goal": goal, "meets_goal": None if thr is None else thr >= goal,
            "cpu_goal": cpu_goal,
            "meets_cpu_goal": None if cpu_goal is None or cpu_ratio is None else cpu_ratio <= cpu_goal,
            "median": {t: {k: median([getattr(r[t], k) for r in rows if r[t] is not None and not r[t].error])
                           for k in ("mib_s", "iops", "lat_avg", "lat_p99", "cpu_pct", "cpu_us_per_op",
                                     "osd_cpu_pct", "host_busy_pct", "other_cpu_pct", "ops")}
                       for t in TOOLS},
        }
    return out


def print_report(summary: dict, machine: dict) -> None:
    print()
    print(f"machine: {machine['nproc']} CPUs ({machine['cpu_model']}), load {machine['loadavg']}, "
          f"python {machine['python']}")
    print(f"ceph: client {machine['ceph_client']}; cluster {machine['ceph_cluster']}")
    print(f"cluster: {machine['cluster']}")
    if machine["foreign_daemons"]:
        print(f"WARNING: {len(machine['foreign_daemons'])} ceph daemons of other clusters share this host "
              f"(numbers are noisier)")
    print("ratios: thr = cephtui/native MiB/s, lat = native/cephtui avg latency (both: >1 is better for "
          "cephtui); cpu% = client CPU, % of one core, steady part of the run; cpu/op = cephtui/native "
          "client CPU per op (<1 is better for cephtui)")
    for s in summary.values():
        print()
        print(f"== {s['title']} ==")
        hdr = (f"{'rnd':>3} {'first':7} | {'cephtui MiB/s':>13} {'IOPS':>8} {'avg ms':>7} {'p99 ms':>7} "
               f"{'cpu%':>5} | {'native MiB/s':>12} {'IOPS':>8} {'avg ms':>7} {'cpu%':>5} | "
               f"{'thr':>5} {'lat':>5} {'cpu/op':>6}")
        print(hdr)
        print("-" * len(hdr))
        for r in s["rows"]:
            c, n = r["cephtui"], r["native"]
            cells = []
            for res, with_p99 in ((c, True), (n, False)):
                width = 45 if with_p99 else 36  # the header's columns, trailing space included
                if res is None or res.error:
                    msg = "(not run)" if res is None else "ERROR: " + res.error
                    cells.append(msg[:width - 1].ljust(width))
                else:
                    cell = f"{fmt(res.mib_s, 2, 13 if with_p99 else 12)} {fmt(res.iops, 1, 8)} " \
                           f"{fmt_ms(res.lat_avg):>7} "
                    if with_p99:
                        cell += f"{fmt_ms(res.lat_p99):>7} "
                    cell += f"{fmt(res.cpu_pct, 0, 5)} "
                    cells.append(cell)
            print(f"{r['round']:>3} {r['first']:7} | {cells[0]}| {cells[1]}| "
                  f"{fmt(r['thr_ratio'], 3, 5)} {fmt(r['lat_ratio'], 3, 5)} {fmt(r['cpu_ratio'], 3, 6)}")
        mc, mn = s["median"]["cephtui"], s["median"]["native"]
        verdict = {None: "n/a", True: "MEETS", False: "MISSES"}[s["meets_goal"]]
        print(f"median ratio: throughput {fmt(s['median_thr_ratio'], 3)} (goal >= {s['goal']}: {verdict}), "
              f"IOPS {fmt(s['median_iops_ratio'], 3)}, latency {fmt(s['median_lat_ratio'], 3)}")
        print(f"median client CPU: cephtui {fmt(mc['cpu_pct'], 0)}% ({fmt(mc['cpu_us_per_op'], 0)} us/op), "
              f"native {fmt(mn['cpu_pct'], 0)}% ({fmt(mn['cpu_us_per_op'], 0)} us/op); "
              f"OSDs {fmt(mc['osd_cpu_pct'], 0)}% vs {fmt(mn['osd_cpu_pct'], 0)}%; "
              f"host busy {fmt(mc['host_busy_pct'], 0)}% vs {fmt(mn['host_busy_pct'], 0)}%; "
              f"other processes {fmt(mc['other_cpu_pct'], 0)}% vs {fmt(mn['other_cpu_pct'], 0)}%")
        cpu_verdict = {None: "n/a", True: "MEETS", False: "MISSES"}[s["meets_cpu_goal"]]
        goal_text = f" (goal <= {s['cpu_goal']}: {cpu_verdict})" if s["cpu_goal"] is not None else ""
        print(f"median client CPU per op ratio (cephtui/native): {fmt(s['median_cpu_per_op_ratio'], 3)}{goal_text}")
        if s["mode"] != "write":
            print(f"median objects read: cephtui {fmt(mc['ops'], 0)}, native {fmt(mn['ops'], 0)} "
                  f"(a seq run stops once it has read every object the write left)")


def machine_info(conf: str, cluster_desc: str) -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    client = sh(["ceph", "--version"]).stdout.strip()
    r = sh(["ceph", "-c", conf, "version", "-f", "json"], timeout=30)
    try:
        cluster = json.loads(r.stdout).get("version", r.stdout.strip())
    except ValueError:
        cluster = (r.stdout or r.stderr).strip()
    return {
        "nproc": os.cpu_count(), "cpu_model": model, "loadavg": Path("/proc/loadavg").read_text().split()[:3],
        "python": platform.python_version(), "ceph_client": client, "ceph_cluster": cluster,
        "cluster": cluster_desc, "foreign_daemons": foreign_ceph_daemons(conf),
    }


# ------------------------------------------------------------------ main

def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--conf", help="an existing cluster's ceph.conf (the pool must exist)")
    where.add_argument("--sandbox", metavar="DIR", help="use (starting it if needed) the sandbox in DIR; kept")
    p.add_argument("--dir", default="/tmp/sbx-cmp", help="where the script's own sandbox goes (default %(default)s)")
    p.add_argument("--port", type=int, default=7020, help="its mon port (default %(default)s)")
    p.add_argument("--osds", type=int, default=3)
    p.add_argument("--pool", default="cmp")
    p.add_argument("--seconds", type=int, default=10, help="per run (default %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved A/B rounds (default %(default)s)")
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--settle", type=float, default=1.5, help="sleep after PGs are clean, before each run")
    p.add_argument("--quiet", type=float, default=40.0,
                   help="before each run wait until the host is below this busy %% (default %(default)s)")
    p.add_argument("--quiet-wait", type=float, default=10.0, help="... but at most this many seconds")
    p.add_argument("--workloads", default="write4m,seq4m,write4k",
                   help=f"comma separated, from {','.join(WORKLOADS)} (default %(default)s)")
    p.add_argument("--cephtui", help="command that runs cephtui (default: .venv/bin/python -m cephtui)")
    p.add_argument("--json", metavar="PATH", help="write every number to PATH ('-' for stdout)")
    args = p.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    args.workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    bad = [w for w in args.workloads if w not in WORKLOADS]
    if bad or args.rounds < 1 or args.seconds < 1:
        p.error(f"unknown workload(s) {bad}" if bad else "--rounds and --seconds must be >= 1")

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)

    own_dir: str | None = None
    started = time.monotonic()
    bench: Bench | None = None
    rc = 0
    try:
        if args.conf:
            conf, desc = args.conf, f"existing ({args.conf}), pool {args.pool}"
            if args.pool not in sh(["ceph", "-c", conf, "osd", "pool", "ls"], timeout=60).stdout.split():
                raise SystemExit(f"pool {args.pool!r} does not exist in {conf}; create it or pass --pool")
        else:
            d = args.sandbox or args.dir
            fresh = not (Path(d) / "ceph.conf").exists()
            cmd = [*SANDBOX, "start", d, "--osds", str(args.osds), "--pool", f"{args.pool}:32"]
            if fresh:
                cmd += ["--port", str(args.port)]
            if not args.sandbox:
                own_dir = d  # ours: purged at the end, even if it was left over from an interrupted run
            log(f"starting sandbox: {shlex.join(cmd)}")
            r = sh(cmd, timeout=300)
            if r.returncode != 0:
                raise SystemExit(f"sandbox start failed: {r.stderr.strip()[-800:]}")
            conf = r.stdout.strip().splitlines()[-1]
            pools = sh(["ceph", "-c", conf, "osd", "pool", "ls"]).stdout.split()
            if args.pool not in pools:
                for c in (["osd", "pool", "create", args.pool, "32"],
                          ["osd", "pool", "application", "enable", args.pool, "rbd"]):
                    sh(["ceph", "-c", conf, *c])
            desc = f"sandbox {d}, {args.osds} OSDs (bluestore on sparse files), pool {args.pool} size 3, 32 PGs"
        bench = Bench(args, conf)
        machine = machine_info(conf, desc)
        if not bench.cephtui_ok:
            log(f"cephtui bench is not available ({bench.cephtui_why}); running the native side only")
        if machine["foreign_daemons"]:
            log(f"warning: {len(machine['foreign_daemons'])} ceph daemons of other clusters on this host")
        bench.run()
        summary = summarise(bench.results, args.rounds, args.workloads, args.threads, args.seconds)
        print_report(summary, machine)
        elapsed = time.monotonic() - started
        print(f"\n{bench.runs_done} runs in {elapsed:.0f} s")
        if args.json:
            doc = {
                "machine": machine, "settings": {k: v for k, v in vars(args).items()},
                "cephtui_available": bench.cephtui_ok, "elapsed_s": elapsed,
                "workloads": {wl: {**{k: v for k, v in s.items() if k != "rows"},
                                   "rounds": [{**{k: v for k, v in row.items() if k not in TOOLS},
                                               **{t: asdict(row[t]) if row[t] else None for t in TOOLS}}
                                              for row in s["rows"]]}
                              for wl, s in summary.items()},
                "runs": [asdict(r) for r in bench.results],
            }
            text = json.dumps(doc, indent=2, default=str)
            if args.json == "-":
                print(text)
            else:
                Path(args.json).write_text(text + "\n")
                log(f"wrote {args.json}")
    except KeyboardInterrupt:
        log("interrupted")
        rc = 130
    finally:
        for proc in list(CURRENT):  # only the client this script started
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if own_dir:
            log(f"stopping sandbox {own_dir}")
            sh([*SANDBOX, "stop", own_dir, "--purge"], timeout=300)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
