#!/usr/bin/env python3
"""Memory soak: does the real cephtui stay flat when left open for an hour, switching tabs?

    .venv/bin/python scripts/soak.py [--conf CONF | --sandbox DIR] [--minutes 60] [--refresh 1]
                                     [--warmup 15] [--tolerance 0.03] [--tracemalloc DIR]

Runs the real `cephtui -c CONF --refresh 1` in a detached tmux session (a real pty, as an admin
would), sends a tab key (1..9) every --switch seconds with a few cursor moves, and samples the
process's RSS (psutil) every --sample seconds. Prints one line per --report minutes and, at the
end, the least-squares slope of RSS over the samples after --warmup minutes. Exits 1 when that
slope exceeds --tolerance MB/min (default 0.03 = 1.8 MB/h; the leak seen in issue 16 was 0.5) or
when cephtui dies or stops painting; 0 otherwise.

--csv FILE also writes every sample. --no-gc-freeze (diagnosis) makes cephtui's gc.freeze() a no-op.
--tracemalloc DIR runs cephtui under tracemalloc (slower, more memory) and makes it dump a snapshot
and gc type counts to DIR at every report; the end compares the last dump with the first one taken
after warm-up and prints the lines whose allocations grew most and the object types whose counts grew.

Starts its own 3-OSD sandbox unless --conf is given, and stops (purges) only that one; ends only the
tmux session it started. Loopback only.
"""
from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
PY = ROOT / ".venv" / "bin" / "python"
SANDBOX = ROOT / "scripts" / "sandbox.py"
TABS = "1234567890"  # Health … Doctor (cephtui/ui/tabs.py, number_key)
MOVES = ("Down", "Down", "Up", "End", "Home")

# Run inside cephtui's process when --tracemalloc is given: SIGUSR1 dumps a snapshot and gc type counts.
# The handler runs on the main thread between bytecodes, i.e. between two event-loop steps.
WRAPPER = r"""
import gc, os, pickle, signal, sys, tracemalloc
from collections import Counter
if os.environ.get("SOAK_NO_GC_FREEZE"):
    gc.freeze = lambda: None
OUT = os.environ.get("SOAK_TRACE_DIR")
if OUT:
    tracemalloc.start(12)
n = [0]
def dump(signum, frame):
    gc.collect()
    counts = Counter(type(o).__qualname__ for o in gc.get_objects())
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap>")])
    with open(os.path.join(OUT, "dump-%03d.pickle" % n[0]), "wb") as f:
        pickle.dump({"snap": snap, "counts": counts, "traced": tracemalloc.get_traced_memory()}, f)
    n[0] += 1
if OUT:
    signal.signal(signal.SIGUSR1, dump)
from cephtui.launcher import main
sys.argv[0] = "cephtui"
sys.exit(main())
"""


SOCKET = f"cephtui-soak-{os.getpid()}"  # a tmux server of our own: other users of tmux cannot end it


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=False).stdout


def screen(session: str) -> str:
    return tmux("capture-pane", "-p", "-t", session)


def slope_mb_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) points, in MB per minute."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mm = sum(m for _, m in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    return sum((t - mt) * (m - mm) for t, m in points) / var * 60


def rss_mb(proc: psutil.Process) -> float:
    return proc.memory_info().rss / 2**20


def compare_dumps(first: Path, last: Path, top: int = 25) -> None:
    import pickle

    a = pickle.loads(first.read_bytes())
    b = pickle.loads(last.read_bytes())
    print(f"\ntracemalloc {first.name} -> {last.name}: traced {a['traced'][0] / 2**20:.1f} -> "
          f"{b['traced'][0] / 2**20:.1f} MB")
    for stat in b["snap"].compare_to(a["snap"], "traceback")[:top]:
        if stat.size_diff <= 0:
            continue
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks")
        for line in stat.traceback.format(limit=6, most_recent_first=True):
            print("     ", line.strip())
    grown = sorted(((b["counts"][k] - a["counts"].get(k, 0), k) for k in b["counts"]), reverse=True)
    print("object types that grew most:", ", ".join(f"{k} {d:+d}" for d, k in grown[:20] if d > 0))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--conf", help="a running cluster's ceph.conf (else a sandbox is started)")
    p.add_argument("--sandbox", help="directory for the sandbox this script starts (default: a new /tmp dir)")
    p.add_argument("--osds", type=int, default=3)
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--refresh", type=float, default=1.0)
    p.add_argument("--sample", type=float, default=10.0, help="seconds between RSS samples")
    p.add_argument("--switch", type=float, default=3.0, help="seconds between tab switches")
    p.add_argument("--report", type=float, default=5.0, help="minutes between report lines")
    p.add_argument("--warmup", type=float, default=15.0, help="minutes excluded from the slope")
    p.add_argument("--tolerance", type=float, default=0.03, help="max slope after warm-up, MB/min")
    p.add_argument("--tracemalloc", metavar="DIR", help="run under tracemalloc and dump snapshots to DIR")
    p.add_argument("--csv", metavar="FILE", help="also write every sample (seconds, MB) to FILE")
    p.add_argument("--no-gc-freeze", action="store_true", help="diagnosis: make cephtui's gc.freeze() a no-op")
    a = p.parse_args(argv)
    if a.warmup >= a.minutes:
        p.error("--warmup must be shorter than --minutes")
    return a


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    # SIGTERM/SIGHUP end the soak through the finally below, which ends cephtui and the sandbox it started.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(2))
    started_sandbox = None
    try:
        if a.conf:
            conf = a.conf
        else:
            started_sandbox = a.sandbox or tempfile.mkdtemp(prefix="sb-soak-", dir="/tmp")
            subprocess.run([sys.executable, str(SANDBOX), "start", started_sandbox, "--osds", str(a.osds),
                            "--pool", "rbd:32"], check=True)
            conf = os.path.join(started_sandbox, "ceph.conf")
        return run(a, conf)
    finally:
        if started_sandbox:
            subprocess.run([sys.executable, str(SANDBOX), "stop", started_sandbox, "--purge"], check=False)


