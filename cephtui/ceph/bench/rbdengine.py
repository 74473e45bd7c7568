"""An `rbd bench`-compatible block benchmark on librbd aio (python3-rbd).

Same semantics as `rbd bench` (Pacific: src/tools/rbd/action/Bench.cc) so numbers compare:
io_threads ops of io_size in flight until io_total bytes are issued; sequential runs give each
thread its own stretch of the image (thread i starts at i * size / threads, rounded down to io
sizes, and wraps to 0 at the end), random runs pick io_size-aligned offsets uniformly over the
image; readwrite picks read or write per op with rw_mix_read percent reads; the write data is one
byte repeated, the fadvise flag says sequential or random; after the last op a write run flushes
the image, and the elapsed time includes that flush. Plus what rbd bench lacks: a latency per op,
per-second percentiles, p50/p95/p99/p99.9 in total, and an optional time limit.

The client cache is a parameter of the run (blockparams.CACHE_CONF), set on this run's own librados
handle, which librbd reads its options from. That handle also carries an osd op timeout, so an op
to a dead OSD fails with ETIMEDOUT: a run ends in an error, never in a hang.

Design, as engine.py: the completion callback records the op and issues the slot's next op (no
thread hop per op); the calling thread only samples once a second and watches for a hang. That
part, the live counters, progress and the result's figures are the RADOS engine's too
(bench/enginecore.py). The per-op code is this module's, its Python work kept small (one lock, a
few list appends): it is measured against native `rbd bench`.
"""
from __future__ import annotations

import errno as errno_mod
import math
import random
import time
from collections.abc import Callable
from threading import get_ident
from typing import Any

from cephtui.ceph.bench.blockparams import CACHE_CONF, BlockParams
from cephtui.ceph.bench.diagnosis import explain_errno
from cephtui.ceph.bench.engine import BenchSession
from cephtui.ceph.bench.enginecore import EngineCore, with_cluster_notes
from cephtui.ceph.bench.params import BenchError
from cephtui.ceph.bench.results import BenchResult, Sample
from cephtui.ceph.connection import ConnectionSpec

try:
    import rbd
except ImportError:  # machines without python3-rbd: everything but the block mode works
    rbd = None

RBD_MISSING = ("the block benchmark needs librbd's Python bindings, which come with Ceph from your "
               "distribution: `apt install python3-rbd` (Debian/Ubuntu) or `dnf install python3-rbd` "
               "(RHEL/Rocky/Fedora)")

# librados' fadvise flags (rados.pyx LIBRADOS_OP_FLAG_FADVISE_*), as rbd bench passes them.
FADVISE_RANDOM = 0x4
FADVISE_SEQUENTIAL = 0x8


_now = time.monotonic

# The write buffers of running (and abandoned) runs: librbd reads them without a copy.
_KEEP: list[bytes] = []


def rbd_available() -> bool:
    return rbd is not None


