"""The latency probe on the real sandbox: a floor below the writes, words that name it, nothing left behind."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph import ops
from cephtui.ceph.bench.netfloor import CONNECT_TIMEOUT, handshake, measure_floor, public_addresses
from cephtui.ceph.bench.params import BenchError
from cephtui.ceph.bench.probe import rados_probe
from cephtui.ceph.bench.probe_result import ms, write_floor
from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from tests.conftest import wait_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.tier
def test_the_probe_reports_a_floor_below_its_writes_and_words_naming_it(sandbox: Any, tmp_path: Path) -> None:
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    try:
        audit = ops.AuditLog(tmp_path / "audit.log", cluster=client.fsid())
        phases: list[str] = []
        probe, runner = rados_probe(client, "rbd", audit, None, seconds=2, on_phase=phases.append)
        r = probe.run()
    finally:
        client.close()
    assert runner.problems == []
    assert phases == ["measuring the network's floor", "random 4 KiB writes, one in flight",
                      "random 4 KiB reads, one in flight", "removing the probe's objects"]
    f = r.floor
    assert f.osds_answered == f.osds_serving == 3 and f.unreachable == ()
    assert "no heartbeat ping times (" not in f.note, f.note  # the mgr's dump_osd_network answered (tell_mgr)
    assert 0 < f.client_rtt < r.write.p50 and 0 < write_floor(f, r.shape) < r.write.p50
    # A read needs one round trip: below it lies the fastest handshake seen. The median handshake is no floor
    # for a cached read on loopback: a handshake does more than a read on an open connection, and on a loaded
    # host (CI's Reef tier, three releases side by side) it came out 190 us against reads' p50 of 124 us.
    assert r.read is not None and 0 < f.client_rtt_min < r.read.p50
    assert r.write.ops > 0 and r.read.ops > 0 and r.write.p50 <= r.write.p99 <= r.write.p999 <= r.write.max
    assert r.osd_write.ops >= r.write.ops and r.osd_read.ops >= r.read.ops  # the OSDs counted every op
    text = "\n".join(r.words)
    assert f"The network floor for a write is {ms(write_floor(f, r.shape))} (" in text
    assert "Where the time goes" in text and "TCP handshakes from this host to 3 OSDs" in text
    assert "objects were removed" in r.finish_note
    assert not [o for o in _objects(sandbox.conf) if "latency_probe" in o or o.startswith("benchmark_data")]


def test_the_floor_probes_only_the_pools_osds_and_answers_quickly(sandbox: Any) -> None:
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    try:
        f = measure_floor(client.mon, "rbd")
    finally:
        client.close()
    assert sorted(f.serving) == [0, 1, 2] and f.osds_probed == 3 and 0 < f.client_rtt_min <= f.client_rtt < 0.05


def test_headless_json_carries_the_probe_and_its_runs(sandbox: Any, tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "bench", "--pool", "rbd",
                          "--seconds", "1", "--latency", "--json", "--no-save"], capture_output=True, text=True,
                         timeout=90, cwd=ROOT, env={**os.environ, "CEPHTUI_AUDIT_LOG": str(tmp_path / "audit.log")})
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert d["kind"] == "rados" and d["floor"]["client_rtt"] > 0 and d["write"]["p50"] > d["write_floor"] > 0
    assert [r["mode"] for r in d["runs"]] == ["write", "rand"] and d["words"][0].startswith("Latency probe")
    assert "sec Cur ops" not in res.stderr  # no per-second lines with --json


def test_the_probe_refuses_a_temporary_pool_and_read_only_mode_clearly(sandbox: Any, tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "bench", "--temp-pool",
                          "--latency"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert res.returncode == 2 and "give --pool P" in res.stderr and "Traceback" not in res.stderr
    res = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "--read-only", "bench",
                          "--pool", "rbd", "--mode", "seq", "--latency"], capture_output=True, text=True, timeout=60,
                         cwd=ROOT)
    assert res.returncode == 2 and "bench --latency writes to the cluster" in res.stderr, res.stderr
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf)), read_only=True).connect()
    try:
        probe, _ = rados_probe(client, "rbd", ops.AuditLog(tmp_path / "audit.log"), None, seconds=1)
        with pytest.raises(BenchError, match="read-only mode"):
            probe.run()
    finally:
        client.close()
    assert not [o for o in _objects(sandbox.conf) if o.startswith("benchmark_data")]


def _objects(conf: Path) -> list[str]:
    res = subprocess.run(["rados", "-c", str(conf), "-p", "rbd", "ls"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


def test_a_dead_osd_costs_the_floor_one_timeout_and_is_named(sandbox: Any) -> None:
    client = CephClient(ConnectionSpec(conffile=str(sandbox.conf))).connect()
    try:
        addr = public_addresses(client.mon("osd dump"), [2])[0]
        sandbox.kill("osd.2")  # still up in the osdmap until its peers report it: its address refuses
        wait_until(lambda: not handshake(addr, samples=1).rtts, 30, "osd.2's port to close")
        t0 = time.monotonic()
        f = measure_floor(client.mon, "rbd")
        took = time.monotonic() - t0
        dump = client.mon("osd dump")
        still_up = any(o["osd"] == 2 and o["up"] for o in dump["osds"])
    finally:
        client.close()
        sandbox.revive("osd.2")
        sandbox.heal()
    assert took < 2 * CONNECT_TIMEOUT + 5  # one connect timeout at most (a refusal is immediate), plus the asks
    if still_up:  # its address refused: named as unreachable
        assert f.unreachable == (2,) and "no handshake within" in f.note and f.osds_answered == 2
    else:  # marked down before the probe (the PG map may still list it): not probed, and said so
        assert (2 in f.down and "osd.2 is down in the osdmap" in f.note) or 2 not in f.serving
        assert f.unreachable == () and f.osds_answered == f.osds_probed == 2
    assert f.client_rtt > 0
