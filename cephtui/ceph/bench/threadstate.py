"""Keep Python's thread state alive on librados' completion threads while a run lasts.

librados runs every completion callback on its own threads, which Python does not know. The
binding's callback is a Cython `with gil` function: PyGILState_Ensure, the callback, then
PyGILState_Release. On a thread Python does not know, Ensure creates a thread state and the
matching Release destroys it, once per op. In CPython 3.11 that includes mmap and munmap of the
thread's 16 KiB frame stack: page faults, and a TLB shootdown across cores per op. Measured with
perf on the sandbox at 4 KiB writes, 16 in flight: a third of the client's CPU, in the kernel.

One extra Ensure on such a thread keeps its state (the counter never drops to zero); the matching
Release, on the same thread, once the run issues nothing more, gives it back. A thread that sees
no completion after that keeps its (small, clean) state until the process ends.
"""
from __future__ import annotations

import ctypes
import sys
import threading

_get_ident = threading.get_ident


def _gilstate_api() -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr] | None:  # type: ignore[name-defined]
    if sys.implementation.name != "cpython":
        return None
    try:
        ensure, release = ctypes.pythonapi.PyGILState_Ensure, ctypes.pythonapi.PyGILState_Release
    except AttributeError:
        return None
    ensure.restype, ensure.argtypes = ctypes.c_int, []
    release.restype, release.argtypes = None, [ctypes.c_int]
    return ensure, release


class ThreadStatePins:
    """Per-thread pins. `pin()` and `unpin()` run on the thread concerned, with the GIL held."""

    _api = _gilstate_api()

    def __init__(self) -> None:
        self.threads: dict[int, int] = {}  # pinned thread ident -> what PyGILState_Ensure answered

    def pin(self) -> None:
        ident = _get_ident()
        if ident in self.threads or self._api is None:
            return
        self.threads[ident] = self._api[0]()

    def unpin(self) -> None:
        state = self.threads.pop(_get_ident(), None)
        if state is not None and self._api is not None:
            self._api[1](state)

    @property
    def pinned(self) -> int:
        return len(self.threads)
