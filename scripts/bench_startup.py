#!/usr/bin/env python3
"""Time to first painted health, and the cost of one refresh, against the `ceph` CLI in the same run.

    .venv/bin/python scripts/bench_startup.py [--conf CONF] [--runs 5]
    .venv/bin/python scripts/bench_startup.py --pyz dist/cephtui.pyz [--conf CONF] [--runs 5]

Without --conf it starts (and afterwards stops) its own sandbox cluster.
  first paint   `cephtui` launched in tmux until the screen shows HEALTH_  vs  `ceph -s` wall time
  refresh       one SnapshotBuilder.build() (what every tick costs)        vs  `ceph -s` wall time
                and vs one bare `status` mon command on the same handle (the floor)

--pyz PYZ times the first paint of `/usr/bin/python3 PYZ` against the venv-installed `cephtui`, side by
side in the same run, launches interleaved: cold (each pyz launch with a new, empty SHIV_ROOT, so it unpacks
everything first) and warm (one SHIV_ROOT, unpacked once beforehand), and prints the ratios.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from capturelib import conf_or_sandbox  # noqa: E402  (scripts/, on the path when run as a script)

from cephtui.ceph.client import CephClient  # noqa: E402
from cephtui.ceph.connection import ConnectionSpec  # noqa: E402
from cephtui.ceph.snapshot.builder import SnapshotBuilder  # noqa: E402

CEPHTUI = str(ROOT / ".venv" / "bin" / "cephtui")
# A tmux server of this run's own: no other user's sessions or environment, ended at the end of the run.
TMUX = ["tmux", "-L", f"ctbench{os.getpid()}"]


def ceph_s(conf: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["ceph", "-c", conf, "-s"], check=True, capture_output=True)
    return time.perf_counter() - t0


def first_paint(conf: str, command: list[str] | None = None, env: dict[str, str] | None = None) -> float:
    """Seconds from launch until the screen shows HEALTH_. env: extra variables for the command."""
    return paint_and_cpu(conf, command, env)[0]


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) that a running process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def paint_and_cpu(conf: str, command: list[str] | None = None,
                  env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds until the screen shows HEALTH_, CPU seconds the process used until then).

    The CPU time hardly depends on what else the machine runs, the wall time does."""
    session = f"ctbench{time.monotonic_ns()}"
    cmd = [*(command or [CEPHTUI]), "-c", conf]
    if env:  # set for the command itself: the tmux server may be older than this process's environment
        cmd = ["env", *(f"{k}={v}" for k, v in env.items()), *cmd]
    t0 = time.perf_counter()
    subprocess.run([*TMUX, "new-session", "-d", "-s", session, "-x", "160", "-y", "48", *cmd], check=True)
    try:
        while True:
            screen = subprocess.run([*TMUX, "capture-pane", "-p", "-t", session], capture_output=True,
                                    text=True).stdout
            if "HEALTH_" in screen:
                wall = time.perf_counter() - t0
                pid = subprocess.run([*TMUX, "display-message", "-p", "-t", session, "#{pane_pid}"],
                                     capture_output=True, text=True, check=True).stdout.strip()
                return wall, process_cpu(int(pid))
            if time.perf_counter() - t0 > 20:
                raise SystemExit("cephtui did not paint health within 20 s:\n" + screen)
            time.sleep(0.01)
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def bench(conf: str, runs: int) -> None:
    paint = [first_paint(conf) for _ in range(runs)]
    cli = [ceph_s(conf) for _ in range(runs)]
    client = CephClient(ConnectionSpec(conffile=conf)).connect()
    try:
        builder = SnapshotBuilder(client)
        builder.build(pg_table=True)  # warm the epoch caches, as a running app has them
        refresh, refresh_pgs, floor = [], [], []
        for _ in range(30):
            t0 = time.perf_counter()
            builder.build()
            refresh.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            builder.build(pg_table=True)
            refresh_pgs.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            client.mon("status")
            floor.append(time.perf_counter() - t0)
    finally:
        client.close()
    m = statistics.median
    print(f"median of {runs} launches / 30 refreshes; reference measured in this run")
    print(f"  ceph -s (process)                      {ms(m(cli))}")
    print(f"  cephtui start -> health painted        {ms(m(paint))}   ratio to ceph -s {m(paint) / m(cli):.2f}")
    print(f"  refresh (one snapshot)                 {ms(m(refresh))}   ratio to ceph -s {m(refresh) / m(cli):.3f}"
          f"   to one status command {m(refresh) / m(floor):.1f}")
    print(f"  refresh with the PG table              {ms(m(refresh_pgs))}   ratio to ceph -s "
          f"{m(refresh_pgs) / m(cli):.3f}")
    print(f"  one status mon command (same handle)   {ms(m(floor))}")


