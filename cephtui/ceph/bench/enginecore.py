"""What the two benchmark engines share: engine.py's (RADOS, `rados bench`) and rbdengine.py's (block,
`rbd bench`).

Both run alike: the completion callbacks record each op and issue the slot's next one (no thread hop
per op), and the thread that called `run()` only samples once a second and watches for a hang. This
holds that second part: the live counters and the engine's state around them, the sampling loop with
its hang watch, progress, the result's figures (as `rados bench` sums a run up), and what the cluster
adds to a finished run.

Everything here runs once a second or once a run, never per op. The per-op code (claim the next op,
issue it, complete it) stays in each engine, written for its binding: it is what is measured against
native `rados bench`, `rbd bench` and fio, and a shared layer there would cost a call per op. It writes
the counters straight (`self._live`, under `self._lock`, one lock round per op); this reads them under
the same lock.
"""
from __future__ import annotations

import errno as errno_mod
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from cephtui.ceph.bench.diagnosis import Diagnosis, diagnose_stall
from cephtui.ceph.bench.params import MiB
from cephtui.ceph.bench.results import BenchResult, Progress, Sample
from cephtui.ceph.bench.stats import percentile, stddev
from cephtui.ceph.bench.threadstate import ThreadStatePins
from cephtui.ceph.bench.wire import hostname

if TYPE_CHECKING:
    from cephtui.ceph.bench.blockparams import BlockParams
    from cephtui.ceph.bench.params import BenchParams

# The second boundaries are t0 + 1.0 + 1.0 ..., the end t0 + seconds: equal up to a rounding error.
SAMPLE_SLACK = 1e-6

P = TypeVar("P", bound="BenchParams | BlockParams")


@dataclass
class Live:
    """A run's counters, written by the completion callbacks and read by everything else, under the engine's lock."""

    started: int = 0
    finished: int = 0
    failed: int = 0
    latencies: list[float] = field(default_factory=list)  # the finished ops': the per-second figures are read here
    lat_sum: float = 0.0
    first_errno: int = 0
    verify_errors: int = 0  # RADOS reads (with verify on) whose op header is not the one the write run wrote
    reads: int = 0  # block readwrite runs: how the ops split, as rbd bench counts them
    writes: int = 0


@dataclass(frozen=True)
class Tally:
    """The counters at a run's end, read together: an abandoned run's ops may still complete meanwhile."""

    finished: int
    failed: int
    in_flight: int  # an abandoned run's ops that never came back
    lat_sum: float
    latencies: list[float]  # sorted
    samples: tuple[Sample, ...]


