"""The per-OSD bench against the real sandbox cluster, compared with `ceph tell osd.N bench`."""
from __future__ import annotations

import errno
import time

import pytest

from cephtui.ceph.bench.osdbench import OSDBench, OSDBenchParams, OSDBenchResult, bench_client, cli, rank_results
from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephError
from tests.conftest import Sandbox

MiB = 1024 * 1024
SMALL = OSDBenchParams(64 * MiB, 4 * MiB)


def osd_ids(client: CephClient) -> list[int]:
    return sorted(o["osd"] for o in client.mon("osd dump")["osds"])


def test_osd_tell_reply_has_the_clis_shape(client: CephClient, sandbox: Sandbox) -> None:
    ours = client.osd_tell(0, "bench", count=SMALL.total_bytes, size=SMALL.block_size)
    words = cli(0, SMALL).split()
    assert words[:2] == ["ceph", "tell"]
    theirs = sandbox.ceph(*words[1:])  # ceph tell osd.0 bench 67108864 4194304 -f json
    assert set(ours) == set(theirs) == {"bytes_written", "blocksize", "elapsed_sec", "bytes_per_sec", "iops"}
    for reply in (ours, theirs):
        assert (reply["bytes_written"], reply["blocksize"]) == (64 * MiB, 4 * MiB)
        assert reply["bytes_per_sec"] == pytest.approx(reply["bytes_written"] / reply["elapsed_sec"], rel=1e-6)


def test_sweep_all_osds_matches_the_cli(client: CephClient, sandbox: Sandbox) -> None:
    osds = osd_ids(client)
    assert osds == [0, 1, 2]
    progress: list[tuple[int, int, int | None, bool]] = []
    with bench_client(client.spec, timeout=60) as bc:
        results = OSDBench(bc, osds, SMALL, on_progress=lambda d, t, c, r: progress.append((d, t, c, r is None))).run()
    assert [r.osd for r in results] == osds and all(r.ok for r in results), results
    assert progress[-1] == (3, 3, None, False)
    cli_results = {o: sandbox.ceph("tell", f"osd.{o}", "bench", str(SMALL.total_bytes), str(SMALL.block_size))
                   for o in osds}
    for r in results:
        c = cli_results[r.osd]
        assert (r.bytes_written, r.blocksize) == (c["bytes_written"], c["blocksize"]) == (64 * MiB, 4 * MiB)
        assert r.iops == pytest.approx(r.bytes_per_sec / r.blocksize, rel=1e-6)
        assert 0 < r.elapsed_sec < 30
        # Same disk, same bench: the same order of magnitude (the sandbox shares one noisy disk).
        assert 0.1 < r.bytes_per_sec / c["bytes_per_sec"] < 10, (r, c)
    ranking = rank_results(results)
    assert [row.rank for row in ranking.rows] == [1, 2, 3]
    assert ranking.rows[0].result.bytes_per_sec >= ranking.rows[-1].result.bytes_per_sec


def test_nonexistent_and_refused_are_captured(client: CephClient) -> None:
    with pytest.raises(CephError) as exc:
        client.osd_tell(99, "bench", count=SMALL.total_bytes, size=SMALL.block_size)
    assert exc.value.errno == errno.ENOENT and exc.value.message == "osd dne"
    results = OSDBench(client, [99, 1], SMALL).run()
    assert results[0] == OSDBenchResult(99, error="osd.99 does not exist")
    assert results[1].ok
    # Past the OSD's small-block guard (100 IOPS x 30 s at 4 KiB = 12288000 bytes): its own words.
    refused = OSDBenchParams(12288000 + 4096, 4096)
    assert refused.default_limit_warning()
    (r,) = OSDBench(client, [0], refused).run()
    assert r.error is not None and r.error.startswith("'count' values greater than 12288000")
    assert "osd_bench_small_size_max_iops" in r.error


def test_timed_out_bench_is_waited_for(sandbox: Sandbox) -> None:
    # rados_osd_op_timeout (op_timeout) bounds OSD commands. 3000 MiB is the most the OSD accepts at
    # 4 MiB blocks; here it takes 2.5-4 s, so a 1 s timeout expires while the OSD still writes.
    c = CephClient(ConnectionSpec(conffile=str(sandbox.conf), op_timeout=1)).connect()
    try:
        started = time.monotonic()
        (r,) = OSDBench(c, [0], OSDBenchParams(3000 * MiB, 4 * MiB)).run()
        took = time.monotonic() - started
        if r.ok:
            pytest.skip(f"osd.0 wrote 3000 MiB within 1 s ({r.elapsed_sec:.2f} s): cannot time out here")
        assert r.error == ("no reply from osd.0 within 1s (rados_osd_op_timeout) [errno 110]; "
                           "the bench finished on the OSD later (use a longer timeout)")
        assert took > 1.0
        # The runner returned only once the OSD was idle again: it answers at once now.
        t = time.monotonic()
        assert c.osd_tell(0, "version")["release"]
        assert time.monotonic() - t < 0.5
    finally:
        c.close()