class BlockEngine(EngineCore[BlockParams]):
    """One run on an open image. Call `run()` from a worker thread; `stop()` and `progress()` from anywhere."""

    def __init__(self, image: Any, params: BlockParams, image_size: int, *,
                 on_sample: Callable[[Sample], None] | None = None, image_name: str = "") -> None:
        if params.io_size > image_size:
            raise BenchError(f"io size {params.io_size} is larger than the image ({image_size} bytes)")
        super().__init__(params, op_size=params.io_size, total_ops=params.total_ops, on_sample=on_sample)
        self.image = image
        self.image_name = image_name or params.image
        self.size = image_size
        self._issued = 0
        self._rng = random.Random()
        self._blocks = (image_size - params.io_size) // params.io_size + 1  # aligned offsets that fit
        chunk = (image_size // params.io_size // params.io_threads) * params.io_size
        self._seq_next = [chunk * i for i in range(params.io_threads)]  # per thread, as rbd bench
        self._data = bytes([random.randrange(256)]) * params.io_size  # rbd bench: memset(rand() & 0xff)
        self._flags = FADVISE_RANDOM if params.io_pattern == "rand" else FADVISE_SEQUENTIAL
        self.flush_time = 0.0
        # read once here, not per op
        self._random = params.io_pattern == "rand"
        self._mix = params.io_type == "readwrite"
        self._reads = params.io_type == "read"
        self._read_pct = params.rw_mix_read

    # ---- the run
    def run(self) -> BenchResult:
        _KEEP.append(self._data)  # librbd reads it until the last write completes (zero copy)
        started_at = time.time()
        p = self.p
        self._t0 = self._last_completion = time.monotonic()
        if p.seconds:
            self._end = self._t0 + p.seconds
        for slot in range(p.io_threads):
            if not self._submit(slot):
                break
        hung = self._sample_until_idle()
        if not hung:  # an abandoned run's writes may still read the buffer: it stays for the process' life
            _KEEP.remove(self._data)
        flush_error = ""
        if p.writes and not hung and self._live.finished:
            self._set_phase("flushing")
            flush_start = time.monotonic()
            try:
                self.image.flush()  # rbd bench flushes before it stops the clock
            except Exception as e:
                flush_error = f"the final flush failed: {e}"
            self.flush_time = time.monotonic() - flush_start
            elapsed = time.monotonic() - self._t0
        else:
            elapsed = self._elapsed(hung)
        self._set_phase("done")
        return self._result(started_at, elapsed, hung, flush_error)

    def _ops_left(self) -> bool:
        return self._issued < self._total_ops

    def _submit(self, slot: int) -> bool:
        """Issue the slot's next op unless the run is over; False retires the slot."""
        with self._lock:
            op = self._claim_locked(slot)
        return op is not None and self._issue(slot, *op)

    def _claim_locked(self, slot: int) -> tuple[int, bool] | None:
        """The slot's next op (offset, is it a read), counted as started; None once the run is over.
        Hold the lock."""
        live = self._live
        if (self._issued >= self._total_ops or live.first_errno or self._stop.is_set()
                or (self._end is not math.inf and _now() >= self._end)):
            if live.started == live.finished + live.failed:
                self._idle.set()
            return None
        self._issued += 1
        live.started += 1
        size = self._op_size
        if self._random:
            offset = self._rng.randrange(self._blocks) * size
        else:
            offset = self._seq_next[slot]
            nxt = offset + size
            self._seq_next[slot] = 0 if nxt + size > self.size else nxt
        if self._mix:
            read = self._rng.randrange(100) < self._read_pct
            if read:
                live.reads += 1
            else:
                live.writes += 1
            return offset, read
        return offset, self._reads

    def _issue(self, slot: int, offset: int, read: bool) -> bool:
        start = _now()
        try:
            if read:
                self.image.aio_read(offset, self._op_size, lambda c, _data: self._complete(slot, start, c),
                                    self._flags)
            else:
                self.image.aio_write(self._data, offset, lambda c: self._complete(slot, start, c), self._flags)
        except Exception as e:  # the binding refused to queue the op
            live = self._live
            with self._lock:
                live.failed += 1
                live.first_errno = live.first_errno or abs(getattr(e, "errno", 0) or errno_mod.EIO)
                if live.started == live.finished + live.failed:
                    self._idle.set()
            return False
        return True

    def _complete(self, slot: int, start: float, completion: Any) -> None:
        """In librbd's completion thread: record the op and claim the slot's next one under one lock
        (the per-op Python work is what this engine is measured on), then issue it."""
        now = _now()
        ret = completion.get_return_value()
        lat = now - start
        live = self._live
        with self._lock:
            self._last_completion = now
            if ret < 0:
                live.failed += 1
                if not live.first_errno:
                    live.first_errno = -ret
            else:
                live.finished += 1
                live.lat_sum += lat
                live.latencies.append(lat)
            op = self._claim_locked(slot)
        if op is None:
            self._pins.unpin()  # on this thread, which issues nothing more
        else:
            if get_ident() not in self._pinned:
                self._pins.pin()
            self._issue(slot, *op)

    def _result(self, started_at: float, elapsed: float, hung: bool, flush_error: str) -> BenchResult:
        p, live = self.p, self._live
        t = self._tally()
        error: str | None = None
        code = live.first_errno
        if hung:
            error = (f"{t.in_flight} ops got no reply for more than {p.op_timeout + 5:.0f} s; "
                     "the run was abandoned")
            code = code or errno_mod.ETIMEDOUT
        elif code:
            error = f"{t.failed} ops failed: {explain_errno(code, p.io_type, p.pool, p.op_timeout)}"
        elif flush_error:
            error = flush_error
        mixed = p.io_type == "readwrite"
        return self._result_of(t, started_at=started_at, object_prefix=self.image_name, elapsed=elapsed,
                               op_size=p.io_size, object_size=0, failed_ops=t.failed, error=error, code=code,
                               read_ops=live.reads if mixed else 0, write_ops=live.writes if mixed else 0,
                               flush_seconds=self.flush_time)


class BlockSession(BenchSession):
    """Its own librados handle (with this run's cache mode and op timeout), the pool's ioctx, and rbd."""

    def __init__(self, spec: ConnectionSpec, pool: str, *, cache: str = "off", op_timeout: float = 30.0) -> None:
        if rbd is None:
            raise BenchError(RBD_MISSING)
        super().__init__(spec, pool, op_timeout, {
            **CACHE_CONF[cache],
            # librbd's C API (which python3-rbd calls) copies each write's buffer unless told not to; rbd bench
            # (the C++ API) hands over its buffer. A 4 MiB copy per op cost about half of native's throughput
            # here. Our buffer is one immutable bytes object kept alive past every op (_KEEP), so it is safe.
            "rbd_disable_zero_copy_writes": "false",
        })

    def open_image(self, name: str, *, read_only: bool = False) -> Any:
        try:
            return rbd.Image(self.io, name, read_only=read_only)
        except rbd.ImageNotFound:
            raise BenchError(f"image {name} does not exist in pool {self.io.get_pool_name()}") from None
        except rbd.Error as e:
            raise BenchError(f"cannot open image {name}: {e}") from None


def run_block_bench(spec: ConnectionSpec, params: BlockParams, *,
                    on_start: Callable[[BlockEngine], None] | None = None,
                    on_sample: Callable[[Sample], None] | None = None) -> BenchResult:
    """Connect, open the image, run one benchmark, close. BenchError for bad preconditions.

    The image must exist (service.BenchRun creates a temporary one and names it in `params.image`);
    the watcher check and the typed confirmation are BenchRun's, before this is called."""
    if not params.image:
        raise BenchError("no image to benchmark (a temporary image is created by the run's service)")
    session = BlockSession(spec, params.pool, cache=params.cache, op_timeout=params.op_timeout)
    try:
        image = session.open_image(params.image, read_only=not params.writes)
        try:
            engine = BlockEngine(image, params, image.size(), on_sample=on_sample)
            if on_start is not None:
                on_start(engine)
            result = engine.run()
            session.abandoned = engine.abandoned
        finally:
            if not session.abandoned:
                image.close()
        return with_cluster_notes(result, session.handle, params.pool)
    finally:
        session.close()