class EngineCore(Generic[P]):
    """One run's state and its once-a-second and once-a-run parts. `stop()` and `progress()` from anywhere.

    An engine subclasses it, sets `_t0` and `_end`, submits its first ops, then calls `_sample_until_idle`."""

    def __init__(self, params: P, *, op_size: int, total_ops: int, host: str | None = None,
                 pid: int | None = None, on_sample: Callable[[Sample], None] | None = None) -> None:
        self.p = params
        self.host = host or hostname()
        self.pid = pid or os.getpid()
        self.on_sample = on_sample
        self.abandoned = False  # ops never came back: the handle must not be shut down under them
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._idle = threading.Event()  # set when the run is over and nothing is in flight
        self._live = Live()
        self._samples: list[Sample] = []
        self._sampled = 0  # latencies already in a sample
        self._phase = "running"
        self._t0 = 0.0
        self._end = math.inf  # the time limit, once run() sets one
        self._last_completion = 0.0
        self._op_size = op_size  # of this run: a RADOS read run's comes from the write run's metadata
        self._total_ops = total_ops  # what progress counts toward (0: the run is bounded by time alone)
        # librados and librbd complete ops on threads of their own: without a pin, each op creates and destroys
        # a Python thread state there (threadstate.py; measured on the RADOS engine: a third of the client's CPU).
        self._pins = ThreadStatePins()
        self._pinned = self._pins.threads

    # ---- control
    def stop(self) -> None:
        """Stop issuing ops; in-flight ones finish and the partial result is reported."""
        self._stop.set()

    def progress(self) -> Progress:
        with self._lock:
            live = self._live
            elapsed = time.monotonic() - self._t0 if self._t0 else 0.0
            return Progress(
                phase=self._phase, elapsed=elapsed, seconds=self.p.seconds, started=live.started,
                finished=live.finished, failed=live.failed, in_flight=live.started - live.finished - live.failed,
                avg_latency=live.lat_sum / live.finished if live.finished else 0.0,
                samples=tuple(self._samples), total_ops=self._total_ops, op_size=self._op_size)

    # ---- the run
    def _ops_left(self) -> bool:
        """Whether the run had ops left to issue when its loop ended (objects to read, io_total not reached)."""
        raise NotImplementedError

    def _sample_until_idle(self) -> bool:
        """The calling thread's part of a run, from its first ops until nothing is in flight: a sample each
        second and the hang watch. True: no op completed for op_timeout + 5 s, and the run was abandoned."""
        live = self._live
        next_sample = self._t0 + 1.0
        hung = False
        while not self._idle.wait(max(0.0, min(0.25, next_sample - time.monotonic()))):
            now = time.monotonic()
            if now >= next_sample:
                self._take_sample(int(round(next_sample - self._t0)))
                next_sample += 1.0
            if now >= self._end or self._stop.is_set() or live.first_errno:
                with self._lock:
                    self._phase = "draining"
                    # The last op's claim sets idle; this covers a run left with nothing in flight to do it.
                    if live.started == live.finished + live.failed:
                        self._idle.set()
            if now - self._last_completion > self.p.op_timeout + 5:
                hung = True
                break
        self.abandoned = hung
        # Ended by its time limit (not stopped, no error, ops left to issue): the ops in flight at the limit
        # complete within milliseconds and set idle, which on a loaded host comes before this thread wakes for
        # the limit's own second: that second's sample is taken now, as it would have been on time.
        if (math.isfinite(self._end) and not hung and not self._stop.is_set() and not live.first_errno
                and self._ops_left()):
            while next_sample <= self._end + SAMPLE_SLACK:
                self._take_sample(int(round(next_sample - self._t0)))
                next_sample += 1.0
        return hung

    def _elapsed(self, hung: bool) -> float:
        """The run's time: rados bench's includes the wait for the last ops; an abandoned run's goes on to now."""
        return (self._last_completion if not hung else time.monotonic()) - self._t0

    def _set_phase(self, phase: str) -> None:
        with self._lock:
            self._phase = phase

    def _take_sample(self, sec: int) -> None:
        with self._lock:
            live = self._live
            lats = live.latencies[self._sampled:]  # this second's ops
            self._sampled += len(lats)
            finished, in_flight = live.finished, live.started - live.finished - live.failed
        ops = len(lats)
        lats.sort()  # a copy (the slice): the percentiles of this second, which rados bench lacks
        s = Sample(sec=sec, finished=finished, ops=ops, mib_s=ops * self._op_size / MiB,
                   avg_lat=sum(lats) / ops if ops else 0.0, max_lat=lats[-1] if ops else 0.0, in_flight=in_flight,
                   p50=percentile(lats, 50), p99=percentile(lats, 99), p999=percentile(lats, 99.9))
        with self._lock:
            self._samples.append(s)
        if self.on_sample is not None:
            self.on_sample(s)

    # ---- the result
    def _tally(self) -> Tally:
        live = self._live
        with self._lock:
            finished, failed = live.finished, live.failed
            return Tally(finished=finished, failed=failed, in_flight=live.started - finished - failed,
                         lat_sum=live.lat_sum, latencies=sorted(live.latencies), samples=tuple(self._samples))

    def _result_of(self, t: Tally, *, started_at: float, object_prefix: str, elapsed: float, op_size: int,
                   object_size: int, failed_ops: int, error: str | None, code: int, **own: Any) -> BenchResult:
        """The result with the figures of `rados bench`'s summary (plus percentiles); `own`: the engine's
        fields of BenchResult (a RADOS run's verify errors and cleanup note, a block run's read/write split)."""
        finished, lats = t.finished, t.latencies
        bws = [s.mib_s for s in t.samples]
        iops = [s.ops for s in t.samples]
        return BenchResult(
            params=self.p, started_at=started_at, host=self.host, pid=self.pid, object_prefix=object_prefix,
            total_time_run=elapsed, ops=finished, failed_ops=failed_ops, op_size=op_size, object_size=object_size,
            bandwidth=finished * op_size / MiB / elapsed if elapsed > 0 else 0.0,
            stddev_bandwidth=stddev(bws), max_bandwidth=max(bws, default=0.0), min_bandwidth=min(bws, default=0.0),
            average_iops=finished / elapsed if elapsed > 0 else 0.0, stddev_iops=stddev(iops),
            max_iops=max(iops, default=0), min_iops=min(iops, default=0),
            average_latency=t.lat_sum / finished if finished else 0.0,
            stddev_latency=stddev(lats), max_latency=lats[-1] if lats else 0.0, min_latency=lats[0] if lats else 0.0,
            latency_p50=percentile(lats, 50), latency_p95=percentile(lats, 95), latency_p99=percentile(lats, 99),
            latency_p999=percentile(lats, 99.9), samples=t.samples, stopped=self._stop.is_set(),
            error=error, errno=code, **own)


def with_cluster_notes(result: BenchResult, handle: Any, pool: str, diagnosis: Diagnosis | None = None) -> BenchResult:
    """A finished run with what its cluster says of it: why its ops timed out (the engine's diagnosis, or
    the osdmap as it is now), and the cluster's fsid."""
    if result.errno == errno_mod.ETIMEDOUT:
        why = diagnosis.text if diagnosis is not None else diagnose_stall(handle, pool)
        if why:
            result = replace(result, error=f"{result.error}. The osdmap says: {why}")
    try:
        result = replace(result, cluster=handle.get_fsid())
    except Exception:
        pass
    return result
