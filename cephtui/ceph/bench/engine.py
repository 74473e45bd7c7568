"""A `rados bench`-compatible benchmark on librados aio.

Same semantics as `rados bench` (src/common/obj_bencher.cc) so numbers and data
are interchangeable: N concurrent ops of op_size bytes, objects named
`benchmark_data_<host>_<pid>_object<N>`, each op's bytes begin with
"I'm the %16dth op!" and a NUL and are padded with 'z' (native seq/rand verify
that), and a metadata object (`benchmark_last_metadata` or the run name) that
lets native `rados bench seq|rand` read what we wrote and `rados cleanup` remove
it, and the other way round (the format: bench/wire.py). MB/s means MiB/s.
Per-second samples feed the same summary fields as `rados bench`, plus latency
percentiles, which it lacks.

Design: N slots, one op in flight in each: the completion callback (librados'
finisher thread) records the op's latency and issues the slot's next op, with no
thread hop per op. (The first design, a dispatcher thread taking slots from a
semaphore, matched native at 4 MiB where waiting on the oldest op reached only
~0.8; issuing from the callback costs about a fifth less client CPU per 4 KiB op.)
The calling thread only samples once a second and watches for a hang: that part,
the live counters, progress and the result's figures are shared with the block
engine (bench/enginecore.py); the per-op code is this module's. A separate
librados handle carries its own osd op timeout, so every op completes (or fails
with ETIMEDOUT) in bounded time: a run can end in an error, never in a hang.
"""
from __future__ import annotations

import errno as errno_mod
import math
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from cephtui.ceph.bench.diagnosis import Diagnosis, diagnose_run, explain_errno, osd_dump, write_refusal
from cephtui.ceph.bench.enginecore import EngineCore, with_cluster_notes
from cephtui.ceph.bench.params import BenchError, BenchParams
from cephtui.ceph.bench.params import MiB as MiB  # imported from here by cephtui.config.model
from cephtui.ceph.bench.removal import remove_object_forced, remove_objects
from cephtui.ceph.bench.results import BenchResult, Sample
from cephtui.ceph.bench.wire import (
    METADATA,
    Contents,
    Metadata,
    decode_metadata,
    encode_metadata,
    object_name,
    object_prefix,
)
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephError

try:
    import rados
except ImportError:  # pragma: no cover - machines without python3-rados
    rados = None


monotonic = time.monotonic
get_ident = threading.get_ident
# Up to this size a write builds each op afresh (about half a microsecond at 4 KiB); above it, copying
# the op would cost more than rewriting the header of a reused buffer (wire.Contents.lend).
SMALL_OP = 64 * 1024


class _Slot:
    """One of the ops in flight, reused op after op: a per-op closure and its cells cost more (4 KiB ops)."""

    __slots__ = ("engine", "start", "objname", "index", "write_done", "read_done")

    def __init__(self, engine: BenchEngine) -> None:
        self.engine = engine
        self.start = 0.0
        self.objname = ""
        self.index = 0  # the op in flight, for reads' verification
        self.write_done = self._write_done  # bound once: the binding holds it until the op completes
        self.read_done = self._read_done

    def _write_done(self, completion: Any) -> None:
        self.engine._complete(self, completion.get_return_value())

    def _read_done(self, completion: Any, data: bytes | None) -> None:
        ret = completion.get_return_value()
        self.engine._verify(self.index, ret, data)
        self.engine._complete(self, ret)


