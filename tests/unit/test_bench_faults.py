"""An OSD that goes down under its per-OSD bench: said so, not mistaken for one that was down already."""
from __future__ import annotations

import errno
import time
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.bench.osdbench import WENT_DOWN_AFTER, OSDBench, OSDBenchParams
from cephtui.ceph.errors import CephError
from tests.releases import release_params


class DiesUnderBench:
    """osd.1 answers "osd down" after `delay` seconds (librados' answer when the OSD is marked down)."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def osd_tell(self, osd: int, prefix: str, **args: Any) -> Any:
        if osd == 1:
            time.sleep(self.delay)
            raise CephError(errno.ENXIO, "osd down", f"osd.{osd} {prefix}")
        return {"bytes_written": args["count"], "blocksize": args["size"], "elapsed_sec": 0.5,
                "bytes_per_sec": args["count"] * 2, "iops": 2 * args["count"] / args["size"]}


def test_an_osd_that_dies_mid_bench_is_named_and_the_sweep_goes_on() -> None:
    bench = OSDBench(DiesUnderBench(WENT_DOWN_AFTER + 0.2), [1, 2], OSDBenchParams(8 << 20, 4 << 20))
    one, two = bench.run()
    assert one.error == "osd.1 went down during its bench (no result)" and not one.ok
    assert two.ok and two.bytes_written == 8 << 20


def test_an_osd_down_before_the_bench_is_just_down() -> None:
    (one,) = OSDBench(DiesUnderBench(0.0), [1], OSDBenchParams(8 << 20, 4 << 20)).run()
    assert one.error == "osd.1 is down"


@pytest.mark.parametrize("path", release_params("osd_map_stall"))
def test_timed_out_ops_say_what_their_pgs_wait_for(path: Path) -> None:
    """osd_map_stall.json: osd.1 killed; `osd map` of objects in a min_size-3 pool and in a size-1 pool."""
    import json

    from cephtui.ceph.bench.diagnosis import diagnose_osdmap, waiting_on
    from cephtui.ceph.recording import ReplayClient

    client = ReplayClient.load(path)
    objects = json.loads(path.read_text())["meta"]["objects"]
    dump = client.mon("osd dump")
    strict = [client.mon("osd map", pool="strict", object=o) for o in objects["strict"]]
    one = [client.mon("osd map", pool="one", object=o) for o in objects["one"]]
    assert strict and one
    text = waiting_on(strict, dump)
    pgs = ", ".join(sorted({m["pgid"] for m in strict}))
    assert text == (f"the ops that timed out were waiting on PG {pgs} with fewer OSDs acting than the pool's "
                    "min_size 3 (inactive until an OSD returns)")
    pgs = ", ".join(sorted({m["pgid"] for m in one}))
    assert waiting_on(one, dump) == (f"the ops that timed out were waiting on PG {pgs} with no OSD acting "
                                     "(their copies are on down OSDs)")
    d = diagnose_osdmap(dump, "strict")
    assert d.down == (1,) and not d.full and d.text == "1 OSD(s) down and in: osd.1"
    assert waiting_on([], dump) is None


def _result_with(samples: list[tuple[int, int, int]]) -> Any:
    from cephtui.ceph.bench.params import BenchParams
    from cephtui.ceph.bench.results import BenchResult, Sample

    s = tuple(Sample(sec=sec, finished=0, ops=ops, mib_s=0.0, avg_lat=0.0, max_lat=0.0, in_flight=inf)
              for sec, ops, inf in samples)
    zero = dict.fromkeys(("total_time_run", "bandwidth", "stddev_bandwidth", "max_bandwidth", "min_bandwidth",
                          "average_iops", "stddev_iops", "average_latency", "stddev_latency", "max_latency",
                          "min_latency", "latency_p50", "latency_p95", "latency_p99"), 0.0)
    return BenchResult(params=BenchParams(pool="rbd"), started_at=0.0, host="h", pid=1, object_prefix="p", ops=1,
                       failed_ops=0, op_size=4096, object_size=4096, max_iops=0, min_iops=0, samples=s, **zero)


def test_a_stall_of_seconds_is_said_in_the_pane_and_the_detail_a_hiccup_is_not() -> None:
    from cephtui.ui.screens.bench_views import result_table
    from cephtui.ui.screens.bench_views import stall_text as _stall_text
    from tests.ui.helpers import plain

    stalled = _result_with([(1, 90, 16), (2, 0, 16), (3, 0, 16), (4, 0, 16), (5, 0, 16), (6, 80, 16)])
    assert stalled.longest_stall == (2, 4)
    assert _stall_text(stalled) == "stalled 4 s from second 2 (ops in flight, none completed)"
    assert "Stall" in plain(result_table(stalled)) and "4 s from second 2" in plain(result_table(stalled))
    hiccup = _result_with([(1, 90, 16), (2, 0, 16), (3, 80, 16)])  # a busy host, no fault
    assert hiccup.longest_stall == (2, 1) and _stall_text(hiccup) == ""
    assert "Stall" not in plain(result_table(hiccup))
