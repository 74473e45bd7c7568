"""Which mgr-served commands may leave now: cephtui must never pile up ops at the monitor.

A mgr command (pg stat, osd df ...) goes to the mon, which forwards it to the active mgr.
Measured on a sandbox (Reef, see docs/mgr-outage.md): when the mgr dies, the mgrmap still
says "available" for mon_mgr_beacon_grace (30 s). A command sent then times out in librados
after rados_mon_op_timeout, but the op stays queued AT THE MON for as long as the mgr is away
(seen 115 s, and closing the librados session does not drop it). When a mgr comes back, the
mon reports every such op older than 30 s as SLOW_OPS. So:

- no mgr command while the mgrmap has no active mgr;
- once a mgr command has timed out, none until the mgrmap shows a changed active mgr
  (gid) or availability: the op left at the mon is answered only then; or until the same mgr
  is still listed RETRY_AFTER later (it beacons, so it is alive but slow: one more may go);
- never more than one mgr command outstanding per connection.

Pure logic with a lock, no Ceph: the client asks it before each mgr command.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

NO_MGR = "mgr down: the mgrmap has no active mgr (`ceph mgr stat`)"
# After a timeout, the same active mgr still in the mgrmap this long after (over mon_mgr_beacon_grace,
# 30 s by default) is beaconing: alive but slow or stuck. One more command may go then, so a single
# slow answer (a big `pg dump`) does not blind cephtui until the mgr fails over.
RETRY_AFTER = 45.0


class MgrAddr(NamedTuple):
    host: str
    port: int
    msgr2: bool  # a v2 address: its HELLO says which kind of daemon listens (msgrprobe)


@dataclass
class MgrGate:
    # (available, active gid or name) as last seen in `mgr dump`/`mgr stat`/`status`; None: not seen yet.
    mgr_map: tuple[bool, Any] | None = None
    # The mgr_map seen when a mgr command timed out, with that command and when (wall clock, monotonic).
    tripped: tuple[tuple[bool, Any] | None, str, float, float] | None = None
    outstanding: str = ""  # the mgr command this connection waits on ("" none)
    addr: MgrAddr | None = None  # the active mgr's address, from `mgr dump`
    clock: Callable[[], float] = field(default_factory=lambda: time.monotonic, repr=False)
    _cond: threading.Condition = field(default_factory=threading.Condition, repr=False)

    # ------------------------------------------------------------ what the mon says
    def observe(self, available: bool, active: Any = None, addr: MgrAddr | None = None) -> None:
        """The mgrmap's availability and active mgr (gid, else name; None: keep the known one)."""
        with self._cond:
            if addr is not None or active is not None:
                self.addr = addr
            if active is None:
                active = self.mgr_map[1] if self.mgr_map is not None and available else ""
            self.mgr_map = (bool(available), active if available else "")
            if self.tripped is not None and self.mgr_map[0] and self.mgr_map != self.tripped[0]:
                self.tripped = None  # a (new) active mgr: the op left at the mon is served now
            self._cond.notify_all()

    @property
    def available(self) -> bool | None:
        return None if self.mgr_map is None else self.mgr_map[0]

    # ------------------------------------------------------------ one command
    def refusal(self) -> str | None:
        """Why a mgr command may not leave now, or None."""
        with self._cond:
            return self._refusal()

    def _refusal(self) -> str | None:
        if self.mgr_map is not None and not self.mgr_map[0]:
            return NO_MGR
        if self.tripped is not None and self.clock() - self.tripped[3] > RETRY_AFTER and self.mgr_map is not None \
                and self.mgr_map[0] and self.mgr_map == self.tripped[0]:
            self.tripped = None  # still the active mgr after the beacon grace: alive, give it one more
        if self.tripped is not None:
            _, prefix, at, _ = self.tripped
            return (f"mgr down: it did not answer `{prefix}` at {time.strftime('%H:%M:%S', time.localtime(at))}; "
                    "no mgr command is sent until the mgrmap shows an active mgr again")
        return None

    def begin(self, prefix: str, wait: float) -> str | None:
        """Claim the one mgr slot for `prefix`, waiting up to `wait` s for another to finish.

        Returns None when claimed (call end() after), else why not.
        """
        deadline = time.monotonic() + wait
        with self._cond:
            while True:
                why = self._refusal()
                if why is not None:
                    return why
                if not self.outstanding:
                    self.outstanding = prefix
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return f"the mgr is still busy with `{self.outstanding}` from cephtui; `{prefix}` was not sent"
                self._cond.wait(left)

    def answered(self, prefix: str) -> None:
        """A mgr answered `prefix` late (mgrline): whichever mgr that was is serving again."""
        with self._cond:
            if self.tripped is not None and self.tripped[1] == prefix:
                self.tripped = None
            self._cond.notify_all()

    def end(self, prefix: str, timed_out: bool) -> None:
        with self._cond:
            if timed_out:
                self.tripped = (self.mgr_map, prefix, time.time(), self.clock())
            self.outstanding = ""
            self._cond.notify_all()


def active_addr(mgr_dump: dict[str, Any]) -> MgrAddr | None:
    """The active mgr's address from `mgr dump`, v2 preferred; None if absent or garbled."""
    addrvec = mgr_dump.get("active_addrs")
    vec = addrvec.get("addrvec") if isinstance(addrvec, dict) else None
    addrs = [a for a in vec or () if isinstance(a, dict)]
    addrs.sort(key=lambda a: a.get("type") != "v2")
    text = str(addrs[0].get("addr", "")) if addrs else str(mgr_dump.get("active_addr") or "").split("/")[0]
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or int(port) == 0:
        return None
    # Pre-Nautilus dumps have only `active_addr`, a v1 address.
    return MgrAddr(host.strip("[]"), int(port), bool(addrs) and addrs[0].get("type") == "v2")
