"""The benchmark engines' shared core without a binding: the sampling loop's ends (time limit with nothing in
flight, a hang) and what the cluster adds to a finished run."""
from __future__ import annotations

import errno
import json
import time
from typing import Any

from cephtui.ceph.bench.diagnosis import Diagnosis
from cephtui.ceph.bench.enginecore import EngineCore, with_cluster_notes
from cephtui.ceph.bench.params import BenchParams
from tests.unit.test_bench import _result


class _Idle(EngineCore[BenchParams]):
    """An engine that issues nothing: only the core's part of a run."""

    def _ops_left(self) -> bool:
        return True

    def start(self) -> None:
        self._t0 = self._last_completion = time.monotonic()
        self._end = self._t0 + self.p.seconds


def test_a_run_left_with_nothing_in_flight_ends_at_its_time_limit_not_as_a_hang() -> None:
    core = _Idle(BenchParams(pool="p", seconds=0.3, op_timeout=1), op_size=4096, total_ops=0, host="h", pid=1)
    core.start()
    began = time.monotonic()
    assert core._sample_until_idle() is False  # no claim is left to set idle: the loop sets it itself
    assert time.monotonic() - began < 1.0 and not core.abandoned
    assert core._samples == [] and core.progress().phase == "draining"


def test_ops_that_never_come_back_make_the_run_abandoned() -> None:
    core = _Idle(BenchParams(pool="p", seconds=60, op_timeout=1), op_size=4096, total_ops=0, host="h", pid=1)
    core.start()
    core._live.started = 2  # in flight, and the last completion longer ago than op_timeout + 5
    core._last_completion -= 6.5
    assert core._sample_until_idle() is True and core.abandoned
    assert core._elapsed(True) >= 0  # an abandoned run's time goes on to now, not to its last completion
    tally = core._tally()
    assert (tally.in_flight, tally.finished, tally.failed) == (2, 0, 0)


class _Handle:
    def __init__(self, fsid: str | None, dump: dict[str, Any] | None = None) -> None:
        self.fsid, self.dump = fsid, dump
        self.asked: list[str] = []

    def get_fsid(self) -> str:
        if self.fsid is None:
            raise OSError("the mon went away")
        return self.fsid

    def mon_command(self, cmd: str, inbuf: bytes) -> tuple[int, bytes, str]:
        self.asked.append(json.loads(cmd)["prefix"])
        return 0, json.dumps(self.dump or {}).encode(), ""


def test_a_finished_run_gets_its_clusters_fsid_and_the_osdmaps_word_on_timeouts() -> None:
    ok = with_cluster_notes(_result(), _Handle("f-1"), "rbd")
    assert ok.cluster == "f-1" and ok.error is None

    full = {"pools": [{"pool_name": "rbd", "flags_names": "hashpspool,full"}]}
    handle = _Handle("f-1", full)
    timed_out = with_cluster_notes(_result(error="an op got no reply", errno=errno.ETIMEDOUT), handle, "rbd")
    assert timed_out.error == "an op got no reply. The osdmap says: pool rbd is full" and handle.asked == ["osd dump"]

    handle = _Handle(None, full)
    told = with_cluster_notes(_result(error="abandoned", errno=errno.ETIMEDOUT), handle, "rbd",
                              Diagnosis(reasons=("osd.3 is down",)))
    assert told.error == "abandoned. The osdmap says: osd.3 is down" and handle.asked == []  # the engine's own
    assert told.cluster == ""  # no fsid to be had: the result stands without it

    quiet = with_cluster_notes(_result(error="x", errno=errno.ETIMEDOUT), _Handle("f-1"), "rbd", Diagnosis())
    assert quiet.error == "x"  # nothing in the osdmap: the error as the engine said it