class BenchEngine(EngineCore[BenchParams]):
    """One run. Call `run()` from a worker thread; `stop()` and `progress()` from anywhere."""

    def __init__(self, ioctx: Any, params: BenchParams, *, host: str | None = None, pid: int | None = None,
                 on_sample: Callable[[Sample], None] | None = None,
                 diagnose: Callable[[], Diagnosis] | None = None) -> None:
        # total_ops: a seq run's count of objects to read, known from the metadata once run() reads it
        super().__init__(params, op_size=params.op_size, total_ops=0, host=host, pid=pid,
                         on_sample=on_sample)
        self.io = ioctx
        self._diagnose = diagnose  # asked once when ops time out: why (full pool, down OSD ...)
        self.diagnosis: Diagnosis | None = None
        self.timed_out: list[str] = []  # the first objects whose ops timed out: `osd map` says where they wait
        self._open = True  # False once stopped or failed: no new ops (one attribute read per op)
        self._limit = sys.maxsize  # ops to issue at most (a seq run: as many as were written)
        self._random = False
        self._next = 0  # the next op index (write, seq)
        self._end = 0.0  # no op is claimed before run() sets the time limit
        self._rng = random.Random()
        self._rand_range = 0
        self._prefix = ""
        self._per_object = 1
        self._contents = Contents(params.op_size)
        self._issue: Callable[[_Slot, int], None] = self._issue_write
        self._name_stem = ""  # the objects' names up to their number
        self._small_ops = True

    # ---- control
    def stop(self) -> None:
        """Stop issuing ops; in-flight ones finish and the partial result is reported."""
        self._open = False
        self._stop.set()

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
        self._op_size = op_size
        self._prefix, self._per_object = prefix, max(1, obj_size // op_size)
        self._contents = Contents(op_size)
        self._name_stem = object_name(prefix, 0)[:-1]
        self._small_ops = op_size <= SMALL_OP
        self._rand_range = meta.num_ops if meta else 0
        self._random = p.mode == "rand" and self._rand_range > 0
        self._limit = self._total_ops or sys.maxsize
        self._issue = self._issue_write if p.mode == "write" else self._issue_read

        self._t0 = self._last_completion = time.monotonic()
        self._end = self._t0 + p.seconds
        for _ in range(p.threads):
            if not self._submit():
                break
        # From here this thread only samples once a second and watches for a hang: ops are issued
        # from the completion callbacks (no thread hop per op: about a fifth less client CPU per 4 KiB op here).
        hung = self._sample_until_idle()
        elapsed = self._elapsed(hung)

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
        self._set_phase("done")
        return self._result(started_at, prefix, elapsed, op_size, obj_size, hung, cleanup_note)

    def _ops_left(self) -> bool:
        return self._next < self._limit

    def _submit(self) -> bool:
        """Open a slot and issue its first op unless the run is over; False: no op was issued."""
        with self._lock:
            index = self._claim_locked(time.monotonic())
        return index is not None and self._send(_Slot(self), index)

    def _claim_locked(self, now: float) -> int | None:
        """The next op's index, counted as started; None once the run is over. Hold the lock."""
        live = self._live
        if self._open and now < self._end and self._next < self._limit:
            self._next += 1
            live.started += 1
            return self._rng.randrange(self._rand_range) if self._random else self._next - 1
        if live.started == live.finished + live.failed:
            self._idle.set()
        return None

    def _fail_locked(self, code: int) -> None:
        """An op failed with this errno: the run issues nothing more. Hold the lock."""
        live = self._live
        live.failed += 1
        if not live.first_errno:
            live.first_errno = code
        self._open = False

    def _send(self, slot: _Slot, index: int) -> bool:
        try:
            self._issue(slot, index)
        except Exception as e:  # the binding refused to queue the op
            live = self._live
            with self._lock:
                self._fail_locked(abs(getattr(e, "errno", 0) or errno_mod.EIO))
                if live.started == live.finished + live.failed:
                    self._idle.set()
            return False
        return True

    def _issue_write(self, slot: _Slot, index: int) -> None:
        # Naming inlined (here and in _issue_read): each Python call per op shows at 4 KiB.
        per = self._per_object
        slot.objname = objname = f"{self._name_stem}{index // per}"
        offset = self._op_size * (index % per)
        contents = self._contents
        if self._small_ops:  # a fresh op costs less than rewriting a shared buffer's header through ctypes
            slot.start = monotonic()
            self.io.aio_write(objname, contents(index), offset, oncomplete=slot.write_done)
            return
        buf = contents.lend(index)
        try:
            slot.start = monotonic()
            self.io.aio_write(objname, buf, offset, oncomplete=slot.write_done)
        finally:
            contents.give_back(buf)  # librados has copied it

    def _issue_read(self, slot: _Slot, index: int) -> None:
        per = self._per_object
        slot.objname = objname = f"{self._name_stem}{index // per}"
        slot.index = index
        slot.start = monotonic()
        self.io.aio_read(objname, self._op_size, self._op_size * (index % per), oncomplete=slot.read_done)

    def _verify(self, index: int, ret: int, data: bytes | None) -> None:
        if ret >= 0 and self.p.verify and not self._contents.header_ok(index, data or b""):
            with self._lock:
                self._live.verify_errors += 1

    def _complete(self, slot: _Slot, ret: int) -> None:
        """In librados' completion thread: record the op, then issue the slot's next one."""
        now = monotonic()
        live = self._live
        with self._lock:
            self._last_completion = now
            if ret >= 0:
                lat = now - slot.start
                live.finished += 1
                live.lat_sum += lat
                live.latencies.append(lat)
            else:
                self._fail_locked(-ret)
                if ret == -errno_mod.ETIMEDOUT and len(self.timed_out) < 8:
                    self.timed_out.append(slot.objname)
            index = self._claim_locked(now)  # one lock round per op: at 4 KiB every microsecond shows
        if index is None:
            self._pins.unpin()
        else:
            if get_ident() not in self._pinned:
                self._pins.pin()
            self._send(slot, index)

    def _read_metadata(self) -> Metadata:
        try:
            raw = self.io.read(self.p.metadata_name, METADATA.size, 0)
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
        self._set_phase("cleanup")
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
        t = self._tally()
        error = None
        code = self._live.first_errno
        if hung:
            error = (f"no op completed for {self.p.op_timeout + 5:g} s: the run was abandoned "
                     f"({t.in_flight} ops never came back)")
            code = code or errno_mod.ETIMEDOUT
        elif code:
            error = explain_errno(code, self.p.mode, self.p.pool, self.p.op_timeout)
        return self._result_of(t, started_at=started_at, object_prefix=prefix, elapsed=elapsed, op_size=op_size,
                               object_size=obj_size, failed_ops=t.failed + (t.in_flight if hung else 0),
                               error=error, code=code, verify_errors=self._live.verify_errors,
                               cleanup_note=cleanup_note)


class BenchSession:
    """Its own librados handle and ioctx, with the op timeout of this run.

    Separate from the poller's handle on purpose: its own messenger threads, and an
    osd op timeout that turns a dead OSD or an inactive PG into ETIMEDOUT.
    """

    def __init__(self, spec: ConnectionSpec, pool: str, op_timeout: float,
                 extra_conf: dict[str, str] | None = None) -> None:
        if rados is None:
            raise BenchError("the rados Python bindings are missing (apt install python3-rados)")
        conf = {
            "rados_osd_op_timeout": str(int(math.ceil(op_timeout))),
            "rados_mon_op_timeout": str(spec.op_timeout),
            "client_mount_timeout": str(spec.connect_timeout),
            "log_to_stderr": "false", "err_to_stderr": "false",
            **(extra_conf or {}),  # a block run's librbd settings (rbdengine.BlockSession)
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
        return with_cluster_notes(result, session.handle, params.pool, engine.diagnosis)
    finally:
        session.close()