def bench_pyz(conf: str, runs: int, pyz: str, python: str, root_dir: str = "/tmp") -> None:
    """First paint of the pyz, cold and warm, against the venv-installed command, interleaved."""
    root = Path(tempfile.mkdtemp(prefix="ctbench-shivroot-", dir=root_dir))
    pyz_cmd = [python, pyz]
    try:
        warm_root = root / "warm"
        first_paint(conf, pyz_cmd, {"SHIV_ROOT": str(warm_root)})  # unpack once: what "warm" means
        first_paint(conf)  # and the installed one's pyc and page cache, likewise
        installed: list[tuple[float, float]] = []
        cold: list[tuple[float, float]] = []
        warm: list[tuple[float, float]] = []
        for i in range(runs):
            installed.append(paint_and_cpu(conf))
            cold_root = root / f"cold{i}"
            cold.append(paint_and_cpu(conf, pyz_cmd, {"SHIV_ROOT": str(cold_root)}))
            shutil.rmtree(cold_root, ignore_errors=True)
            warm.append(paint_and_cpu(conf, pyz_cmd, {"SHIV_ROOT": str(warm_root)}))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    m = statistics.median
    size = os.path.getsize(pyz) / 1e6
    print(f"first paint, median of {runs} launches each, interleaved; {pyz} ({size:.1f} MB) run by {python};"
          f" load average {os.getloadavg()[0]:.1f}; SHIV_ROOTs under {root_dir}")
    base_wall, base_cpu = m(w for w, _ in installed), m(c for _, c in installed)
    for label, runs_ in (("installed (.venv/bin/cephtui)", installed), ("pyz cold (empty SHIV_ROOT)", cold),
                         ("pyz warm (unpacked before)", warm)):
        wall, cpu = m(w for w, _ in runs_), m(c for _, c in runs_)
        print(f"  {label:30s} wall {ms(wall)} ratio {wall / base_wall:.2f}   cpu {ms(cpu)} ratio "
              f"{cpu / base_cpu:.2f}   wall runs: {fmt([w for w, _ in runs_])}")


def fmt(values: list[float]) -> str:
    return " ".join(f"{v * 1000:.0f}" for v in values)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conf")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--pyz", help="time this pyz's first paint (cold and warm) against the installed cephtui")
    p.add_argument("--python", default="/usr/bin/python3", help="the Python that runs the pyz (default: %(default)s)")
    p.add_argument("--shiv-root-dir", default="/tmp", help="where the pyz unpacks, cold and warm (default: "
                   "%(default)s; /dev/shm: the same without the disk)")
    args = p.parse_args()

    if args.pyz and os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        # Python would never cache the unpacked modules' bytecode (the installed ones came with theirs
        # from pip): unset for both, as on an admin's shell. Before the tmux server starts: the
        # commands inherit its environment.
        print("note: PYTHONDONTWRITEBYTECODE unset for this measure")

    def run(conf: str) -> None:
        # The server stays up between launches (it would exit with its last session, racing the next one).
        subprocess.run([*TMUX, "start-server", ";", "set-option", "-g", "exit-empty", "off"], check=True)
        try:
            if args.pyz:
                bench_pyz(conf, args.runs, str(Path(args.pyz).resolve()), args.python, args.shiv_root_dir)
            else:
                bench(conf, args.runs)
        finally:
            subprocess.run([*TMUX, "kill-server"], capture_output=True)

    with conf_or_sandbox(args.conf, "ctbench-", "--pool", "rbd:32") as conf:
        run(conf)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
