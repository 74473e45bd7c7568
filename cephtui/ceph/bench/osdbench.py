"""Per-OSD write bench: `ceph tell osd.N bench [TOTAL_BYTES] [BLOCK_SIZE]`, one OSD at a time.

Each OSD writes TOTAL_BYTES in BLOCK_SIZE writes straight into its own object store
(no client, no network, no replication) and reports how long that took, so comparing
OSDs finds the slow disk. Running several at once (as `ceph tell osd.* bench` does)
would measure shared controllers, hosts and each other instead, so the sweep is serial.

The OSD guards itself and refuses (-EINVAL, with its own explanation, which we show
verbatim) a bench that could stall it for long: blocks above osd_bench_max_block_size
(64 MiB); below 1 MiB blocks, more than osd_bench_small_size_max_iops (100) x
osd_bench_duration (30 s) writes, i.e. 12288000 bytes at 4 KiB; from 1 MiB up, more
than osd_bench_large_size_max_throughput (100 MiB/s) x 30 s = 3000 MiB in total.

Timeouts: an OSD command is bounded by the client's rados_osd_op_timeout, which
CephClient sets to its op_timeout (5 s by default), far too short for 1 GiB on a
spinning disk; use `bench_client()` for a dedicated connection with a longer one. A
bench that times out keeps running on the OSD; the OSD serves tell commands one at a
time (measured on Pacific: a `version` sent after a timed-out bench answered only when
the bench finished), so the sweep sends one and waits before moving on.
"""
from __future__ import annotations

import errno as errno_mod
import math
import statistics
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Optional

from cephtui.ceph.client import CephClient
from cephtui.ceph.cluster import Tells
from cephtui.ceph.coerce import as_float, as_int
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephError

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

DEFAULT_TOTAL = 1 * GiB  # what `ceph tell osd.N bench` writes with no arguments
DEFAULT_BLOCK = 4 * MiB
DEFAULT_TIMEOUT = 120  # seconds: 1 GiB at ~10 MiB/s (a struggling HDD) still answers

# The OSD-side guards at Ceph's defaults (src/osd/OSD.cc); a cluster may change them.
CEPH_MAX_BLOCK = 64 * MiB  # osd_bench_max_block_size
CEPH_SMALL_BLOCK = 1 * MiB  # below this the IOPS guard applies, from here the throughput guard
CEPH_SMALL_MAX_IOPS = 100  # osd_bench_small_size_max_iops
CEPH_LARGE_MAX_THROUGHPUT = 100 * MiB  # osd_bench_large_size_max_throughput, bytes/s
CEPH_DURATION = 30  # osd_bench_duration, seconds

# A run-to-run spread of about +-20% between identical OSDs is normal (measured on the sandbox:
# 1.2 to 1.9 GB/s from three OSDs on one disk); a failing or misconfigured disk (write cache off,
# an HDD among SSDs) is typically 2x or more slower. 0.7x the median sits outside the noise yet
# catches those; 1.5x mostly means a different kind of device (or a cache) hiding in the set.
# Caveat seen here: a brand-new OSD's first bench ran at 0.4x (its store still allocating), so a
# "slow" flag is worth one rerun before anyone pulls a disk.
SLOW_RATIO = 0.7
FAST_RATIO = 1.5
MIN_FOR_FLAGS = 3  # with two OSDs there is no telling which one is the odd one out
# How long to wait for a timed-out bench to end: the OSD's guards size a bench to about
# osd_bench_duration (30 s) at the throughput they assume; twice that covers a slower disk.
DRAIN_BUDGET = 2 * CEPH_DURATION
# An "osd down" answer later than this after sending means the OSD went down under its bench
# (measured: for an OSD already down it comes from the client's own osdmap within milliseconds).
WENT_DOWN_AFTER = 0.5