def run(a: argparse.Namespace, conf: str) -> int:
    session = f"cephtui-soak-{os.getpid()}"
    env = "SOAK_NO_GC_FREEZE=1 " if a.no_gc_freeze else ""
    if a.tracemalloc:
        Path(a.tracemalloc).mkdir(parents=True, exist_ok=True)
        env += f"SOAK_TRACE_DIR={shlex.quote(os.path.abspath(a.tracemalloc))} "
    if env:
        cmd = [str(PY), "-c", WRAPPER]
    else:
        cmd = [str(ROOT / ".venv" / "bin" / "cephtui")]
    cmd += ["-c", conf, "--refresh", str(a.refresh)]
    # exec: the pane's pid is cephtui itself, so psutil measures it and nothing else.
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "36", f"exec env {env}{shlex.join(cmd)}")
    socket_path = tmux("display-message", "-p", "-t", session, "#{socket_path}").strip()
    try:
        return soak(a, session)
    finally:
        tmux("kill-server")  # our own server (SOCKET): its one session, cephtui in it
        if socket_path.endswith(SOCKET):
            Path(socket_path).unlink(missing_ok=True)


def soak(a: argparse.Namespace, session: str) -> int:
    pid = int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip() or 0)
    proc = psutil.Process(pid)
    t0 = time.monotonic()
    while "HEALTH_" not in screen(session):
        if time.monotonic() - t0 > 120 or not proc.is_running():
            print("cephtui did not paint HEALTH_ within 120 s:\n" + screen(session))
            return 1
        time.sleep(0.5)  # polling a foreign process's screen: nothing to wait on but time
    print(f"cephtui pid {pid} painted after {time.monotonic() - t0:.1f} s; RSS {rss_mb(proc):.1f} MB; "
          f"--refresh {a.refresh:g}, tab switch every {a.switch:g} s, {a.minutes:g} min, "
          f"warm-up {a.warmup:g} min, tolerance {a.tolerance:g} MB/min", flush=True)
    t0 = time.monotonic()
    end = t0 + a.minutes * 60
    samples: list[tuple[float, float]] = [(0.0, rss_mb(proc))]
    next_sample = t0 + a.sample
    next_switch = t0 + a.switch
    next_report = t0
    switches = 0
    last_report_mb = samples[0][1]
    dumps: list[tuple[float, Path]] = []
    while True:
        now = time.monotonic()
        if not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE:
            print("cephtui exited during the soak:\n" + screen(session))
            return 1
        if now >= next_switch:
            tmux("send-keys", "-t", session, TABS[switches % len(TABS)])
            tmux("send-keys", "-t", session, MOVES[switches % len(MOVES)])
            switches += 1
            next_switch += a.switch
        if now >= next_sample:
            samples.append((now - t0, rss_mb(proc)))
            if a.csv:
                with open(a.csv, "a") as f:
                    f.write(f"{samples[-1][0]:.0f},{samples[-1][1]:.2f}\n")
            next_sample += a.sample
        if now >= next_report:
            mb = rss_mb(proc)
            print(f"{(now - t0) / 60:6.1f} min  RSS {mb:7.1f} MB  ({mb - last_report_mb:+6.1f} since last line)  "
                  f"tabs switched {switches}", flush=True)
            last_report_mb = mb
            if a.tracemalloc:
                n = len(list(Path(a.tracemalloc).glob("dump-*.pickle")))
                proc.send_signal(signal.SIGUSR1)
                dumps.append((now - t0, Path(a.tracemalloc) / f"dump-{n:03d}.pickle"))
            next_report += a.report * 60
        if now >= end:
            break
        time.sleep(max(0.05, min(next_switch, next_sample, next_report, end) - time.monotonic()))
    final = screen(session)
    painted = "HEALTH_" in final or "Activity" in final
    after = [(t, m) for t, m in samples if t >= a.warmup * 60]
    slope = slope_mb_per_min(after)
    warm_mb = after[0][1] if after else samples[-1][1]
    print(f"\nRSS: start {samples[0][1]:.1f} MB, after warm-up ({a.warmup:g} min) {warm_mb:.1f} MB, "
          f"end {samples[-1][1]:.1f} MB, max {max(m for _, m in samples):.1f} MB; {len(samples)} samples")
    print(f"slope after warm-up: {slope:+.4f} MB/min ({slope * 60:+.2f} MB/h); tolerance {a.tolerance:g} MB/min")
    if a.tracemalloc:
        time.sleep(2)  # let the last dump finish writing (it is a separate process's file)
        warm = [p for t, p in dumps if t >= a.warmup * 60 and p.exists()]
        if len(warm) >= 2:
            compare_dumps(warm[0], warm[-1])
        elif len(dumps) >= 2 and dumps[-1][1].exists():
            compare_dumps(dumps[0][1], dumps[-1][1])
    if not painted:
        print("cephtui's screen is blank at the end:\n" + final)
        return 1
    if slope > a.tolerance:
        print("FAIL: memory keeps growing after warm-up")
        return 1
    print("OK: memory flat after warm-up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
