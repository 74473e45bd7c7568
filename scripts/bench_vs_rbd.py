#!/usr/bin/env python3
"""cephtui's block bench against native `rbd bench` and `fio --ioengine=rbd`, interleaved A/B on one image.

    .venv/bin/python scripts/bench_vs_rbd.py [--rounds 3] [--caches off,writeback] [--json out.json]
    .venv/bin/python scripts/bench_vs_rbd.py --sandbox /tmp/sbx-rbd        # use / start that sandbox, keep it
    .venv/bin/python scripts/bench_vs_rbd.py --conf /etc/ceph/ceph.conf --pool bench   # existing cluster

Without --conf / --sandbox it starts its own sandbox (scripts/sandbox.py, 3 OSDs) in /tmp/sbx-rbdcmp on
port 7030 and purges it at the end, also on Ctrl-C or error. In the pool (created with the rbd application
when missing) it creates one image, fills it once with 4 MiB sequential writes so that reads read data,
and removes it at the end.

Workloads (--workloads), each with --threads IOs in flight:
  randwrite4k  4 KiB random writes        randread4k  4 KiB random reads
  seqwrite4m   4 MiB sequential writes
each in every client cache mode of --caches: `off` (CEPH_ARGS=--rbd_cache=false, what a VM with
cache=none feels) and `writeback` (--rbd_cache=true --rbd_cache_policy=writeback
--rbd_cache_writethrough_until_flush=false). Both tools get the same CEPH_ARGS, the same image, the
same --io-total. Then the latency probe's write phase (4 KiB random writes, one in flight, --probe-seconds)
against `fio --ioengine=rbd --iodepth=1 --rw=randwrite --bs=4k` in the same cache mode (fio's default
direct=0: with --direct=1 its rbd engine writes through even when the cache is on, 2.3 ms against 33 µs here).
The probe is held against fio's total latency (`lat`: from the submit call to the completion, with
--lat_percentiles=1), which is what cephtui times. fio's default percentiles are `clat`, from after the submit
call returned: with the writeback cache the submit call itself is ~26 µs of a ~55 µs write, so `clat` would
compare half a write with a whole one. Its p50 is printed beside.

Per round the order alternates (cephtui first in odd rounds). Between runs: PGs active+clean, then --settle s.
Ratios: cephtui/native for throughput (above 1: cephtui faster), cephtui/fio for the probe's p50 (below 1:
cephtui lower). Client CPU per op: the client's process tree (cephtui's engine may be a child process)
sampled from /proc every 0.1 s over the steady part of the run, divided by the ops of that window.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench_vs_rados import tree_cpu_ticks  # scripts/, on the path when run as a script

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = ["/usr/bin/python3", str(ROOT / "scripts" / "sandbox.py")]
VENV_PY = ROOT / ".venv" / "bin" / "python"
MiB = 1024 * 1024
CLK_TCK = os.sysconf("SC_CLK_TCK")
CACHE_ARGS = {"off": "--rbd_cache=false",
              "writeback": "--rbd_cache=true --rbd_cache_policy=writeback --rbd_cache_writethrough_until_flush=false"}
WORKLOADS = {  # name -> (io type, pattern, io size, title)
    "randwrite4k": ("write", "rand", 4096, "4 KiB random writes"),
    "randread4k": ("read", "rand", 4096, "4 KiB random reads"),
    "seqwrite4m": ("write", "seq", 4 * MiB, "4 MiB sequential writes"),
}
GOAL_THROUGHPUT, GOAL_PROBE = 0.95, 1.05
TOOLS = ("cephtui", "native")
CURRENT: list[subprocess.Popen] = []


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def sh(cmd: list[str], timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


class TreeSampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.done, self.t0 = pid, threading.Event(), time.monotonic()
        self.samples: list[tuple[float, int]] = []

    def run(self) -> None:
        while not self.done.is_set():
            ticks = tree_cpu_ticks(self.pid)
            if ticks is not None:
                self.samples.append((time.monotonic() - self.t0, ticks))
            self.done.wait(0.1)

    def cpu_seconds(self, lo: float, hi: float) -> tuple[float, float] | None:
        """(CPU seconds, window length) between the samples nearest inside [lo, hi]."""
        a = next((s for s in self.samples if s[0] >= lo), None)
        b = next((s for s in reversed(self.samples) if s[0] <= hi), None)
        if a is None or b is None or b[0] - a[0] < 0.5:
            return None
        return (b[1] - a[1]) / CLK_TCK, b[0] - a[0]


@dataclass
class Run:
    tool: str
    workload: str
    cache: str
    round: int
    position: int
    cmd: str = ""
    error: str | None = None
    iops: float | None = None
    bytes_per_sec: float | None = None
    elapsed: float | None = None
    p50: float | None = None  # seconds
    p99: float | None = None
    clat_p50: float | None = None  # fio only: completion latency, after the submit call returned
    wall: float | None = None
    cpu_us_per_op: float | None = None
    raw: dict = field(default_factory=dict)


def run_client(run: Run, argv: list[str], env: dict[str, str], timeout: float) -> str | None:
    """Run one client, sampling its process tree's CPU; its stdout, or None with run.error set."""
    run.cmd = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k == "CEPH_ARGS") + " " + shlex.join(argv)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})
    CURRENT.append(proc)
    sampler = TreeSampler(proc.pid)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        run.error = f"timed out after {timeout:.0f}s"
    finally:
        sampler.done.set()
        sampler.join()
        CURRENT.remove(proc)
    run.wall = time.monotonic() - t0
    run._sampler = sampler  # type: ignore[attr-defined]
    if run.error:
        return None
    if proc.returncode != 0:
        run.error = f"exit {proc.returncode}: {(err.strip() or out.strip())[-400:]}"
        return None
    return out


