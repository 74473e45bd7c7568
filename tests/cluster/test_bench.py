"""The bench engine on the real sandbox: native interop both ways, and runs that end in errors, not hangs."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.bench.engine import run_bench
from cephtui.ceph.bench.params import BenchParams
from cephtui.ceph.connection import ConnectionSpec
from tests.conftest import wait_until

ROOT = Path(__file__).resolve().parents[2]


def cephtui_bench(conf: Path, *args: str) -> dict[str, Any]:
    res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(conf), "bench", *args, "--json"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.stdout.strip(), res.stderr
    out = json.loads(res.stdout)
    assert out["error"] is None, out["error"]
    assert res.returncode == 0, res.stderr
    return out


def rados(conf: Path, *args: str) -> str:
    res = subprocess.run(["rados", "-c", str(conf), *args], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout + res.stderr


def bench_objects(conf: Path, pool: str) -> list[str]:
    return [o for o in rados(conf, "-p", pool, "ls").split() if o.startswith("benchmark_")]


@pytest.mark.tier
def test_headless_write_seq_rand_then_native_reads_and_cleans_up(sandbox: Any) -> None:
    conf = sandbox.conf
    w = cephtui_bench(conf, "--pool", "rbd", "--seconds", "3", "-b", "64K", "--no-cleanup", "--run-name", "ct1")
    assert w["ops"] > 10 and w["failed_ops"] == 0 and w["op_size"] == 65536
    assert len(w["samples"]) >= 2 and w["bandwidth"] > 0 and 0 < w["latency_p50"] <= w["latency_p99"]
    # rados bench's identities: bandwidth = ops x op size / time; iops = ops / time
    assert w["bandwidth"] == pytest.approx(w["ops"] * 65536 / 2**20 / w["total_time_run"], rel=1e-6)
    assert len(bench_objects(conf, "rbd")) == w["ops"]  # one object per op
    assert "ct1" in rados(conf, "-p", "rbd", "ls").split()  # and the metadata, under the run name

    s = cephtui_bench(conf, "--pool", "rbd", "--mode", "seq", "--seconds", "10", "--run-name", "ct1")
    assert s["ops"] == w["ops"] and s["verify_errors"] == 0 and s["op_size"] == 65536
    r = cephtui_bench(conf, "--pool", "rbd", "--mode", "rand", "--seconds", "2", "--run-name", "ct1")
    assert r["ops"] > 0 and r["verify_errors"] == 0

    # native rados bench reads what we wrote (it checks every op's contents) and removes it
    native = rados(conf, "-p", "rbd", "bench", "3", "seq", "--run-name", "ct1")
    assert "is not correct" not in native
    assert f"Total reads made:     {w['ops']}" in native
    rados(conf, "-p", "rbd", "cleanup", "--run-name", "ct1")
    assert bench_objects(conf, "rbd") == []


def test_native_writes_we_read_and_clean_up(sandbox: Any) -> None:
    conf = sandbox.conf
    rados(conf, "-p", "rbd", "bench", "2", "write", "-b", "16384", "-O", "32768", "--no-cleanup", "--run-name",
          "nat1")
    left = bench_objects(conf, "rbd")
    assert len(left) > 2 and all(o.startswith("benchmark_data_") for o in left)
    s = cephtui_bench(conf, "--pool", "rbd", "--mode", "seq", "--seconds", "10", "--run-name", "nat1")
    assert s["op_size"] == 16384 and s["object_size"] == 32768 and s["verify_errors"] == 0
    assert s["ops"] >= 2 * len(left) - 1  # two ops per object; the last object may hold one
    res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(conf), "bench", "--pool", "rbd", "--mode",
                          "cleanup", "--run-name", "nat1"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert res.returncode == 0 and f"Removed {len(left)} objects" in res.stdout, res.stdout + res.stderr
    assert bench_objects(conf, "rbd") == []


def test_latency_probe_writes_reads_leaves_nothing_and_is_saved(sandbox: Any, tmp_path: Path,
                                                               monkeypatch: Any) -> None:
    monkeypatch.setenv("CEPHTUI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CEPHTUI_AUDIT_LOG", str(tmp_path / "audit.log"))
    res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "bench", "--pool", "rbd",
                          "--seconds", "2", "--latency"], capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert "Writes: p50" in res.stdout and "Reads: p50" in res.stdout
    assert "The network floor for a write is" in res.stdout
    run_name = res.stderr.split("--run-name ")[1].split()[0]
    assert run_name.startswith("cephtui_latency_probe_")
    for cli in (f"+ rados bench -p rbd 2 write -t 1 -b 4096 --no-cleanup --no-hints --run-name {run_name}",
                f"+ rados bench -p rbd 2 rand -t 1 --run-name {run_name}",
                f"+ rados -p rbd cleanup --run-name {run_name}"):
        assert cli in res.stderr, res.stderr
    assert bench_objects(sandbox.conf, "rbd") == [] and run_name not in rados(sandbox.conf, "-p", "rbd", "ls")
    saved = [json.loads(line) for line in (tmp_path / "bench-history.jsonl").read_text().splitlines()]
    assert [(s["mode"], s["threads"], s["op_size"]) for s in saved] == [("write", 1, 4096), ("rand", 1, 4096)]
    assert saved[0]["cluster"] == sandbox.ceph("fsid")["fsid"]
    audit = (tmp_path / "audit.log").read_text()
    assert audit.count(f"--run-name {run_name}") == 3, audit  # both runs and the cleanup


def test_missing_pool_and_missing_data_are_clear(sandbox: Any) -> None:
    for args, words in ((["--pool", "no-such-pool"], "pool no-such-pool does not exist"),
                        (["--pool", "rbd", "--mode", "seq", "--run-name", "never"], "no bench data in pool rbd")):
        res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "bench", "--seconds", "1",
                              *args], capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert res.returncode == 1 and words in res.stderr and "Traceback" not in res.stderr, res.stderr


def _run_in_thread(spec: ConnectionSpec, params: BenchParams) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}

    def target() -> None:
        box["result"] = run_bench(spec, params, on_start=lambda e: box.setdefault("engine", e))
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


def test_full_pool_ends_the_run_with_the_reason(sandbox: Any) -> None:
    sandbox.ceph("osd", "pool", "create", "ctfull", "8")
    try:
        sandbox.ceph("osd", "pool", "application", "enable", "ctfull", "rbd")
        sandbox.ceph("osd", "pool", "set-quota", "ctfull", "max_bytes", str(8 << 20))
        spec = ConnectionSpec(conffile=str(sandbox.conf))
        t0 = time.monotonic()
        t, box = _run_in_thread(spec, BenchParams(pool="ctfull", seconds=60, op_size=1 << 20, op_timeout=6))
        t.join(90)
        assert not t.is_alive(), "the bench hung on a full pool"
        r = box["result"]
        assert r.error and "quota" in r.error and r.failed_ops > 0
        assert time.monotonic() - t0 < 55  # ended by the error, not by the 60 s duration
    finally:
        sandbox.ceph("osd", "pool", "delete", "ctfull", "ctfull", "--yes-i-really-really-mean-it")


def test_osd_dying_mid_run_ends_within_the_op_timeout(sandbox: Any) -> None:
    """min_size = size: losing one OSD makes PGs inactive; ops must fail with ETIMEDOUT, not hang."""
    sandbox.ceph("osd", "pool", "create", "ctstrict", "8")
    try:
        sandbox.ceph("osd", "pool", "application", "enable", "ctstrict", "rbd")
        sandbox.ceph("osd", "pool", "set", "ctstrict", "min_size", "3")
        spec = ConnectionSpec(conffile=str(sandbox.conf))
        t, box = _run_in_thread(spec, BenchParams(pool="ctstrict", seconds=60, op_size=64 << 10, op_timeout=8))
        wait_until(lambda: "engine" in box and box["engine"].progress().finished > 0 or not t.is_alive(), 30,
                   "the first ops to finish", interval=0.1)
        assert t.is_alive() and box["engine"].progress().finished > 0
        sandbox.kill("osd.1")
        killed = time.monotonic()
        t.join(60)
        assert not t.is_alive(), "the bench hung after an OSD died"
        r = box["result"]
        assert r.error and "no reply within 8 s" in r.error and r.failed_ops > 0 and r.ops > 0
        assert time.monotonic() - killed < 8 + 15
    finally:
        sandbox.revive("osd.1")
        sandbox.ceph("osd", "pool", "delete", "ctstrict", "ctstrict", "--yes-i-really-really-mean-it")
        sandbox.heal()


def test_stop_drains_and_reports_partial_results(sandbox: Any) -> None:
    spec = ConnectionSpec(conffile=str(sandbox.conf))
    t, box = _run_in_thread(spec, BenchParams(pool="rbd", seconds=60, op_size=4096))
    wait_until(lambda: "engine" in box and len(box["engine"].progress().samples) >= 2 or not t.is_alive(), 30,
               "two seconds of samples", interval=0.1)
    box["engine"].stop()
    t.join(30)
    r = box["result"]
    assert r.stopped and r.ok and r.ops > 0 and r.total_time_run < 10 and len(r.samples) >= 2
    assert r.cleanup_note == f"cleanup removed {r.ops} objects"
    assert bench_objects(sandbox.conf, "rbd") == []


def test_permission_denied_is_explained(sandbox: Any, tmp_path: Path) -> None:
    """A key that may only read the pool: the write fails at once with what the key lacks."""
    keyring = tmp_path / "benchro.keyring"
    subprocess.run(["ceph", "-c", str(sandbox.conf), "auth", "get-or-create", "client.benchro", "mon", "allow r",
                    "osd", "allow r pool=rbd", "-o", str(keyring)], check=True, capture_output=True)
    try:
        res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "--id", "benchro", "-k",
                              str(keyring), "bench", "--pool", "rbd", "--seconds", "5", "--json", "--no-save"],
                             capture_output=True, text=True, timeout=60, cwd=ROOT)
        out = json.loads(res.stdout)
        assert res.returncode == 1 and out["ops"] == 0 and out["failed_ops"] >= 1
        assert out["error"] == "permission denied: this key needs osd 'allow rw pool=rbd' (check `ceph auth get`)"
        assert out["total_time_run"] < 5
    finally:
        subprocess.run(["ceph", "-c", str(sandbox.conf), "auth", "del", "client.benchro"], capture_output=True)
    assert bench_objects(sandbox.conf, "rbd") == []


def test_cli_temporary_pool_is_deleted_and_the_note_says_the_objects_went_with_it(sandbox: Any) -> None:
    """--temp-pool --no-cleanup: the objects stay for reads, then go with the pool. `rados cleanup` on a pool
    that is gone, which the note used to suggest here, would only fail."""
    before = [p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")]
    sandbox.ceph("config", "set", "global", "mon_allow_pool_size_one", "true")
    try:
        res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "bench", "--temp-pool",
                              "--seconds", "2", "-b", "64K", "--no-cleanup", "--json", "--no-save"],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert res.returncode == 0, res.stderr
        out = json.loads(res.stdout)
        pool = out["pool"]
        assert pool.startswith("cephtui-bench-") and out["ops"] > 0 and out["error"] is None
        assert out["cleanup_note"] == f"the temporary pool {pool} was deleted with its objects"
        in_osds = sandbox.ceph("osd", "stat")["num_in_osds"]
        pg = {1: 8, 2: 8, 3: 16}[in_osds]
        assert f"+ ceph osd pool create {pool} {pg} {pg} replicated" in res.stderr, res.stderr
        assert f"+ ceph osd pool delete {pool} {pool} --yes-i-really-really-mean-it" in res.stderr
    finally:
        sandbox.ceph("config", "rm", "global", "mon_allow_pool_size_one")
    assert [p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")] == before


def test_the_temporary_pool_is_sized_from_osd_stat_when_the_plan_is_made(sandbox: Any, tmp_path: Path) -> None:
    """The cluster's count of OSDs in at that moment, for the CLI and the Bench tab alike (the tab used its
    last snapshot, which can be a poll behind an OSD marked out)."""
    from cephtui.ceph import ops
    from cephtui.ceph.bench.service import BenchRun
    from cephtui.ceph.client import CephClient

    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    audit = ops.AuditLog(path=tmp_path / "audit.jsonl")
    params = BenchParams(pool="cephtui-bench-sizing")
    try:
        assert sandbox.ceph("osd", "stat")["num_in_osds"] == 3
        assert BenchRun(client, params, audit, temp=True).plan()[0].cli == \
            "ceph osd pool create cephtui-bench-sizing 16 16 replicated"
        sandbox.ceph("osd", "out", "2")
        try:
            run = BenchRun(client, params, audit, temp=True)
            plan = run.plan()
        finally:
            sandbox.ceph("osd", "in", "2")
        assert [op.cli for op in plan] == [
            "ceph osd pool create cephtui-bench-sizing 8 8 replicated",
            "ceph osd pool set cephtui-bench-sizing size 1 --yes-i-really-mean-it",
            "ceph osd pool application enable cephtui-bench-sizing benchmark",
            "rados bench -p cephtui-bench-sizing 10 write -t 16 -b 4194304 --no-hints",
            "ceph osd pool delete cephtui-bench-sizing cephtui-bench-sizing --yes-i-really-really-mean-it"]
        assert run.pg_num() == 8  # what was confirmed is what runs, though osd.2 is back in
        assert not (tmp_path / "audit.jsonl").exists()  # planning sends nothing
    finally:
        client.close()
        sandbox.heal()