@dataclass(frozen=True)
class OSDBenchParams:
    total_bytes: int = DEFAULT_TOTAL
    block_size: int = DEFAULT_BLOCK

    def __post_init__(self) -> None:
        for name, value in (("total bytes", self.total_bytes), ("block size", self.block_size)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be a whole number of bytes, not {value!r}")
            if value <= 0:
                raise ValueError(f"{name} must be positive, not {value}")
        if self.block_size > self.total_bytes:
            # The OSD would write one whole block but report only total_bytes: a wrong rate.
            raise ValueError(f"block size ({self.block_size}) must not exceed the total ({self.total_bytes})")
        if self.total_bytes % self.block_size:
            # The OSD writes whole blocks, so the remainder would be written but not counted.
            raise ValueError(f"total bytes ({self.total_bytes}) must be a multiple of the block size "
                             f"({self.block_size})")

    @property
    def blocks(self) -> int:
        return self.total_bytes // self.block_size

    def default_limit_warning(self) -> str | None:
        """Why an OSD with Ceph's default guards would refuse this, or None. Advisory only:
        the guards are configurable, so the bench is still sent and the OSD's answer rules."""
        if self.block_size > CEPH_MAX_BLOCK:
            return (f"blocks above {CEPH_MAX_BLOCK // MiB} MiB are refused unless "
                    f"osd_bench_max_block_size is raised")
        if self.block_size < CEPH_SMALL_BLOCK:
            limit = self.block_size * CEPH_SMALL_MAX_IOPS * CEPH_DURATION
            if self.total_bytes > limit:
                return (f"at {self.block_size} B blocks the OSD accepts at most {limit} bytes "
                        f"({CEPH_SMALL_MAX_IOPS} IOPS x {CEPH_DURATION} s) unless "
                        f"osd_bench_small_size_max_iops or osd_bench_duration is raised")
            return None
        limit = CEPH_LARGE_MAX_THROUGHPUT * CEPH_DURATION
        if self.total_bytes > limit:
            return (f"the OSD accepts at most {limit} bytes ({CEPH_LARGE_MAX_THROUGHPUT // MiB} MiB/s x "
                    f"{CEPH_DURATION} s) unless osd_bench_large_size_max_throughput or osd_bench_duration "
                    f"is raised")
        return None


def cli(osd: int, params: OSDBenchParams | None = None) -> str:
    """The ceph CLI command that runs the same bench on one OSD."""
    p = params or OSDBenchParams()
    return f"ceph tell osd.{osd} bench {p.total_bytes} {p.block_size}"


@dataclass(frozen=True)
class OSDBenchResult:
    osd: int
    bytes_written: int = 0
    blocksize: int = 0
    elapsed_sec: float = 0.0
    bytes_per_sec: float = 0.0
    iops: float = 0.0
    error: str | None = None  # the OSD's or librados' own text when the bench did not run

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def mib_per_sec(self) -> float:
        return self.bytes_per_sec / MiB


def parse_bench_reply(osd: int, reply: Any) -> OSDBenchResult:
    """The OSD's JSON reply -> result. Missing rates are derived from the other fields;
    a reply with nothing usable becomes an error result rather than a row of zeros."""
    if not isinstance(reply, dict):
        return OSDBenchResult(osd, error=f"unexpected reply from osd.{osd}: {str(reply)[:200]!r}")
    written = as_int(reply.get("bytes_written"))
    block = as_int(reply.get("blocksize"))
    elapsed = as_float(reply.get("elapsed_sec"))
    bps = as_float(reply.get("bytes_per_sec"))
    iops = as_float(reply.get("iops"))
    if bps <= 0 and written > 0 and elapsed > 0:
        bps = written / elapsed
    if iops <= 0 and bps > 0 and block > 0:
        iops = bps / block
    if written <= 0 or bps <= 0:
        return OSDBenchResult(osd, written, block, elapsed, bps, iops,
                              error=f"osd.{osd} reported no throughput: {str(reply)[:200]}")
    return OSDBenchResult(osd, written, block, elapsed, bps, iops)


ProgressFn = Callable[[int, int, Optional[int], Optional[OSDBenchResult]], None]


def bench_client(spec: ConnectionSpec, timeout: float = DEFAULT_TIMEOUT) -> CephClient:
    """A connected client of its own whose OSD commands may take `timeout` seconds (the
    shared client's op_timeout is sized for status reads). The caller closes it."""
    return CephClient(replace(spec, op_timeout=int(math.ceil(timeout)))).connect()


def describe_error(osd: int, err: CephError) -> str:
    """One line for the results table; refusals keep the OSD's own words."""
    if err.errno == errno_mod.ENOENT and err.message == "osd dne":
        return f"osd.{osd} does not exist"
    if err.errno == errno_mod.ENXIO and err.message == "osd down":
        return f"osd.{osd} is down"
    return f"{err.message} [errno {err.errno}]"


class OSDBench:
    """Bench OSDs one after the other. `run()` blocks (call it from a worker thread);
    `stop()` from any thread ends the sweep after the OSD in progress, which cannot be
    interrupted. A failure on one OSD becomes that OSD's result; the sweep goes on.

    on_progress(done, total, current, result) is called from the running thread: with
    (done, total, osd, None) as an OSD starts and (done + 1, total, None, result) when it ends.
    """

    def __init__(self, client: Tells, osds: Iterable[int], params: OSDBenchParams | None = None, *,
                 on_progress: ProgressFn | None = None) -> None:
        self.client = client
        self.osds: tuple[int, ...] = tuple(dict.fromkeys(osds))  # each OSD once, in the given order
        self.params = params or OSDBenchParams()
        self.on_progress = on_progress
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._results: list[OSDBenchResult] = []

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    @property
    def results(self) -> tuple[OSDBenchResult, ...]:
        """What has finished so far (safe to read while running)."""
        with self._lock:
            return tuple(self._results)

    def run(self) -> tuple[OSDBenchResult, ...]:
        total = len(self.osds)
        for done, osd in enumerate(self.osds):
            if self._stop.is_set():
                break
            if self.on_progress:
                self.on_progress(done, total, osd, None)
            result = self.bench_one(osd)
            with self._lock:
                self._results.append(result)
            if self.on_progress:
                self.on_progress(done + 1, total, None, result)
        return self.results

    def bench_one(self, osd: int) -> OSDBenchResult:
        sent = time.monotonic()
        try:
            reply = self.client.osd_tell(osd, "bench", count=self.params.total_bytes, size=self.params.block_size)
        except CephError as e:
            error = describe_error(osd, e)
            if e.errno == errno_mod.ENXIO and time.monotonic() - sent > WENT_DOWN_AFTER:
                # librados answers "osd down" at once for an OSD already down in its map; later, the
                # OSD died (or was marked down) while writing: say so, that is what the operator must know.
                error = f"osd.{osd} went down during its bench (no result)"
            if e.errno == errno_mod.ETIMEDOUT:
                error += self._wait_for(osd)
            return OSDBenchResult(osd, error=error)
        except ValueError as e:  # a reply that is not JSON
            return OSDBenchResult(osd, error=f"unreadable reply from osd.{osd}: {e}")
        return parse_bench_reply(osd, reply)

    def _wait_for(self, osd: int) -> str:
        """After a timeout the bench is still writing; a cheap command queues behind it, so
        its answer means the OSD is done and the next OSD's bench will not overlap. Tries
        (each one op timeout long) for up to DRAIN_BUDGET seconds; stop() ends the waiting."""
        deadline = time.monotonic() + DRAIN_BUDGET
        while not self._stop.is_set():
            try:
                self.client.osd_tell(osd, "version")
            except CephError as e:
                if e.errno != errno_mod.ETIMEDOUT:
                    return f"; then: {describe_error(osd, e)}"  # down or gone: our bench ended with it
                if time.monotonic() >= deadline:
                    break
                continue
            return "; the bench finished on the OSD later (use a longer timeout)"
        return "; it may still be running, so the next results may be low"


@dataclass(frozen=True)
class RankedOSD:
    result: OSDBenchResult
    rank: int | None  # 1 = fastest; None for a failed bench
    ratio: float | None  # throughput / median of the successful ones
    flag: str  # "slow", "fast", "error" or ""

    @property
    def osd(self) -> int:
        return self.result.osd


@dataclass(frozen=True)
class Ranking:
    rows: tuple[RankedOSD, ...]  # fastest first, failures last
    median_bytes_per_sec: float  # 0.0 when nothing succeeded

    @property
    def outliers(self) -> tuple[RankedOSD, ...]:
        return tuple(r for r in self.rows if r.flag in ("slow", "fast"))


def rank_results(results: Iterable[OSDBenchResult], slow: float = SLOW_RATIO,
                 fast: float = FAST_RATIO) -> Ranking:
    results = list(results)
    good = sorted((r for r in results if r.ok), key=lambda r: (-r.bytes_per_sec, r.osd))
    bad = sorted((r for r in results if not r.ok), key=lambda r: r.osd)
    median = statistics.median(r.bytes_per_sec for r in good) if good else 0.0
    flagging = len(good) >= MIN_FOR_FLAGS and median > 0
    rows: list[RankedOSD] = []
    for i, r in enumerate(good, start=1):
        ratio = r.bytes_per_sec / median if median > 0 else None
        flag = ""
        if flagging and ratio is not None:
            flag = "slow" if ratio < slow else "fast" if ratio > fast else ""
        rows.append(RankedOSD(r, i, ratio, flag))
    rows += [RankedOSD(r, None, None, "error") for r in bad]
    return Ranking(tuple(rows), float(median))