def fill_cpu(run: Run) -> None:
    """Client CPU per op over the steady window: the run's last `elapsed` seconds minus 0.5 s at each end
    (startup and connecting come before; the final flush and teardown are cut off)."""
    sampler: TreeSampler | None = getattr(run, "_sampler", None)
    if sampler is None or not run.elapsed or not run.iops or run.wall is None:
        return
    del run._sampler  # type: ignore[attr-defined]
    start = max(0.0, run.wall - run.elapsed - 0.3)
    got = sampler.cpu_seconds(start + 0.5, start + run.elapsed - 0.5)
    if got:
        cpu, window = got
        run.cpu_us_per_op = cpu / window / run.iops * 1e6


_NATIVE_TOTAL = re.compile(r"elapsed:\s*([\d.]+)\s+ops:\s*(\d+)\s+ops/sec:\s*([\d.]+)\s+bytes/sec:\s*([\d.]+)\s*(\S*)")
_UNITS = {"": 1, "B/s": 1, "KiB/s": 1024, "MiB/s": MiB, "GiB/s": 1024 * MiB}


def parse_rbd_bench(text: str) -> dict[str, float]:
    """`elapsed: 10   ops: 262144   ops/sec: 25446.5   bytes/sec: 99 MiB/s` (Reef prints units, Pacific may not)."""
    m = _NATIVE_TOTAL.search(text)
    if not m:
        raise ValueError(f"no totals line in rbd bench output: {text[-300:]!r}")
    return {"elapsed_int": float(m.group(1)), "ops": float(m.group(2)), "ops_per_sec": float(m.group(3)),
            "bytes_per_sec": float(m.group(4)) * _UNITS.get(m.group(5), 1)}


