"""A `rados bench`-compatible benchmark on librados aio.

Same semantics as `rados bench` (src/common/obj_bencher.cc) so numbers and data
are interchangeable: N concurrent ops of op_size bytes, objects named
`benchmark_data_<host>_<pid>_object<N>`, each op's bytes begin with
"I'm the %16dth op!" and a NUL and are padded with 'z' (native seq/rand verify
that), and a metadata object (`benchmark_last_metadata` or the run name) that
lets native `rados bench seq|rand` read what we wrote and `rados cleanup` remove
it, and the other way round. MB/s means MiB/s. Per-second samples feed the same
summary fields as `rados bench`, plus latency percentiles, which it lacks.

Design: a dispatcher thread takes one of N slots (a semaphore) and submits an
op; the completion callback (librados' finisher thread) records the latency and
frees the slot. Measured here, this matches native at 4 MiB; waiting on the
oldest op instead reached only ~0.8. A separate librados handle carries its own
osd op timeout, so every op completes (or fails with ETIMEDOUT) in bounded time:
a run can end in an error, never in a hang.
"""
from __future__ import annotations

import ctypes
import dataclasses
import errno as errno_mod
import json
import math
import os
import random
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from cephtui.ceph.client import CephError, ConnectionSpec
from cephtui.ceph.coerce import as_int

try:
    import rados
except ImportError:  # pragma: no cover - machines without python3-rados
    rados = None

MODES = ("write", "seq", "rand")
BENCH_PREFIX = "benchmark_data"
DEFAULT_METADATA = "benchmark_last_metadata"
MiB = 1024 * 1024
# size_t object_size, int num_ops, int pid, size_t op_size: what obj_bencher encodes (little-endian)
_METADATA = struct.Struct("<QiiQ")
_HEADER = "I'm the %16dth op!"
LATENCY_PRESET = {"op_size": 4096, "threads": 1}
# A stall this long (whole seconds with ops in flight and none completing) is worth telling:
# shorter ones happen on a busy host without any fault.
STALL_NOTABLE = 3
FULL_FORCE = 128  # LIBRADOS_OPERATION_FULL_FORCE (librados.h); the Python binding does not export it


class BenchError(Exception):
    """Bad parameters or a precondition the cluster does not meet; `str()` is for the operator."""


def parse_size(text: str | int) -> int:
    """Bytes from '4096', '4K', '4KiB', '4M', '1G' (powers of 1024, like rados bench's -b)."""
    if isinstance(text, int):
        return text
    s = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = 1
    for suffix, m in (("K", 1024), ("M", MiB), ("G", 1024 * MiB)):
        if s.endswith(suffix):
            s, mult = s[:-1].strip(), m
            break
    try:
        value = float(s)
    except ValueError:
        raise BenchError(f"not a size: {text!r} (use bytes or 4K, 4M, 1G)") from None
    total = value * mult  # may overflow to inf ("1e308G"): checked before int(), which would raise
    if not math.isfinite(total) or value <= 0 or total != int(total):
        raise BenchError(f"not a size: {text!r} (a positive whole number of bytes)")
    return int(total)


@dataclass(frozen=True)
class BenchParams:
    pool: str
    mode: str = "write"
    seconds: float = 10.0
    threads: int = 16
    op_size: int = 4 * MiB
    object_size: int = 0  # 0: same as op_size (one op per object, rados bench's default)
    run_name: str = ""  # metadata object name; "" means benchmark_last_metadata
    cleanup: bool = True  # write mode: remove the objects (and metadata) afterwards
    op_timeout: float = 30.0  # an op without a reply for this long fails the run
    verify: bool = True  # reads: check each op's header like native does

    def __post_init__(self) -> None:
        if not self.pool.strip():
            raise BenchError("choose a pool")
        if self.mode not in MODES:
            raise BenchError(f"mode must be one of {', '.join(MODES)}")
        if not (0 < self.seconds <= 24 * 3600) or not math.isfinite(self.seconds):
            raise BenchError("seconds must be between 1 and 86400")
        if not (1 <= self.threads <= 1024):
            raise BenchError("threads (concurrent ops) must be between 1 and 1024")
        if not (1 <= self.op_size <= 256 * MiB):
            raise BenchError("op size must be between 1 byte and 256 MiB")
        if self.object_size and (self.object_size < self.op_size or self.object_size % self.op_size):
            raise BenchError("object size must be a multiple of the op size")
        if self.object_size > 1024 * MiB:
            raise BenchError("object size must be at most 1 GiB")
        if not (1 <= self.op_timeout <= 3600):
            raise BenchError("op timeout must be between 1 and 3600 seconds")
        if self.run_name and (len(self.run_name) > 200 or any(c.isspace() or ord(c) < 32 for c in self.run_name)):
            raise BenchError("run name: no spaces or control characters, at most 200 characters")

    @property
    def objsize(self) -> int:
        return self.object_size or self.op_size

    @property
    def metadata_name(self) -> str:
        return self.run_name or DEFAULT_METADATA

    def cli(self) -> str:
        """The native command that does the same, for the confirm dialog and the history."""
        words = ["rados", "bench", "-p", self.pool, _num(self.seconds), self.mode, "-t", str(self.threads)]
        if self.mode == "write":
            words += ["-b", str(self.op_size)]
            if self.object_size and self.object_size != self.op_size:
                words += ["-O", str(self.object_size)]
            if not self.cleanup:
                words.append("--no-cleanup")
            words.append("--no-hints")
        if self.run_name:
            words += ["--run-name", self.run_name]
        return " ".join(words)


