"""The bench engine in its worker process, on the real sandbox: the same result as in this process, a stop
mid-run, a parent killed with -9, and no process left behind."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from cephtui.ceph.bench.engine import run_bench
from cephtui.ceph.bench.params import BenchParams
from cephtui.ceph.bench.remote import RemoteEngine, run_remote, worker_pids
from cephtui.ceph.bench.results import BenchResult, Sample
from cephtui.ceph.connection import ConnectionSpec
from tests.cluster.test_bench import bench_objects
from tests.conftest import wait_until

ROOT = Path(__file__).resolve().parents[2]


def gone(pid: int) -> bool:
    """Exited: no such process, or a zombie (an orphan's parent may be a container's init that never reaps)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_run_in_the_worker_has_every_field_of_a_run_in_this_process(sandbox: Any) -> None:
    spec = ConnectionSpec(conffile=str(sandbox.conf))
    p = BenchParams(pool="rbd", seconds=2, op_size=4096, threads=8)
    here = run_bench(spec, p)
    samples: list[Sample] = []
    there = run_remote(spec, p, on_sample=samples.append)
    for r in (here, there):
        assert r.ok and not r.stopped and r.ops > 0 and r.failed_ops == 0 and r.params == p
        assert 0 < r.latency_p50 <= r.latency_p99 <= r.max_latency and len(r.samples) >= 2
        assert r.cleanup_note == f"cleanup removed {r.ops} objects"
        assert r.average_iops == r.ops / r.total_time_run
    assert there.to_dict().keys() == here.to_dict().keys()
    assert there.cluster == here.cluster == sandbox.ceph("fsid")["fsid"]
    assert there.samples == tuple(samples)  # each second reached this process as it happened
    assert here.pid == os.getpid() != there.pid and there.object_prefix.endswith(f"_{there.pid}")
    assert gone(there.pid) and not worker_pids()
    assert bench_objects(sandbox.conf, "rbd") == []
    assert all(isinstance(getattr(there, f.name), type(getattr(here, f.name))) for f in fields(BenchResult))


def test_stop_mid_run_gives_partial_results_and_cleans_up(sandbox: Any) -> None:
    spec = ConnectionSpec(conffile=str(sandbox.conf))
    box: dict[str, RemoteEngine] = {}

    def on_sample(s: Sample) -> None:
        if s.sec == 2:
            box["engine"].stop()
    box["engine"] = engine = RemoteEngine(spec, BenchParams(pool="rbd", seconds=60, op_size=4096),
                                          on_sample=on_sample)
    r = engine.run()
    assert r.stopped and r.ok and r.ops > 0 and r.total_time_run < 15 and len(r.samples) >= 2
    assert r.cleanup_note == f"cleanup removed {r.ops} objects"
    assert bench_objects(sandbox.conf, "rbd") == []
    assert engine.progress().phase == "done" and gone(r.pid)


PARENT = """
import sys
sys.path.insert(0, sys.argv[1])
from cephtui.ceph.bench.params import BenchParams
from cephtui.ceph.bench.remote import run_remote
from cephtui.ceph.connection import ConnectionSpec
run_remote(ConnectionSpec(conffile=sys.argv[2]), BenchParams(pool="rbd", seconds=120, op_size=4096),
           on_start=lambda e: print("worker", e.pid, flush=True),
           on_sample=lambda s: print("sample", s.sec, flush=True))
"""


def test_a_parent_killed_with_sigkill_leaves_no_worker_and_no_objects(sandbox: Any) -> None:
    """The worker reads EOF on its stdin: it stops, removes its objects and exits on its own."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(ROOT), str(sandbox.conf)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        words = parent.stdout.readline().split()
        assert words[:1] == ["worker"], words + [parent.stderr.read() if parent.stderr else ""]
        pid = int(words[1])
        while parent.stdout.readline().split() != ["sample", "2"]:
            pass
        wait_until(lambda: bench_objects(sandbox.conf, "rbd"), 10, "objects written by the worker")
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        wait_until(lambda: gone(pid), 60, f"the worker {pid} to exit after its parent died")
        assert bench_objects(sandbox.conf, "rbd") == []  # it cleaned up before exiting
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