class Compare:
    def __init__(self, args: argparse.Namespace, conf: str) -> None:
        self.args, self.conf = args, conf
        self.image = f"cmp-{os.getpid()}"
        self.runs: list[Run] = []
        self.cephtui = [str(VENV_PY), "-m", "cephtui"] if not args.cephtui else shlex.split(args.cephtui)

    def ceph(self, *words: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return sh(["ceph", "-c", self.conf, *words], timeout=timeout)

    def wait_clean(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r = self.ceph("pg", "stat", "-f", "json")
            try:
                s = json.loads(r.stdout)
                s = s.get("pg_summary", s)
                states = {x["name"]: x["num"] for x in s.get("num_pg_by_state", [])}
                if set(states) == {"active+clean"}:
                    return
            except (ValueError, KeyError, AttributeError):
                pass
            time.sleep(0.5)
        log("  warning: PGs not all active+clean; continuing")

    def settle(self) -> None:
        self.wait_clean()
        if self.args.settle > 0:
            time.sleep(self.args.settle)

    def prepare(self) -> None:
        a = self.args
        pools = self.ceph("osd", "pool", "ls").stdout.split()
        if a.pool not in pools:
            self.ceph("osd", "pool", "create", a.pool, "32")
            r = sh(["rbd", "-c", self.conf, "pool", "init", a.pool])
            if r.returncode:
                raise SystemExit(f"rbd pool init {a.pool}: {r.stderr.strip()}")
        r = sh(["rbd", "-c", self.conf, "create", "--size", a.image_size, f"{a.pool}/{self.image}"])
        if r.returncode:
            raise SystemExit(f"rbd create: {r.stderr.strip()}")
        log(f"filling {a.pool}/{self.image} ({a.image_size}) once with 4 MiB sequential writes")
        r = sh(["rbd", "-c", self.conf, "bench", "--io-type", "write", "--io-size", "4M", "--io-threads", "16",
                "--io-total", a.image_size, "--io-pattern", "seq", f"{a.pool}/{self.image}"], timeout=1800,
               env={**os.environ, "CEPH_ARGS": CACHE_ARGS["off"]})
        if r.returncode:
            raise SystemExit(f"filling the image failed: {r.stderr.strip()[-300:]}")

    def remove_image(self) -> None:
        sh(["rbd", "-c", self.conf, "rm", "--no-progress", f"{self.args.pool}/{self.image}"], timeout=600)

    def total(self, wl: str) -> str:
        return self.args.total_4k if WORKLOADS[wl][2] == 4096 else self.args.total_4m

    def argv(self, tool: str, wl: str) -> list[str]:
        io_type, pattern, size, _ = WORKLOADS[wl]
        common = ["--io-type", io_type, "--io-size", str(size), "--io-threads", str(self.args.threads),
                  "--io-total", self.total(wl), "--io-pattern", pattern]
        if tool == "native":
            return ["rbd", "-c", self.conf, "bench", *common, f"{self.args.pool}/{self.image}"]
        confirm = ["--yes-i-really-mean-it", self.image] if io_type != "read" else []
        return [*self.cephtui, "-c", self.conf, "bench", "rbd", "--pool", self.args.pool, "--image", self.image,
                *common, "--cache", "off", "--json", "--no-save", *confirm]

    def run_one(self, tool: str, wl: str, cache: str, rnd: int, pos: int) -> Run:
        run = Run(tool, wl, cache, rnd, pos)
        self.settle()
        argv = self.argv(tool, wl)
        if tool == "cephtui":
            argv[argv.index("--cache") + 1] = cache
        out = run_client(run, argv, {"CEPH_ARGS": CACHE_ARGS[cache]}, timeout=self.args.timeout)
        if out is not None:
            try:
                if tool == "native":
                    d = parse_rbd_bench(out)
                    run.iops, run.bytes_per_sec = d["ops_per_sec"], d["bytes_per_sec"]
                    run.elapsed = d["ops"] / d["ops_per_sec"] if d["ops_per_sec"] else None
                else:
                    d = json.loads(out)
                    run.iops, run.bytes_per_sec, run.elapsed = d["ops_per_sec"], d["bytes_per_sec"], d["elapsed"]
                    run.p50, run.p99 = d["latency"]["p50"], d["latency"]["p99"]
                run.raw = d
            except (ValueError, KeyError) as e:
                run.error = f"cannot read the output: {e}"
        fill_cpu(run)
        self.runs.append(run)
        log(f"  {wl:<12} cache {cache:<9} {tool:<8} " + (f"ERROR {run.error}" if run.error else
            f"{run.iops:9.0f} IOPS {run.bytes_per_sec / MiB:8.1f} MiB/s cpu/op "
            f"{run.cpu_us_per_op or 0:6.1f} µs"))
        return run

    def probe_one(self, tool: str, cache: str, rnd: int, pos: int) -> Run:
        """The latency probe's write phase against fio --iodepth=1, same image and cache mode."""
        run = Run("cephtui" if tool == "cephtui" else "fio", "probe", cache, rnd, pos)
        self.settle()
        secs = str(self.args.probe_seconds)
        if tool == "cephtui":
            argv = [*self.cephtui, "-c", self.conf, "bench", "rbd", "--pool", self.args.pool, "--image", self.image,
                    "--io-type", "write", "--io-pattern", "rand", "--io-size", "4096", "--io-threads", "1",
                    "--io-total", "100G", "--seconds", secs, "--cache", cache, "--json", "--no-save",
                    "--yes-i-really-mean-it", self.image]
        else:
            argv = ["fio", "--name=probe", "--ioengine=rbd", "--clientname=admin", f"--pool={self.args.pool}",
                    f"--rbdname={self.image}", "--rw=randwrite", "--bs=4k", "--iodepth=1",
                    f"--runtime={secs}", "--time_based", "--lat_percentiles=1", "--output-format=json"]
        env = {"CEPH_ARGS": CACHE_ARGS[cache], "CEPH_CONF": self.conf}
        out = run_client(run, argv, env, timeout=self.args.timeout)
        if out is not None:
            try:
                if tool == "cephtui":
                    d = json.loads(out)
                    run.iops, run.elapsed = d["ops_per_sec"], d["elapsed"]
                    run.p50, run.p99 = d["latency"]["p50"], d["latency"]["p99"]
                else:
                    d = json.loads(out[out.index("{"):])
                    w = d["jobs"][0]["write"]
                    pct = w["lat_ns"]["percentile"]  # submit + completion, as cephtui times it
                    run.iops, run.elapsed = w["iops"], w["runtime"] / 1000
                    run.p50, run.p99 = pct["50.000000"] / 1e9, pct["99.000000"] / 1e9
                    run.clat_p50 = w["clat_ns"]["percentile"]["50.000000"] / 1e9
                run.raw = d
            except (ValueError, KeyError, IndexError) as e:
                run.error = f"cannot read the output: {e}"
        fill_cpu(run)
        self.runs.append(run)
        log(f"  probe        cache {cache:<9} {run.tool:<8} " + (f"ERROR {run.error}" if run.error else
            f"p50 {run.p50 * 1e3:.3f} ms p99 {run.p99 * 1e3:.3f} ms {run.iops:7.0f} IOPS"
            + (f" (clat p50 {run.clat_p50 * 1e3:.3f} ms)" if run.clat_p50 else "")))
        return run

    def run(self) -> None:
        a = self.args
        for rnd in range(1, a.rounds + 1):
            order = TOOLS if rnd % 2 else TOOLS[::-1]
            log(f"round {rnd}/{a.rounds} (first: {order[0]})")
            for cache in a.caches:
                for wl in a.workloads:
                    for pos, tool in enumerate(order):
                        self.run_one(tool, wl, cache, rnd, pos)
                if a.probe:
                    for pos, tool in enumerate(order):
                        self.probe_one(tool, cache, rnd, pos)


def median(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return statistics.median(vals) if vals else None


def summarise(runs: list[Run], args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for cache in args.caches:
        for wl in [*args.workloads, *(["probe"] if args.probe else [])]:
            ratios, cpu_ratios, ours, theirs, cpu_ours, cpu_theirs, clats = [], [], [], [], [], [], []
            for rnd in range(1, args.rounds + 1):
                pick = {r.tool: r for r in runs if r.workload == wl and r.cache == cache and r.round == rnd
                        and not r.error}
                a = pick.get("cephtui")
                b = pick.get("fio" if wl == "probe" else "native")
                if not a or not b:
                    continue
                if wl == "probe":
                    ratios.append(a.p50 / b.p50 if a.p50 and b.p50 else None)
                    ours.append(a.p50)
                    theirs.append(b.p50)
                    clats.append(b.clat_p50)
                else:
                    ratios.append(a.iops / b.iops if a.iops and b.iops else None)
                    ours.append(a.iops)
                    theirs.append(b.iops)
                cpu_ours.append(a.cpu_us_per_op)
                cpu_theirs.append(b.cpu_us_per_op)
                cpu_ratios.append(a.cpu_us_per_op / b.cpu_us_per_op if a.cpu_us_per_op and b.cpu_us_per_op
                                  else None)
            rows.append({"workload": wl, "cache": cache, "ratio": median(ratios), "ratios": ratios,
                         "cephtui": median(ours), "reference": median(theirs), "cpu_cephtui": median(cpu_ours),
                         "cpu_reference": median(cpu_theirs), "cpu_ratio": median(cpu_ratios),
                         "reference_clat_p50": median(clats)})
    return rows


def print_report(rows: list[dict[str, Any]], args: argparse.Namespace, desc: str) -> bool:
    print(f"\ncephtui bench rbd vs native rbd bench / fio --ioengine=rbd; {desc}; {args.rounds} interleaved rounds, "
          f"{args.threads} IOs in flight, io-total {args.total_4k} (4 KiB) / {args.total_4m} (4 MiB)")
    print(f"{'workload':<13}{'cache':<10}{'cephtui':>12}{'reference':>12}{'ratio':>8}  {'goal':<8}"
          f"{'cpu µs/op':>10}{'ref':>8}{'cpu ratio':>10}  rounds")
    ok = True
    for r in rows:
        probe = r["workload"] == "probe"
        unit = (lambda x: f"{x * 1e3:.3f}ms") if probe else (lambda x: f"{x:.0f} IOPS")
        goal = f"<= {GOAL_PROBE}" if probe else f">= {GOAL_THROUGHPUT}"
        met = r["ratio"] is not None and (r["ratio"] <= GOAL_PROBE if probe else r["ratio"] >= GOAL_THROUGHPUT)
        ok &= met
        print(f"{r['workload']:<13}{r['cache']:<10}{unit(r['cephtui']) if r['cephtui'] else '-':>12}"
              f"{unit(r['reference']) if r['reference'] else '-':>12}"
              f"{r['ratio'] or 0:>8.3f}  {goal + (' ✔' if met else ' ✖'):<8}"
              f"{r['cpu_cephtui'] or 0:>10.1f}{r['cpu_reference'] or 0:>8.1f}{r['cpu_ratio'] or 0:>10.2f}  "
              + " ".join(f"{x:.3f}" if x else "-" for x in r["ratios"]))
    print("reference: native `rbd bench` (throughput rows), `fio --ioengine=rbd --iodepth=1 --rw=randwrite "
          "--bs=4k --lat_percentiles=1` (probe: p50 of fio's total latency, submit to completion, as cephtui "
          "times it); both with the row's CEPH_ARGS cache setting")
    for r in rows:
        if r["workload"] == "probe" and r.get("reference_clat_p50"):
            clat = r["reference_clat_p50"]
            print(f"  fio's clat p50 (after its submit call returned), cache {r['cache']}: {clat * 1e3:.3f} ms; "
                  f"cephtui / clat {r['cephtui'] / clat:.2f}")
    return ok


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--conf", help="an existing cluster's ceph.conf")
    where.add_argument("--sandbox", metavar="DIR", help="use (starting it if needed) the sandbox in DIR; kept")
    p.add_argument("--dir", default="/tmp/sbx-rbdcmp")
    p.add_argument("--port", type=int, default=7030)
    p.add_argument("--pool", default="rbdcmp")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--caches", default="off,writeback", type=lambda s: [c for c in s.split(",") if c])
    p.add_argument("--workloads", default=",".join(WORKLOADS), type=lambda s: [w for w in s.split(",") if w])
    p.add_argument("--no-probe", dest="probe", action="store_false")
    p.add_argument("--probe-seconds", type=int, default=10)
    p.add_argument("--image-size", default="1G")
    p.add_argument("--total-4k", default="64M", help="--io-total of the 4 KiB rows (default %(default)s)")
    p.add_argument("--total-4m", default="1G", help="--io-total of the 4 MiB rows (default %(default)s)")
    p.add_argument("--settle", type=float, default=1.0)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--cephtui", help="command that runs cephtui (default: this checkout's venv)")
    p.add_argument("--json", help="write every run and the summary here")
    args = p.parse_args()
    for c in args.caches:
        if c not in CACHE_ARGS:
            p.error(f"--caches: {c!r} is not one of {', '.join(CACHE_ARGS)}")
    for w in args.workloads:
        if w not in WORKLOADS:
            p.error(f"--workloads: {w!r} is not one of {', '.join(WORKLOADS)}")
    own_dir = ""
    cmp: Compare | None = None
    started = time.monotonic()
    try:
        if args.conf:
            conf, desc = args.conf, f"existing cluster ({args.conf})"
        else:
            d = args.sandbox or args.dir
            cmd = [*SANDBOX, "start", d, "--osds", "3"]
            if not (Path(d) / "ceph.conf").exists():
                cmd += ["--port", str(args.port)]
            own_dir = "" if args.sandbox else d
            log(f"starting sandbox: {shlex.join(cmd)}")
            r = sh(cmd, timeout=300)
            if r.returncode:
                raise SystemExit(f"sandbox start failed: {r.stderr.strip()[-800:]}")
            conf = r.stdout.strip().splitlines()[-1]
            desc = f"sandbox {d}, 3 OSDs (bluestore on sparse files), {os.cpu_count()} cores"
        cmp = Compare(args, conf)
        cmp.prepare()
        cmp.run()
        rows = summarise(cmp.runs, args)
        ok = print_report(rows, args, desc)
        print(f"\n{len(cmp.runs)} runs in {time.monotonic() - started:.0f} s; goals {'met' if ok else 'NOT met'}")
        if args.json:
            Path(args.json).write_text(json.dumps({"summary": rows, "runs": [asdict(r) for r in cmp.runs],
                                                   "settings": vars(args), "cluster": desc}, indent=2, default=str))
            log(f"wrote {args.json}")
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        for proc in list(CURRENT):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if cmp is not None:
            cmp.remove_image()
        if own_dir:
            log(f"stopping sandbox {own_dir}")
            sh([*SANDBOX, "stop", own_dir, "--purge"], timeout=300)


if __name__ == "__main__":
    raise SystemExit(main())
