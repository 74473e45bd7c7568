"""The bench engine's per-op path: what it sends, the per-second figures, and the thread-state pins."""
from __future__ import annotations

import collections
import ctypes
import ctypes.util
import sys
import threading
from typing import Any

import pytest

from cephtui.ceph.bench import wire
from cephtui.ceph.bench.engine import BenchEngine
from cephtui.ceph.bench.params import BenchParams
from cephtui.ceph.bench.threadstate import ThreadStatePins

pytestmark = pytest.mark.unit


class _Completion:
    def __init__(self, ret: int) -> None:
        self.ret = ret

    def get_return_value(self) -> int:
        return self.ret


class _LoopbackIoctx:
    """Records each write and completes it from another thread, as librados' completion thread would."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, bytes, int]] = []
        self.queue: collections.deque[Any] = collections.deque()
        self.metadata: dict[str, bytes] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._complete_ops, daemon=True)
        self.thread.start()

    def aio_write(self, name: str, data: bytes, offset: int, oncomplete: Any) -> None:
        self.writes.append((name, bytes(memoryview(data)), offset))  # a copy, as librados takes
        self.queue.append(oncomplete)

    def write_full(self, name: str, data: bytes) -> None:
        self.metadata[name] = data

    def _complete_ops(self) -> None:
        ok = _Completion(0)
        while not self.done.is_set():
            try:
                cb = self.queue.popleft()
            except IndexError:
                self.done.wait(0.0005)
                continue
            cb(ok)


class LateWaker(threading.Event):
    """The engine's idle event as its sampling thread meets it on a loaded host: every timed wait wakes LAG
    seconds late, but a set() still ends it at once. The ops in flight at the time limit complete (and set
    idle) before the thread wakes for the limit's own second."""

    LAG = 0.3

    def wait(self, timeout: float | None = None) -> bool:
        return super().wait(None if timeout is None else timeout + self.LAG)


def _run(params: BenchParams, late: bool = False, stop_after: float = 0.0) -> tuple[Any, _LoopbackIoctx]:
    io = _LoopbackIoctx()
    engine = BenchEngine(io, params, host="h", pid=7)
    if late:
        engine._idle = LateWaker()
    stopper = threading.Timer(stop_after, engine.stop) if stop_after else None
    if stopper is not None:
        stopper.start()
    try:
        result = engine.run()
    finally:
        if stopper is not None:
            stopper.cancel()
        io.done.set()
        io.thread.join(5)
    return result, io


@pytest.mark.parametrize("op_size,object_size", [(4096, 0), (4096, 16384), (128 * 1024, 0)])
def test_every_op_is_native_and_issued_once(op_size: int, object_size: int) -> None:
    """Small ops (built afresh) and large ones (a reused buffer) carry native contents, names and offsets."""
    p = BenchParams(pool="p", seconds=1.2, threads=4, op_size=op_size, object_size=object_size, cleanup=False)
    result, io = _run(p)
    assert result.error is None and result.ops == len(io.writes) > 100
    per = max(1, (object_size or op_size) // op_size)
    contents = wire.Contents(op_size)
    seen = set()
    for name, data, offset in io.writes:
        objnum = int(name.rsplit("object", 1)[1])
        index = objnum * per + offset // op_size
        assert name == wire.object_name(wire.object_prefix("h", 7), objnum) and offset % op_size == 0
        assert data == contents(index), f"op {index} differs from what obj_bencher writes"
        seen.add(index)
    assert seen == set(range(len(io.writes)))  # each index once, none skipped
    assert wire.decode_metadata(io.metadata["benchmark_last_metadata"]).num_ops == result.ops


def test_per_second_samples_add_up_to_the_ops_they_cover() -> None:
    result, io = _run(BenchParams(pool="p", seconds=2.5, threads=8, op_size=4096, cleanup=False))
    samples = result.samples
    assert [s.sec for s in samples] == [1, 2]
    assert all(s.ops > 0 and 0 < s.avg_lat <= s.max_lat for s in samples)
    assert samples[-1].finished >= sum(s.ops for s in samples)  # ops after the last full second are in no sample
    assert sum(s.ops for s in samples) <= result.ops
    assert max(s.max_lat for s in samples) <= result.max_latency


def test_a_run_that_reaches_its_time_limit_has_a_sample_for_its_last_second_on_a_loaded_host() -> None:
    """Seen on a loaded host: a 2-second run with one sample, the last second's lost to the race between
    idle (the last ops back within milliseconds of the limit) and the sampling thread's wake."""
    result, _ = _run(BenchParams(pool="p", seconds=2, threads=4, op_size=4096, cleanup=False), late=True)
    assert result.error is None and not result.stopped
    assert [s.sec for s in result.samples] == [1, 2]
    assert all(s.ops > 0 for s in result.samples) and sum(s.ops for s in result.samples) <= result.ops


def test_a_stopped_run_has_no_sample_for_the_seconds_it_did_not_reach() -> None:
    result, _ = _run(BenchParams(pool="p", seconds=3, threads=4, op_size=4096, cleanup=False), late=True,
                     stop_after=1.5)
    assert result.stopped and result.total_time_run < 2
    assert all(s.sec == 1 for s in result.samples)


def _foreign_thread_enters_python_twice(first: Any, second: Any) -> None:
    """Call `first`, then `second`, as two separate entries into Python from a thread Python did not start.

    ctypes enters Python from a foreign thread the way the rados binding's callbacks do (PyGILState_Ensure,
    the call, PyGILState_Release). The thread runs libc's dl_iterate_phdr, which calls its callback once per
    loaded object, each call a separate entry; the callback stops it after the second."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    # glibc before 2.34 (bullseye's 2.31) keeps pthread_create in libpthread, not libc
    threads = libc if hasattr(libc, "pthread_create") else ctypes.CDLL(ctypes.util.find_library("pthread")
                                                                       or "libpthread.so.0")
    calls = [first, second]

    def each_object(info: Any, size: int, data: Any) -> int:
        calls.pop(0)()
        return 0 if calls else 1  # non-zero ends the iteration

    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)(each_object)
    start_routine = ctypes.cast(libc.dl_iterate_phdr, ctypes.c_void_p)  # void *(*)(void *): its one argument
    tid = ctypes.c_ulong()
    assert threads.pthread_create(ctypes.byref(tid), None, start_routine,
                                  ctypes.cast(callback, ctypes.c_void_p)) == 0
    assert threads.pthread_join(tid, None) == 0
    assert not calls


@pytest.mark.skipif(sys.implementation.name != "cpython" or not sys.platform.startswith("linux"),
                    reason="CPython's thread states, through Linux's libc")
@pytest.mark.parametrize("pin", [True, False])
def test_a_pinned_foreign_thread_keeps_its_python_state_between_callbacks(pin: bool) -> None:
    """What saves the mmap/munmap per op: the state (here, a threading.local) survives between two entries."""
    local = threading.local()
    pins = ThreadStatePins()
    seen: dict[str, Any] = {}

    def first() -> None:
        local.mark = "kept"
        if pin:
            pins.pin()
        seen["pinned"] = pins.pinned

    def later() -> None:
        seen["mark"] = getattr(local, "mark", None)
        pins.unpin()  # on the same thread, so its state goes when this entry ends
        seen["left"] = pins.pinned

    _foreign_thread_enters_python_twice(first, later)
    assert seen == ({"pinned": 1, "mark": "kept", "left": 0} if pin else {"pinned": 0, "mark": None, "left": 0})
