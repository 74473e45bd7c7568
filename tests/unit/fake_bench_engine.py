"""A stand-in for engine.run_bench in the worker process, for the protocol's unit tests (no cluster).

The pool name says what it does: "ok" runs until stopped or `seconds` are over, one sample every 50 ms;
"refuse" raises BenchError; "boom" raises a plain exception; "crash" exits the process mid-run;
"freeze" stops its own process (SIGSTOP) after the first sample: a hung child.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from cephtui.ceph.bench.params import BenchError, BenchParams
from cephtui.ceph.bench.results import BenchResult, Progress, Sample

TICK = 0.05


class FakeEngine:
    def __init__(self, params: BenchParams) -> None:
        self.p = params
        self._stop = threading.Event()
        self.samples: list[Sample] = []
        self.abandoned = params.run_name == "abandon"

    def stop(self) -> None:
        self._stop.set()

    def progress(self) -> Progress:
        n = len(self.samples)
        return Progress(phase="running", elapsed=n * TICK, seconds=self.p.seconds, started=n + 1, finished=n,
                        failed=0, in_flight=1, avg_latency=0.001, samples=tuple(self.samples), op_size=4096)


def run_fake(spec: Any, params: BenchParams, *, on_start: Callable[[Any], None] | None = None,
             on_sample: Callable[[Sample], None] | None = None) -> BenchResult:
    if params.pool == "refuse":
        raise BenchError("pool refuse is full: the fake says no")
    if params.pool == "boom":
        raise RuntimeError("a bug in the fake engine")
    engine = FakeEngine(params)
    if on_start is not None:
        on_start(engine)
    t0 = time.monotonic()
    while not engine._stop.wait(TICK) and time.monotonic() - t0 < params.seconds:
        n = len(engine.samples) + 1
        s = Sample(sec=n, finished=n, ops=1, mib_s=0.5, avg_lat=0.001, max_lat=0.002, in_flight=1)
        engine.samples.append(s)
        if on_sample is not None:
            on_sample(s)
        if params.pool == "crash" and n == 2:
            os._exit(3)
        if params.pool == "freeze" and n == 1:
            os.kill(os.getpid(), signal.SIGSTOP)
    n = len(engine.samples)
    return BenchResult(
        params=params, started_at=time.time(), host=_spec_words(spec), pid=os.getpid(), object_prefix="fake",
        total_time_run=time.monotonic() - t0, ops=n, failed_ops=0, op_size=4096, object_size=4096,
        bandwidth=0.5, stddev_bandwidth=0.0, max_bandwidth=0.5, min_bandwidth=0.5, average_iops=n / 1.0,
        stddev_iops=0.0, max_iops=1, min_iops=1, average_latency=0.001, stddev_latency=0.0, max_latency=0.002,
        min_latency=0.001, latency_p50=0.001, latency_p95=0.002, latency_p99=0.002,
        samples=tuple(engine.samples), stopped=engine._stop.is_set(), cleanup_note="fake cleanup")


def _spec_words(spec: Any) -> str:
    """What the worker made of the connection spec, for the test to check: name, file, extra args."""
    return f"{spec.name}|{spec.conffile}|{type(spec.extra_args).__name__}:{' '.join(spec.extra_args)}"