def _num(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


@dataclass(frozen=True)
class Sample:
    """One second of a run, as rados bench prints it (plus latency of that second)."""

    sec: int
    finished: int  # ops completed so far
    ops: int  # ops completed in this second
    mib_s: float
    avg_lat: float  # of ops completed in this second (0 if none)
    max_lat: float
    in_flight: int


@dataclass(frozen=True)
class BenchResult:
    params: BenchParams
    started_at: float  # wall clock, seconds since the epoch
    host: str
    pid: int
    object_prefix: str
    total_time_run: float
    ops: int  # successful ops
    failed_ops: int
    op_size: int
    object_size: int
    bandwidth: float  # MiB/s over the whole run
    stddev_bandwidth: float
    max_bandwidth: float
    min_bandwidth: float
    average_iops: float
    stddev_iops: float
    max_iops: int
    min_iops: int
    average_latency: float
    stddev_latency: float
    max_latency: float
    min_latency: float
    latency_p50: float
    latency_p95: float
    latency_p99: float
    samples: tuple[Sample, ...] = ()
    stopped: bool = False  # the operator stopped it early
    error: str | None = None
    errno: int = 0
    verify_errors: int = 0
    cleanup_note: str | None = None  # what cleanup did or why it could not
    cluster: str = ""  # fsid, filled in by whoever saves the result

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def longest_stall(self) -> tuple[int, int] | None:
        """(first second, length in seconds) of the longest run of whole seconds in which ops were in
        flight and none completed: an OSD that died or hung, PGs peering. None when there was none."""
        return longest_stall(self.samples)

    @property
    def status(self) -> str:
        return "error" if self.error else "stopped" if self.stopped else "done"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(mode=self.params.mode, pool=self.params.pool, threads=self.params.threads,
                 cli=self.params.cli(), status=self.status)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BenchResult:
        """A saved run; ValueError when a field has another type than declared (a damaged or hand-edited
        history line): a string where a number belongs would crash the comparison later, not here."""
        p = dict(d["params"])
        known = set(BenchParams.__dataclass_fields__)
        params = BenchParams(**_typed(BenchParams, {k: v for k, v in p.items() if k in known}))
        samples = tuple(Sample(**_typed(Sample, s)) for s in d.get("samples") or ())
        fields = set(cls.__dataclass_fields__) - {"params", "samples"}
        return cls(params=params, samples=samples, **_typed(cls, {k: v for k, v in d.items() if k in fields}))


_TYPES: dict[str, tuple[type, ...]] = {"float": (int, float), "int": (int,), "str": (str,), "bool": (bool,),
                                       "str | None": (str, type(None))}


def _typed(cls: type, values: Any) -> dict[str, Any]:
    """`values` (fields of dataclass `cls`) checked against the field annotations of simple types."""
    if not isinstance(values, dict):
        raise ValueError(f"{cls.__name__}: expected an object, got {type(values).__name__}")
    for f in dataclasses.fields(cls):
        want = _TYPES.get(str(f.type))
        v = values.get(f.name)
        if want and f.name in values and (not isinstance(v, want) or (bool not in want and isinstance(v, bool))):
            raise ValueError(f"{cls.__name__}.{f.name}: expected {f.type}, got {v!r:.40}")
    return values


@dataclass(frozen=True)
class Progress:
    """What the UI shows while a run goes on; cheap to take from any thread."""

    phase: str  # "connecting", "running", "draining", "cleanup", "done"
    elapsed: float
    seconds: float
    started: int
    finished: int
    failed: int
    in_flight: int
    avg_latency: float
    samples: tuple[Sample, ...]
    total_ops: int = 0  # seq: how many objects there are to read (0 when unbounded)
    op_size: int = 0  # of this run (a read's comes from the write's metadata, not the params)


# ------------------------------------------------------------------ naming and contents

def hostname() -> str:
    # obj_bencher reads gethostname() into a 30-byte buffer: at most 29 characters.
    return socket.gethostname()[:29]


def object_prefix(host: str, pid: int) -> str:
    return f"{BENCH_PREFIX}_{host}_{pid}"


def object_name(prefix: str, objnum: int) -> str:
    return f"{prefix}_object{objnum}"


def op_header(index: int, op_size: int) -> bytes:
    """The bytes snprintf(buf, op_size, "I'm the %16dth op!", index) leaves at the start of an op."""
    text = (_HEADER % index).encode() + b"\0"
    return text[:op_size - 1] + b"\0" if len(text) > op_size else text


def _bytes_data_offset() -> int | None:
    """Where a bytes object's data starts in CPython (None if we cannot prove it here)."""
    if sys.implementation.name != "cpython":
        return None
    offset = bytes.__basicsize__ - 1  # the struct ends with char ob_sval[1]
    probe = bytes(64)
    try:
        ctypes.memmove(id(probe) + offset, b"probe", 5)
    except Exception:
        return None
    return offset if probe[:5] == b"probe" else None


class _Contents:
    """Each op's bytes: its header, then 'z' padding, as obj_bencher writes them.

    The binding wants `bytes`, and librados copies them inside rados_aio_write before
    it returns. So rather than building (and page-faulting) a new multi-MiB object per
    op, a few preallocated buffers are reused and only their header is rewritten in
    place. Buffers are lent out under a lock; without a provable data offset (not
    CPython) each op gets a fresh copy instead.
    """

    _offset = _bytes_data_offset()

    def __init__(self, op_size: int) -> None:
        self.op_size = op_size
        self._tail = b"z" * op_size
        self._lock = threading.Lock()
        self._free: list[bytes] = []

    def __call__(self, index: int) -> bytes:
        head = op_header(index, self.op_size)
        # join over a memoryview: one copy of the op (slicing bytes would copy it once more)
        return b"".join((head, memoryview(self._tail)[len(head):]))

    def lend(self, index: int) -> bytes:
        """A buffer holding op `index`; give it back once librados has taken its copy."""
        if self._offset is None:
            return self(index)
        with self._lock:
            buf = self._free.pop() if self._free else b"z" * self.op_size
        head = op_header(index, self.op_size)
        ctypes.memmove(id(buf) + self._offset, head, len(head))
        return buf

    def give_back(self, buf: bytes) -> None:
        if self._offset is not None and len(buf) == self.op_size:
            with self._lock:
                self._free.append(buf)

    def header_ok(self, index: int, data: bytes) -> bool:
        head = op_header(index, self.op_size)
        return len(data) == self.op_size and data.startswith(head)


def encode_metadata(object_size: int, num_ops: int, pid: int, op_size: int) -> bytes:
    return _METADATA.pack(object_size, num_ops, pid, op_size)


@dataclass(frozen=True)
class Metadata:
    object_size: int
    num_ops: int
    pid: int
    op_size: int

    @property
    def num_objects(self) -> int:
        per = max(1, self.object_size // self.op_size) if self.op_size else 1
        return (self.num_ops + per - 1) // per


def decode_metadata(raw: bytes) -> Metadata:
    if len(raw) >= _METADATA.size:
        return Metadata(*_METADATA.unpack_from(raw))
    if len(raw) >= 16:  # before op_size was added the op was the object
        object_size, num_ops, pid = struct.unpack_from("<Qii", raw)
        return Metadata(object_size, num_ops, pid, object_size)
    raise BenchError("the bench metadata object is empty or damaged: write again before reading")


# ------------------------------------------------------------------ statistics

def longest_stall(samples: Sequence[Sample]) -> tuple[int, int] | None:
    """(first second, length) of the longest stretch of samples with ops in flight and none completed."""
    best: tuple[int, int] | None = None
    start, length = 0, 0
    for s in samples:
        if s.ops == 0 and s.in_flight > 0:
            if length == 0:
                start = s.sec
            length += 1
            if best is None or length > best[1]:
                best = (start, length)
        else:
            length = 0
    return best


def stddev(values: Sequence[float]) -> float:
    """Sample standard deviation, as obj_bencher's vec_stddev (0 below two values)."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence (0 when empty)."""
    if not sorted_values:
        return 0.0
    k = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return sorted_values[k]


def explain_errno(code: int, mode: str, pool: str, op_timeout: float) -> str:
    code = abs(code)
    if code in (errno_mod.ENOSPC, errno_mod.EDQUOT):
        return f"pool {pool} or the cluster is full ({os.strerror(code)}): free space or raise the quota"
    if code == errno_mod.ETIMEDOUT:
        return (f"an op got no reply within {op_timeout:g} s: an OSD may be down, PGs inactive "
                f"(below min_size), or the cluster paused")
    if code in (errno_mod.EACCES, errno_mod.EPERM):
        return f"permission denied: this key needs osd 'allow rw pool={pool}' (check `ceph auth get`)"
    if code == errno_mod.ENOENT and mode != "write":
        return "an object to read is missing: was the write run cleaned up, or written under another run name?"
    if code == errno_mod.EROFS:
        return f"pool {pool} is read-only"
    return f"{os.strerror(code)} (errno {code})"


# ------------------------------------------------------------------ the engine

@dataclass
class _Live:
    started: int = 0
    finished: int = 0
    failed: int = 0
    lat_sum: float = 0.0
    first_errno: int = 0
    verify_errors: int = 0
    latencies: list[float] = field(default_factory=list)
    sec_ops: int = 0
    sec_lat_sum: float = 0.0
    sec_lat_max: float = 0.0


class BenchEngine:
    """One run. Call `run()` from a worker thread; `stop()` and `progress()` from anywhere."""

    def __init__(self, ioctx: Any, params: BenchParams, *, host: str | None = None, pid: int | None = None,
                 on_sample: Callable[[Sample], None] | None = None,
                 diagnose: Callable[[], Diagnosis] | None = None) -> None:
        self.io = ioctx
        self._diagnose = diagnose  # asked once when ops time out: why (full pool, down OSD ...)
        self.diagnosis: Diagnosis | None = None
        self.timed_out: list[str] = []  # the first objects whose ops timed out: `osd map` says where they wait
        self.p = params
        self.host = host or hostname()
        self.pid = pid or os.getpid()
        self.on_sample = on_sample
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._live = _Live()
        self._samples: list[Sample] = []
        self._phase = "running"
        self._t0 = 0.0
        self._total_ops = 0
        self._idle = threading.Event()  # set when the run is over and nothing is in flight
        self._next = 0  # the next op index (write, seq)
        self._end = 0.0
        self._rng = random.Random()
        self._rand_range = 0
        self._prefix = ""
        self._per_object = 1
        self._contents = _Contents(params.op_size)
        self._issue: Callable[[str, int, int], None] = self._issue_write
        self._last_completion = 0.0
        self._run_op_size = params.op_size
        self.abandoned = False  # ops never came back: the handle must not be shut down under them

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
                samples=tuple(self._samples), total_ops=self._total_ops, op_size=self._run_op_size)

    # ---- the run
    def run(self) -> BenchResult:
        started_at = time.time()
        p = self.p
        prefix = object_prefix(self.host, self.pid)
        meta: Metadata | None = None
        if p.mode != "write":
            meta = self._read_metadata()
            prefix = object_prefix(self.host, meta.pid)
            op_size, obj_size = meta.op_size, meta.object_size
            self._total_ops = meta.num_ops if p.mode == "seq" else 0
        else:
            op_size, obj_size = p.op_size, p.objsize
        self._run_op_size = op_size
        self._prefix, self._per_object = prefix, max(1, obj_size // op_size)
        self._contents = _Contents(op_size)
        self._rand_range = meta.num_ops if meta else 0
        self._issue = self._issue_write if p.mode == "write" else self._issue_read

        self._t0 = self._last_completion = time.monotonic()
        self._end = self._t0 + p.seconds
        for _ in range(p.threads):
            if not self._submit():
                break
        next_sample = self._t0 + 1.0
        hung = False
        # This thread only samples once a second and watches for a hang: ops are issued
        # from the completion callbacks (no thread hop per op: about a fifth less client CPU per 4 KiB op here).
        while not self._idle.wait(max(0.0, min(0.25, next_sample - time.monotonic()))):
            now = time.monotonic()
            if now >= next_sample:
                self._take_sample(int(round(next_sample - self._t0)))
                next_sample += 1.0
            if now >= self._end or self._stop.is_set() or self._live.first_errno:
                with self._lock:
                    self._phase = "draining"
            if now - self._last_completion > p.op_timeout + 5:
                hung = True
                break
        self.abandoned = hung
        # rados bench's total time includes the wait for the last ops
        elapsed = (self._last_completion if not hung else time.monotonic()) - self._t0

        if (hung or self._live.first_errno == errno_mod.ETIMEDOUT) and self._diagnose is not None:
            try:
                self.diagnosis = self._diagnose()
            except Exception:
                self.diagnosis = None
        if p.mode == "write" and self._live.finished:
            self._write_metadata(obj_size, self._live.finished, op_size)
        cleanup_note = None
        if p.mode == "write":
            cleanup_note = self._cleanup(hung)
        with self._lock:
            self._phase = "done"
        return self._result(started_at, prefix, elapsed, op_size, obj_size, hung, cleanup_note)

    def _submit(self) -> bool:
        """Issue the next op unless the run is over; False retires the caller's slot."""
        with self._lock:
            index = self._claim_locked()
        return index is not None and self._send(index)

    def _claim_locked(self) -> int | None:
        """The next op's index, counted as started; None once the run is over. Hold the lock."""
        live = self._live
        if (self._stop.is_set() or live.first_errno or time.monotonic() >= self._end
                or (self._total_ops and self._next >= self._total_ops)):
            if live.started == live.finished + live.failed:
                self._idle.set()
            return None
        index = self._rng.randrange(self._rand_range) if self._rand_range and self.p.mode == "rand" else self._next
        self._next += 1
        live.started += 1
        return index

    def _send(self, index: int) -> bool:
        try:
            self._issue(object_name(self._prefix, index // self._per_object),
                        index, self._run_op_size * (index % self._per_object))
        except Exception as e:  # the binding refused to queue the op
            live = self._live
            with self._lock:
                live.failed += 1
                live.first_errno = live.first_errno or abs(getattr(e, "errno", 0) or errno_mod.EIO)
                if live.started == live.finished + live.failed:
                    self._idle.set()
            return False
        return True

    def _issue_write(self, objname: str, index: int, offset: int) -> None:
        start = time.monotonic()

        def done(completion: Any) -> None:
            self._complete(start, completion.get_return_value(), objname)
        buf = self._contents.lend(index)
        try:
            self.io.aio_write(objname, buf, offset, oncomplete=done)
        finally:
            self._contents.give_back(buf)  # librados has copied it

    def _issue_read(self, objname: str, index: int, offset: int) -> None:
        start = time.monotonic()
        verify, contents = self.p.verify, self._contents

        def done(completion: Any, data: bytes | None) -> None:
            ret = completion.get_return_value()
            if ret >= 0 and verify and not contents.header_ok(index, data or b""):
                with self._lock:
                    self._live.verify_errors += 1
            self._complete(start, ret, objname)
        self.io.aio_read(objname, self._run_op_size, offset, oncomplete=done)

    def _complete(self, start: float, ret: int, objname: str = "") -> None:
        """In librados' finisher thread: record the op, then refill its slot."""
        now = time.monotonic()
        lat = now - start
        live = self._live
        with self._lock:
            self._last_completion = now
            if ret < 0:
                live.failed += 1
                if not live.first_errno:
                    live.first_errno = -ret
                if ret == -errno_mod.ETIMEDOUT and len(self.timed_out) < 8:
                    self.timed_out.append(objname)
            else:
                live.finished += 1
                live.lat_sum += lat
                live.latencies.append(lat)
                live.sec_ops += 1
                live.sec_lat_sum += lat
                if lat > live.sec_lat_max:
                    live.sec_lat_max = lat
            index = self._claim_locked()  # one lock round per op: at 4 KiB every microsecond shows
        if index is not None:
            self._send(index)

    def _take_sample(self, sec: int) -> None:
        with self._lock:
            live = self._live
            s = Sample(sec=sec, finished=live.finished, ops=live.sec_ops,
                       mib_s=live.sec_ops * self._run_op_size / MiB,
                       avg_lat=live.sec_lat_sum / live.sec_ops if live.sec_ops else 0.0,
                       max_lat=live.sec_lat_max, in_flight=live.started - live.finished - live.failed)
            live.sec_ops, live.sec_lat_sum, live.sec_lat_max = 0, 0.0, 0.0
            self._samples.append(s)
        if self.on_sample is not None:
            self.on_sample(s)

    def _read_metadata(self) -> Metadata:
        try:
            raw = self.io.read(self.p.metadata_name, _METADATA.size, 0)
        except Exception as e:
            code = abs(getattr(e, "errno", 0) or 0)
            if code == errno_mod.ENOENT or type(e).__name__ == "ObjectNotFound":
                raise BenchError(f"no bench data in pool {self.p.pool} (no {self.p.metadata_name} object): "
                                 f"run a write with cleanup off first") from None
            raise BenchError(f"cannot read {self.p.metadata_name}: {e}") from None
        meta = decode_metadata(raw)
        if meta.op_size <= 0 or meta.num_ops <= 0:
            raise BenchError("the last write run left no objects to read")
        return meta

    def _write_metadata(self, object_size: int, num_ops: int, op_size: int) -> None:
        try:
            self.io.write_full(self.p.metadata_name, encode_metadata(object_size, num_ops, self.pid, op_size))
        except Exception as e:
            with self._lock:
                if not self._live.first_errno:
                    self._live.first_errno = abs(getattr(e, "errno", 0) or errno_mod.EIO)

    def _cleanup(self, hung: bool) -> str:
        p = self.p
        if not p.cleanup:
            return (f"objects kept for reads: `rados bench -p {p.pool} 10 seq"
                    f"{' --run-name ' + p.run_name if p.run_name else ''}`; remove with "
                    f"`rados -p {p.pool} cleanup{' --run-name ' + p.run_name if p.run_name else ''}`")
        cleanup_cli = f"rados -p {p.pool} cleanup{' --run-name ' + p.run_name if p.run_name else ''}"
        # Ops that timed out because an OSD is gone or PGs are inactive: removes would wait just as long,
        # so leave the objects. A full pool is different: forced removes go through and give the space back.
        d = self.diagnosis
        filled = d is not None and d.full and not d.down
        if hung or (self._live.first_errno == errno_mod.ETIMEDOUT and not filled):
            if not self._live.finished:
                return "nothing was written"
            return f"cleanup skipped because of the error; remove the objects later with `{cleanup_cli}`"
        with self._lock:
            self._phase = "cleanup"
        removed, failed = remove_objects(self.io, object_prefix(self.host, self.pid),
                                         -(-self._live.started // max(1, p.objsize // p.op_size)), p.threads,
                                         p.op_timeout)
        try:
            remove_object_forced(self.io, p.metadata_name)
        except Exception:
            pass
        if failed:
            return f"cleanup removed {removed} objects, {failed} failed: run `{cleanup_cli}`"
        if filled:
            return f"cleanup removed {removed} objects (forced past the full flag, giving the space back)"
        return f"cleanup removed {removed} objects"

    def _result(self, started_at: float, prefix: str, elapsed: float, op_size: int, obj_size: int, hung: bool,
                cleanup_note: str | None) -> BenchResult:
        live = self._live
        samples = [s for s in self._samples]
        bws = [s.mib_s for s in samples]
        iops = [s.ops for s in samples]
        lats = sorted(live.latencies)
        finished = live.finished
        error = None
        code = live.first_errno
        if hung:
            error = (f"no op completed for {self.p.op_timeout + 5:g} s: the run was abandoned "
                     f"({live.started - finished - live.failed} ops never came back)")
            code = code or errno_mod.ETIMEDOUT
        elif code:
            error = explain_errno(code, self.p.mode, self.p.pool, self.p.op_timeout)
        return BenchResult(
            params=self.p, started_at=started_at, host=self.host, pid=self.pid, object_prefix=prefix,
            total_time_run=elapsed, ops=finished, failed_ops=live.failed + (live.started - finished - live.failed
                                                                             if hung else 0),
            op_size=op_size, object_size=obj_size,
            bandwidth=finished * op_size / MiB / elapsed if elapsed > 0 else 0.0,
            stddev_bandwidth=stddev(bws), max_bandwidth=max(bws, default=0.0), min_bandwidth=min(bws, default=0.0),
            average_iops=finished / elapsed if elapsed > 0 else 0.0, stddev_iops=stddev(iops),
            max_iops=max(iops, default=0), min_iops=min(iops, default=0),
            average_latency=live.lat_sum / finished if finished else 0.0,
            stddev_latency=stddev(lats), max_latency=lats[-1] if lats else 0.0, min_latency=lats[0] if lats else 0.0,
            latency_p50=percentile(lats, 50), latency_p95=percentile(lats, 95), latency_p99=percentile(lats, 99),
            samples=tuple(samples), stopped=self._stop.is_set(), error=error, errno=code,
            verify_errors=live.verify_errors, cleanup_note=cleanup_note)


def aio_remove_forced(io: Any, name: str, oncomplete: Callable[[Any], None]) -> None:
    """An async remove that goes through on a full cluster.

    Measured on Pacific: once the pool is flagged full, librados holds every plain remove
    (sync or aio) like a write, until the op timeout. Deleting is how space comes back, so
    removes carry LIBRADOS_OPERATION_FULL_FORCE, as `rados rm --force-full` does.
    """
    op = io.create_write_op()
    try:
        op.remove()
        io.operate_aio_write_op(op, name, oncomplete=oncomplete, flags=FULL_FORCE)
    finally:
        io.release_write_op(op)


def remove_object_forced(io: Any, name: str) -> None:
    """A synchronous remove that goes through on a full cluster (see aio_remove_forced)."""
    op = io.create_write_op()
    try:
        op.remove()
        io.operate_write_op(op, name, flags=FULL_FORCE)
    finally:
        io.release_write_op(op)


def remove_objects(io: Any, prefix: str, count: int, threads: int, op_timeout: float) -> tuple[int, int]:
    """Remove prefix_object0..count-1 with `threads` removes in flight; (removed, failed). ENOENT counts as removed.

    Removes are forced past the full flag: a run that filled the cluster gives the space back."""
    slots = threading.Semaphore(max(1, threads))
    lock = threading.Lock()
    counts = [0, 0]

    def done(completion: Any) -> None:
        ret = completion.get_return_value()
        with lock:
            counts[0 if ret >= 0 or ret == -errno_mod.ENOENT else 1] += 1
        slots.release()

    for i in range(count):
        if not slots.acquire(timeout=op_timeout + 5):
            break
        try:
            aio_remove_forced(io, object_name(prefix, i), done)
        except Exception:
            with lock:
                counts[1] += 1
            slots.release()
    got = 0
    deadline = time.monotonic() + op_timeout + 5
    while got < max(1, threads) and time.monotonic() < deadline:
        if slots.acquire(timeout=0.25):
            got += 1
    return counts[0], count - counts[0]


# ------------------------------------------------------------------ connecting

class BenchSession:
    """Its own librados handle and ioctx, with the op timeout of this run.

    Separate from the poller's handle on purpose: its own messenger threads, and an
    osd op timeout that turns a dead OSD or an inactive PG into ETIMEDOUT.
    """

    def __init__(self, spec: ConnectionSpec, pool: str, op_timeout: float) -> None:
        if rados is None:
            raise BenchError("the rados Python bindings are missing (apt install python3-rados)")
        conf = {
            "rados_osd_op_timeout": str(int(math.ceil(op_timeout))),
            "rados_mon_op_timeout": str(spec.op_timeout),
            "client_mount_timeout": str(spec.connect_timeout),
            "log_to_stderr": "false", "err_to_stderr": "false",
        }
        try:
            self.handle = spec.open_handle(conf)  # the same config file, or none with -m, as the client's
        except CephError as e:
            raise BenchError(f"cannot connect for the bench: {e.message}") from None
        try:
            self.handle.connect(timeout=spec.connect_timeout)
        except rados.Error as e:
            raise BenchError(f"cannot connect for the bench: {e}") from None
        try:
            self.io = self.handle.open_ioctx(pool)
        except rados.ObjectNotFound:
            self.handle.shutdown()
            raise BenchError(f"pool {pool} does not exist") from None
        except rados.Error as e:
            self.handle.shutdown()
            raise BenchError(f"cannot open pool {pool}: {e}") from None
        self.abandoned = False

    def close(self) -> None:
        # After an abandoned run ops may still be queued; shutting down under them can hang.
        if self.abandoned:
            return
        try:
            self.io.close()
        finally:
            self.handle.shutdown()


def _pct(fraction: float) -> str:
    return f"{fraction * 100:.3g}%"


def _osd_list(ids: Sequence[Any], limit: int = 8) -> str:
    names = [f"osd.{i}" for i in ids]
    return ", ".join(names[:limit]) + ("…" if len(names) > limit else "")


@dataclass(frozen=True)
class Diagnosis:
    """What the osdmap says about a pool's writes: full flags, pauses, down OSDs."""

    reasons: tuple[str, ...] = ()
    full: bool = False  # the pool is full or at its quota: writes block, forced deletes still work
    paused: bool = False  # pausewr / pauserd set
    full_osds: tuple[int, ...] = ()
    down: tuple[int, ...] = ()  # down but still in: their PGs wait for peering

    @property
    def text(self) -> str | None:
        return "; ".join(self.reasons) or None


def diagnose_osdmap(dump: Any, pool: str | None) -> Diagnosis:
    """Pure: the reasons in an `osd dump` why writes to `pool` (None: a pool not created yet) would stall."""
    if not isinstance(dump, dict):
        return Diagnosis()
    reasons: list[str] = []
    osds = [o for o in dump.get("osds") or () if isinstance(o, dict)]
    full_osds = tuple(as_int(o.get("osd")) for o in osds if "full" in (o.get("state") or ()))
    full_ratio = dump.get("full_ratio")
    why_full = (f"{_osd_list(full_osds)} {'is' if len(full_osds) == 1 else 'are'} past the full ratio"
                + (f" ({_pct(float(full_ratio))})" if isinstance(full_ratio, (int, float)) else "")
                if full_osds else "")
    full = False
    for p in dump.get("pools") or ():
        if isinstance(p, dict) and p.get("pool_name") == pool:
            flags = str(p.get("flags_names", "")).split(",")
            if "full_quota" in flags:
                full = True
                reasons.append(f"pool {pool} reached its quota (`ceph osd pool get-quota {pool}`)")
            elif "full" in flags:
                full = True
                reasons.append(f"pool {pool} is full" + (f": {why_full}" if why_full else ""))
    cluster_flags = set(dump.get("flags_set") or str(dump.get("flags", "")).split(","))
    if "full" in cluster_flags:
        full = True
        reasons.append("the cluster is flagged full")
    if pool is None and full_osds:  # a new pool maps PGs to every OSD, full ones included
        full = True
        reasons.append(f"the cluster is full: {why_full}")
    paused = False
    for flag, why in (("pausewr", "writes are paused (pausewr)"), ("pauserd", "reads are paused (pauserd)")):
        if flag in cluster_flags:
            paused = True
            reasons.append(why)
    down = tuple(as_int(o.get("osd")) for o in osds if not o.get("up") and o.get("in"))
    if down:
        reasons.append(f"{len(down)} OSD(s) down and in: {_osd_list(down)}")
    return Diagnosis(tuple(reasons), full, paused, full_osds, down)


def write_refusal(dump: Any, pool: str | None) -> str | None:
    """Why a write run must not start, from an `osd dump`; None if nothing in the osdmap stops writes.

    A full pool (or a full OSD, for a pool about to be created) blocks every write in librados until
    space is freed: the run could only time out and would add to the problem. pausewr likewise."""
    d = diagnose_osdmap(dump, pool)
    if d.full:
        what = "; ".join(r for r in d.reasons if "full" in r or "quota" in r)
        return (f"not starting a write run: {what}. Writes would block until space is freed (delete data, "
                f"add OSDs, or raise the quota; `ceph health detail` or the Health tab shows which OSDs). "
                "Reads (seq/rand) still work.")
    if "pausewr" in set(dump.get("flags_set") or str(dump.get("flags", "")).split(",")):
        return "not starting a write run: writes are paused (pausewr is set; unset it in the Maintenance tab)"
    return None


def osd_dump(handle: Any) -> Any:
    """`osd dump` through a librados handle, or None when the mon does not answer."""
    try:
        ret, out, _ = handle.mon_command(json.dumps({"prefix": "osd dump", "format": "json"}), b"")
        return json.loads(out) if ret == 0 and out else None
    except Exception:
        return None


def waiting_on(maps: Sequence[Any], dump: Any = None) -> str | None:
    """Pure: from `osd map POOL OBJECT` answers for ops that timed out, what their PGs were waiting for.

    The osdmap alone cannot name an OSD that hangs (stopped, or its disk stuck) while still up,
    nor tell which PGs fell below min_size: the timed-out ops' PGs can."""
    dump = dump if isinstance(dump, dict) else {}
    pools = {p.get("pool"): p for p in dump.get("pools") or () if isinstance(p, dict)}
    up = {o.get("osd"): bool(o.get("up")) for o in dump.get("osds") or () if isinstance(o, dict)}
    groups: dict[str, list[str]] = {}
    for m in maps:
        if not isinstance(m, dict):
            continue
        acting = [a for a in m.get("acting") or () if isinstance(a, int) and 0 <= a < 0x7fffffff]
        raw_primary = m.get("acting_primary")
        primary: int = raw_primary if isinstance(raw_primary, int) else -1
        min_size = as_int((pools.get(m.get("pool_id")) or {}).get("min_size"))
        if not acting or primary < 0:
            why = "no OSD acting (their copies are on down OSDs)"
        elif min_size and len(acting) < min_size:
            why = f"fewer OSDs acting than the pool's min_size {min_size} (inactive until an OSD returns)"
        elif up.get(primary, False):
            why = f"osd.{primary} as primary, still up in the osdmap: hung or very slow?"
        else:
            why = f"osd.{primary} as primary (down)"
        groups.setdefault(why, []).append(str(m.get("pgid", "?")))
    if not groups:
        return None
    return "the ops that timed out were waiting on " + "; ".join(
        f"PG {', '.join(sorted(set(pgs)))} with {why}" for why, pgs in groups.items())


def object_maps(handle: Any, pool: str, names: Sequence[str], limit: int = 4) -> list[Any]:
    """`osd map POOL NAME` for the first few objects (empty where the mon does not answer)."""
    out = []
    for name in list(dict.fromkeys(n for n in names if n))[:limit]:
        try:
            ret, buf, _ = handle.mon_command(json.dumps({"prefix": "osd map", "pool": pool, "object": name,
                                                         "format": "json"}), b"")
            if ret == 0 and buf:
                out.append(json.loads(buf))
        except Exception:
            continue
    return out


def diagnose_run(handle: Any, pool: str, timed_out: Sequence[str]) -> Diagnosis:
    """After ops timed out: the osdmap's reasons, plus where the timed-out ops were waiting."""
    dump = osd_dump(handle)
    d = diagnose_osdmap(dump, pool)
    if dump is None or d.full or not timed_out:  # no mon (each ask would wait its timeout); or a full pool,
        return d  # which blocks every op alike: naming primaries would only add noise
    where = waiting_on(object_maps(handle, pool, timed_out), dump)
    return replace(d, reasons=d.reasons + (where,)) if where else d


def diagnose_stall(handle: Any, pool: str) -> str | None:
    """Why ops stopped getting replies, from the osdmap: a full pool, cluster flags, down OSDs."""
    return diagnose_osdmap(osd_dump(handle), pool).text


def cleanup_run(io: Any, metadata_name: str = DEFAULT_METADATA, host: str | None = None, threads: int = 16,
                op_timeout: float = 30.0) -> tuple[int, int]:
    """What `rados cleanup` does: remove the objects the metadata names, then the metadata object."""
    try:
        raw = io.read(metadata_name, _METADATA.size, 0)
    except Exception as e:
        raise BenchError(f"no bench metadata object {metadata_name} to clean up after ({e})") from None
    meta = decode_metadata(raw)
    removed, failed = remove_objects(io, object_prefix(host or hostname(), meta.pid), meta.num_objects, threads,
                                     op_timeout)
    if not failed:
        remove_object_forced(io, metadata_name)
    return removed, failed


def run_bench(spec: ConnectionSpec, params: BenchParams, *, on_start: Callable[[BenchEngine], None] | None = None,
              on_sample: Callable[[Sample], None] | None = None) -> BenchResult:
    """Connect, run one benchmark, disconnect. Raises BenchError for bad preconditions."""
    session = BenchSession(spec, params.pool, params.op_timeout)
    try:
        if params.mode == "write":  # a full pool would only make every op time out
            refusal = write_refusal(osd_dump(session.handle), params.pool)
            if refusal:
                raise BenchError(refusal)
        engine = BenchEngine(session.io, params, on_sample=on_sample,
                             diagnose=lambda: diagnose_run(session.handle, params.pool, engine.timed_out))
        if on_start is not None:
            on_start(engine)
        result = engine.run()
        session.abandoned = engine.abandoned
        if result.errno == errno_mod.ETIMEDOUT:
            why = engine.diagnosis.text if engine.diagnosis is not None else diagnose_stall(session.handle,
                                                                                            params.pool)
            if why:
                result = replace(result, error=f"{result.error}. The osdmap says: {why}")
        try:
            result = replace(result, cluster=session.handle.get_fsid())
        except Exception:
            pass
        return result
    finally:
        session.close()

