"""mgr commands sent to the active mgr itself, as the `ceph` CLI sends them: never held at the mon.

Why not through the mon (`mon_command`): the mon forwards a mgr command to the active mgr and holds it
while no mgr answers. A mgr that dies with our command already forwarded leaves it at the mon until a
mgr returns, which then reports it as SLOW_OPS (issue 28: 1 of 3 random kills; docs/mgr-outage.md).
No probe before sending can close that race: the mgr may die a millisecond after the probe.

The `ceph` CLI sends them through librados' MgrClient instead (`rados_mgr_command`): the command goes
to the mgr's own address; while no mgr answers it waits in the client's command table, and MgrClient
resends it to whichever mgr the next mgrmap names active. The mon never sees it. Measured on a sandbox
(Pacific): mgr SIGTERMed, `pg stat` and `osd df` sent: the mon's op tracker stayed empty; both were
answered 5 s after the mgr was revived.

Why a connection of its own, with no librados timeout (`rados_mon_op_timeout` 0): librados' mgr_command
waits on a condition on its own stack; with a timeout it returns and frees it, and a late answer then
completes freed memory (tracker.ceph.com/issues/65985, a crash seen here). With no timeout librados
waits until the answer comes, so nothing is freed early. The bound is ours instead: the command is
carried by a daemon thread, the caller waits at most its own timeout, and at most one command of each
prefix is carried at a time (a dead mgr holds one `pg stat`, one `osd df` ... at this client, never a
growing pile). When the mgr returns, they are answered, and `on_late` hears of it.

`Rados.shutdown()` with a carried command pending returns at once and leaves the thread waiting for good
(MgrClient clears its command table without completing it): measured, 12 of 12 clean exits. It is called
anyway, since a process that exits with a librados handle never shut down can crash in librados' own
teardown (a segfault seen here); the process's exit ends the waiting thread.
"""
from __future__ import annotations

import errno as errno_mod
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# librados answers EACCES with no text when the handle has no mgrmap yet (MgrClient::start_command,
# "no MgrMap, assuming EACCES"): right after connect, before the mon sent it. One retry covers it.
_NO_MGRMAP_RETRY = 0.2


@dataclass
class Carried:
    """One mgr command on its way: sent at `sent_at` (wall clock), answered when `done` is set."""

    prefix: str
    started: float  # monotonic
    sent_at: float  # time.time()
    done: threading.Event = field(default_factory=threading.Event)
    result: tuple[int, bytes, str] | None = None  # librados' (ret, outbuf, outs)
    error: BaseException | None = None  # the binding raised (transport failure)
    abandoned: bool = False  # the caller stopped waiting; the answer, if any, is late
    _listeners: list[Callable[[Carried], None]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def age(self) -> float:
        return time.monotonic() - self.started

    def when_answered(self, listener: Callable[[Carried], None]) -> None:
        """Call `listener(self)` once the mgr has answered (at once if it has): e.g. to audit a late answer."""
        with self._lock:
            if not self.done.is_set():
                self._listeners.append(listener)
                return
        listener(self)

    def _finish(self) -> list[Callable[[Carried], None]]:
        with self._lock:
            self.done.set()
            listeners, self._listeners = self._listeners, []
        return listeners


class MgrBusy(Exception):
    """An earlier command of this prefix is still carried (its mgr has not answered): not sent again."""

    def __init__(self, earlier: Carried) -> None:
        self.earlier = earlier
        super().__init__(earlier.prefix)


class MgrNoAnswer(Exception):
    """The caller's wait ended before the mgr answered; the command is still carried (`carried`)."""

    def __init__(self, carried: Carried) -> None:
        self.carried = carried
        super().__init__(carried.prefix)


class MgrLine:
    """A librados connection used only for mgr commands; each command carried by a thread of its own.

    `open_handle` makes and connects the handle (with `rados_mon_op_timeout` 0); it is called on the
    first command, from the carrying thread, so a slow connect never holds the caller beyond its wait.
    """

    def __init__(self, open_handle: Callable[[], Any], on_late: Callable[[Carried], None] | None = None) -> None:
        self._open_handle = open_handle
        self.on_late = on_late
        self._handle: Any = None
        self._lock = threading.Lock()
        self._connecting = threading.Lock()  # one connect at a time
        self._carried: dict[str, Carried] = {}
        self._closed = False

    # ------------------------------------------------------------ sending
    def send(self, prefix: str, cmd: str, inbuf: bytes, wait: float, target: str = "") -> tuple[int, bytes, str]:
        """(ret, outbuf, outs) of `cmd`, or MgrNoAnswer after `wait` s, or MgrBusy while an earlier
        `prefix` is still carried after waiting `wait` s for it. Transport errors raise as the binding's."""
        deadline = time.monotonic() + wait
        with self._lock:
            earlier = self._carried.get(prefix)
        if earlier is not None and not earlier.done.wait(max(0.0, deadline - time.monotonic())):
            raise MgrBusy(earlier)
        carried = Carried(prefix, time.monotonic(), time.time())
        with self._lock:
            if self._closed:
                raise OSError(errno_mod.ESHUTDOWN, "the mgr connection is closed")
            if (other := self._carried.get(prefix)) is not None and not other.done.is_set():
                raise MgrBusy(other)  # another thread sent the same prefix meanwhile
            self._carried[prefix] = carried
        threading.Thread(target=self._carry, args=(carried, cmd, inbuf, target), name=f"mgr-cmd {prefix}",
                         daemon=True).start()
        if not carried.done.wait(max(0.0, deadline - time.monotonic())):
            with self._lock:
                carried.abandoned = not carried.done.is_set()
            if carried.abandoned:
                raise MgrNoAnswer(carried)
        if carried.error is not None:
            raise carried.error
        assert carried.result is not None
        return carried.result

    def _carry(self, carried: Carried, cmd: str, inbuf: bytes, target: str = "") -> None:
        # `target`: a mgr daemon's name, for its own commands (`ceph tell mgr …`: dump_osd_network), which the
        # active mgr's command table does not hold. Still no librados timeout (see the module's note).
        kw = {"target": target} if target else {}
        try:
            handle = self._connection()
            result = handle.mgr_command(cmd, inbuf, **kw)
            if result[0] == -errno_mod.EACCES and not result[2].strip():
                time.sleep(_NO_MGRMAP_RETRY)  # no mgrmap yet on a fresh handle (see above)
                result = handle.mgr_command(cmd, inbuf, **kw)
            carried.result = (int(result[0]), bytes(result[1]), str(result[2]))
        except BaseException as e:  # handed to the caller, whatever it is
            carried.error = e
        with self._lock:
            listeners = carried._finish()
            late = carried.abandoned
            if self._carried.get(carried.prefix) is carried:
                del self._carried[carried.prefix]
        if late and self.on_late is not None:
            listeners.insert(0, self.on_late)
        for listener in listeners:
            try:
                listener(carried)
            except Exception:  # one listener's bug must not keep the answer from the others
                pass

    def _connection(self) -> Any:
        with self._connecting:
            if self._handle is None:
                if self._closed:
                    raise OSError(errno_mod.ESHUTDOWN, "the mgr connection is closed")
                self._handle = self._open_handle()
            return self._handle

    # ------------------------------------------------------------ state
    def pending(self) -> list[Carried]:
        """Commands still carried (their mgr has not answered), oldest first."""
        with self._lock:
            return sorted((c for c in self._carried.values() if not c.done.is_set()), key=lambda c: c.started)

    def close(self) -> None:
        """Shut the connection down; a command still carried stays unanswered (see the module's note)."""
        with self._lock:
            self._closed = True
        with self._connecting:
            handle, self._handle = self._handle, None
        if handle is not None:
            try:
                handle.shutdown()
            except Exception:
                pass
