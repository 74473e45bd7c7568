"""CephClient: one persistent librados handle, commands in, parsed JSON out.

Reads never shell out to `ceph`: a persistent handle answers a status command in
milliseconds, a `ceph` process costs hundreds. The handle is shared by the poller
and action workers; librados is thread-safe and the binding drops the GIL while
it waits.
"""
from __future__ import annotations

import errno as errno_mod
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from cephtui.ceph import msgrprobe
from cephtui.ceph.answers import loads
from cephtui.ceph.cephfs.tell import MDS_READ_TELLS, MdsTells
from cephtui.ceph.commands import CommandTable, module_not_running
from cephtui.ceph.connect_failure import explain_connect_failure
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import (
    CephConnectError,
    CephError,
    CephMgrDown,
    CephPermissionError,
    CephReadOnly,
    CephStillWaiting,
    CephTimeout,
    CephUnknownCommand,
    error_for,
)
from cephtui.ceph.mgrgate import MgrGate, active_addr
from cephtui.ceph.mgrline import Carried, MgrBusy, MgrLine, MgrNoAnswer
from cephtui.ceph.releases import (
    Release,
    librados_text,
    local_release,
    parse_release,
)

try:  # Debian's python3-rados; absent on machines without Ceph (pure unit tests still run)
    import rados
except ImportError:  # pragma: no cover - exercised only on machines without python3-rados
    rados = None


# Tell commands an OSD serves without changing anything (`bench` writes to the disk).
READ_TELLS = ("version", "status", "perf dump", "dump_ops_in_flight", "dump_historic_ops", "config get",
              "config show", "dump_blocked_ops", "dump_historic_slow_ops", "sessions")
# What the mgr serves (mgr down or hung: these wait); the command table's FLAG_MGR says it when known.
MGR_PREFIXES = frozenset({"pg dump", "pg stat", "pg dump_stuck", "pg ls-by-osd", "osd df", "osd perf",
                          "osd pool stats", "osd pool autoscale-status", "osd ok-to-stop",
                          "osd safe-to-destroy", "orch status"})

# Seconds between attempts to fetch the command table while the mon does not give it.
TABLE_RETRY = 60.0
# A command that changes the cluster (by the cluster's own command table) waits this long for the mon's answer,
# on a handle of its own: librados has one rados_mon_op_timeout per handle, and reads keep the short one. A mon
# whose store is slow to sync (a busy disk) took over 5 s to commit `osd set-group` in CI, and cephtui said "no
# answer" of a command the mon then applied; the ceph CLI waits without a limit.
MUTATION_TIMEOUT = 30


@dataclass
class CephClient:
    spec: ConnectionSpec = field(default_factory=ConnectionSpec)
    # --read-only: mutating commands (by the cluster's own command table) never leave.
    read_only: bool = False

    def __post_init__(self) -> None:
        self._handle: Any = None
        self._mutation_handle: Any = None  # MUTATION_TIMEOUT; opened beside the main handle (_open_mutation_handle)
        self._mutation_opener: threading.Thread | None = None
        self._mds: MdsTells | None = None  # `ceph tell mds.X` through libcephfs, made at the first one
        self._conf: dict[str, str] = {}
        self._lock = threading.Lock()
        self._commands: CommandTable | None = None
        # thread id -> (prefix, monotonic start) of the command that thread waits on: the UI
        # reads it to say "no answer from the monitors" before librados' own timeout ends the wait.
        self._inflight: dict[int, tuple[str, float]] = {}
        self.last_answer = 0.0  # monotonic time of the last reply from the mon (any return code)
        # At most one command of each kind in flight on this connection: a second asker of the same
        # prefix waits for the first instead of stacking a duplicate at the mon.
        self._kinds: dict[str, threading.Lock] = {}
        self.mgr_gate = MgrGate()  # which mgr commands may leave, and when cephtui says "mgr down"
        # mgr commands go to the mgr itself on a connection of their own (mgrline), never held at the mon.
        self._mgr_line: MgrLine | None = None
        # Prefixes the mgr refused for want of mgr caps (a key with mon caps only): those go through the
        # mon, which authorises them by mon caps, under the gate and the probe (docs/mgr-outage.md).
        self._via_mon: set[str] = set()
        # Whether this key may read the mgrmap (None: not known yet). MgrClient learns where the mgr is from
        # the mgrmap; a key that may not read it (`mon 'allow command status'`) would wait for ever.
        self._reads_mgrmap: bool | None = None
        self._mon_releases: list[Release] | None = None
        self._table_tried = -TABLE_RETRY  # monotonic time of the last attempt to fetch the command table

    # ------------------------------------------------------------ connection
    def connect(self) -> CephClient:
        timeout = str(self.spec.op_timeout)
        conf = {
            "rados_mon_op_timeout": timeout,
            "rados_osd_op_timeout": timeout,
            "client_mount_timeout": str(self.spec.connect_timeout),
            # librados writes its own complaints to stderr; we explain errors ourselves.
            "log_to_stderr": "false",
            "err_to_stderr": "false",
        }
        handle = self.spec.open_handle(conf)
        conffile = self.spec.conffile_to_read() or "(none: -m/--mon-host)"
        try:
            handle.connect(timeout=self.spec.connect_timeout)
        except rados.Error as e:
            code = abs(getattr(e, "errno", 0) or 0)
            why = explain_connect_failure(code, handle, conffile, self.spec.name, self.spec.connect_timeout)
            try:
                handle.shutdown()
            except Exception:
                pass
            raise CephConnectError(code, why) from None
        self._handle = handle
        self._conf = conf
        self._mgr_line = MgrLine(lambda: self._open_handle({**conf, "rados_mon_op_timeout": "0"}, "to the mgr"),
                                 on_late=self._late_answer)
        self._mds = MdsTells(lambda: self.handle, float(self.spec.op_timeout))
        if not self.read_only and self.spec.op_timeout < MUTATION_TIMEOUT:
            # Opened now, beside the main handle, not at the first mutation: librados resends the commands in
            # flight when it reconnects to a mon (MonClient::_resend_mon_commands), and a handle seconds old
            # did so in CI (a loaded Reef mon): `osd crush move` went out twice, 0.2 s apart, and the mon's
            # answer to the second ("no need to move item") was the one shown. A handle opened with the app
            # is past its first seconds when an admin confirms anything.
            self._mutation_opener = threading.Thread(target=self._open_mutation_handle, daemon=True,
                                                     name="cephtui-mutation-handle")
            self._mutation_opener.start()
        return self

    def _open_mutation_handle(self) -> None:
        try:
            handle = self._open_handle({**self._conf, "rados_mon_op_timeout": str(MUTATION_TIMEOUT)},
                                       "for commands that change the cluster")
        except CephError:
            return  # _handle_for sends on the main handle (the short wait) rather than not at all
        with self._lock:
            if self._handle is not None and self._mutation_handle is None:
                self._mutation_handle, handle = handle, None
        if handle is not None:  # closed meanwhile
            _shutdown(handle)

    def _late_answer(self, carried: Carried) -> None:
        """A mgr answered a command its caller gave up on: the mgr is back, the gate may open again."""
        self.last_answer = time.monotonic()
        self.mgr_gate.answered(carried.prefix)

    def _open_handle(self, conf: dict[str, str], what: str) -> Any:
        """Another connection with these settings: the mgr line's (no librados timeout on commands, mgrline
        says why) and the mutations' (MUTATION_TIMEOUT)."""
        handle = self.spec.open_handle(conf)
        try:
            handle.connect(timeout=self.spec.connect_timeout)
        except rados.Error as e:
            _shutdown(handle)
            raise error_for(abs(getattr(e, "errno", 0) or errno_mod.EIO), f"cannot connect {what}: {e}") from None
        return handle

    @property
    def connected(self) -> bool:
        return self._handle is not None

    def close(self) -> None:
        opener = self._mutation_opener
        if opener is not None and opener.is_alive():
            # Still connecting: wait for it, so that its handle is shut down below. A process that exits with a
            # librados handle half made (a short headless command) can crash in librados' own teardown.
            opener.join(self.spec.connect_timeout)
        with self._lock:
            handle, self._handle = self._handle, None
            line, self._mgr_line = self._mgr_line, None
            slow, self._mutation_handle = self._mutation_handle, None
            mds, self._mds = self._mds, None
        if line is not None:
            line.close()
        if mds is not None:
            mds.close()  # before the handle it runs on
        for h in (handle, slow):
            if h is not None:
                _shutdown(h)

    def __enter__(self) -> CephClient:
        if not self.connected:
            self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def handle(self) -> Any:
        if self._handle is None:
            raise CephConnectError(errno_mod.ENOTCONN, "not connected")
        return self._handle

    def fsid(self) -> str:
        return self.handle.get_fsid()

    # ------------------------------------------------------------ commands
    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        """Send a mon command; return (outbuf, outs) or raise CephError with the mon's text."""
        return self._call(prefix, inbuf, args)

    def mgr_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        """A command served by the active mgr (pg stat, osd df, safe-to-destroy ...), sent to the mgr."""
        return self._call(prefix, inbuf, args, mgr=True)

    def mon(self, prefix: str, **args: Any) -> Any:
        args.setdefault("format", "json")
        out, _ = self.mon_raw(prefix, **args)
        return loads(out)

    def mgr(self, prefix: str, **args: Any) -> Any:
        args.setdefault("format", "json")
        out, _ = self.mgr_raw(prefix, **args)
        return loads(out)

    # ------------------------------------------------------------ what the cluster allows
    def commands(self) -> CommandTable:
        """The cluster's command table (fetched once, ~130 KB); raises CephError if the mon is away."""
        table = self._commands
        if table is None:
            out, _ = self._send("get_command_descriptions", b"", {})
            table = self._commands = CommandTable(loads(out))
        return table

    def is_mgr_command(self, prefix: str) -> bool:
        info = self._commands.get(prefix) if self._commands is not None else None
        return info.mgr if info is not None else prefix in MGR_PREFIXES

    def required_cap(self, prefix: str) -> str:
        try:
            return self.commands().required_cap(prefix)
        except CephError:
            return "more mon caps"

    @property
    def live(self) -> bool:
        return True  # a real cluster now (cluster.Cluster: a replay answers what was recorded)

    def mgr_refusal(self) -> str | None:
        """Why a mgr command may not leave now (the gate: mgr down, one left unanswered), or None."""
        return self.mgr_gate.refusal()

    def waiting(self) -> tuple[str, float] | None:
        """The command waited on longest right now and for how many seconds, or None."""
        inflight = list(self._inflight.values())
        if not inflight:
            return None
        prefix, t0 = min(inflight, key=lambda x: x[1])
        return prefix, time.monotonic() - t0

    def _refuse_if_read_only(self, prefix: str, cli: str) -> None:
        if not self.read_only:
            return
        table = self.commands()
        if table.get(prefix) is None and len(table):
            # Not in the cluster's own table: never sent (the guard fails closed), but said as what it is.
            # The cluster would answer EINVAL; a read-only refusal would wrongly call it mutating (seen on
            # Debian's Reef, whose mgr modules cannot run, so `osd pool autoscale-status` is not served).
            why = module_not_running(prefix) or "the mgr module serving it may not be running"
            raise CephError(errno_mod.EINVAL, f"this cluster does not know `{cli}` (not in its command table; "
                            f"{why}): not sent", prefix)
        if table.is_mutating(prefix):
            raise CephReadOnly(errno_mod.EROFS, f"read-only mode (--read-only): `{cli}` was not sent", prefix)

    def _call(self, prefix: str, inbuf: bytes, args: dict[str, Any], mgr: bool = False) -> tuple[bytes, str]:
        if self.read_only:
            self._refuse_if_read_only(prefix, f"ceph {prefix}")
        return self._send(prefix, inbuf, args, mgr)

    def _send(self, prefix: str, inbuf: bytes, args: dict[str, Any], mgr: bool = False) -> tuple[bytes, str]:
        wait = float(self.spec.op_timeout)
        if self._commands is None and prefix != "get_command_descriptions" \
                and time.monotonic() - self._table_tried > TABLE_RETRY:
            # Once per connection: which commands the mgr serves, by the cluster's own table (a module's
            # `crash ls` as much as `pg stat`); while the mon is away, MGR_PREFIXES, and a retry later.
            self._table_tried = time.monotonic()
            try:
                self.commands()
            except CephError:
                pass
        # The caller's word (mgr()) or the cluster's command table: a mgr command goes through the gate.
        mgr = mgr or (prefix != "get_command_descriptions" and self.is_mgr_command(prefix))
        if mgr:
            why = self._mgr_not_listening() or self.mgr_gate.begin(prefix, wait)
            if why is not None:
                raise CephMgrDown(errno_mod.EAGAIN, why, prefix)
        timed_out = False
        try:
            if mgr and prefix not in self._via_mon and self._may_use_mgr_line():
                out, outs = self._send_to_mgr(prefix, inbuf, args, wait)
            else:
                out, outs = self._send_one_of_a_kind(prefix, inbuf, args, wait)
        except CephTimeout as e:
            timed_out = not isinstance(e, CephStillWaiting)  # the earlier one already said so
            raise
        finally:
            if mgr:
                self.mgr_gate.end(prefix, timed_out)
        self._observe_mgr(prefix, out)
        return out, outs

    def _may_use_mgr_line(self) -> bool:
        """The mgr line needs the mgrmap, which the mon sends only to a key that may read it (mon caps on
        the mgr service, as `mon 'allow r'` gives): without it MgrClient never learns where the mgr is and
        the command waits for ever (measured with `mon 'allow command status, allow command health'`).
        Asked once, with `mgr stat`; such a key's mgr commands go through the mon, which refuses or serves
        them by its caps, as before. The mon away: not known yet, the line is used (an admin's key)."""
        if self._reads_mgrmap is None:
            try:
                self._send_one_of_a_kind("mgr stat", b"", {"format": "json"}, float(self.spec.op_timeout))
                self._reads_mgrmap = True
            except CephPermissionError:
                self._reads_mgrmap = False
            except CephError:
                return True
        return self._reads_mgrmap

    def _send_one_of_a_kind(self, prefix: str, inbuf: bytes, args: dict[str, Any], wait: float) -> tuple[bytes, str]:
        """Through the mon, at most one command of each prefix in flight: a second asker waits for the first."""
        kind = self._kinds.setdefault(prefix, threading.Lock())
        if not kind.acquire(timeout=wait):
            raise CephStillWaiting(errno_mod.ETIMEDOUT, f"an earlier `{prefix}` from cephtui is still waiting for "
                                   "an answer; not sent again", prefix)
        try:
            return self._send_now(prefix, inbuf, args)
        finally:
            kind.release()

    def tell_mgr(self, prefix: str, **args: Any) -> Any:
        """`ceph tell mgr PREFIX`: a command of the active mgr daemon itself (its admin socket's, such as
        dump_osd_network), sent to it by name on the mgr line, through the mgr gate: never held at the mon,
        and never a librados timeout, whose late answer would complete freed memory (see mgrline)."""
        stat = self.mon("mgr stat")
        name = stat.get("active_name") if isinstance(stat, dict) else None
        if not name or not stat.get("available", True):
            raise CephMgrDown(errno_mod.EAGAIN, "no active mgr", prefix)
        args.setdefault("format", "json")
        wait = float(self.spec.op_timeout)
        why = self._mgr_not_listening() or self.mgr_gate.begin(prefix, wait)
        if why is not None:
            raise CephMgrDown(errno_mod.EAGAIN, why, prefix)
        timed_out = False
        try:
            out, _ = self._send_to_mgr(prefix, b"", args, wait, target=str(name))
        except CephTimeout as e:
            timed_out = not isinstance(e, CephStillWaiting)
            raise
        finally:
            self.mgr_gate.end(prefix, timed_out)
        return loads(out)

    def _send_to_mgr(self, prefix: str, inbuf: bytes, args: dict[str, Any], wait: float,
                     target: str = "") -> tuple[bytes, str]:
        """A mgr command to the active mgr itself (mgrline): a dead mgr holds it here, never at the mon."""
        line = self._mgr_line
        if line is None:
            raise CephConnectError(errno_mod.ENOTCONN, "not connected")
        me = threading.get_ident()
        self._inflight[me] = (prefix, time.monotonic())
        try:
            ret, out, outs = line.send(prefix, json.dumps({"prefix": prefix, **args}), inbuf, wait, target)
        except MgrNoAnswer as e:
            err = CephTimeout(errno_mod.ETIMEDOUT, f"no answer from the mgr within {wait:g}s; the command waits at "
                              "this client (not at the mon) and is answered, and takes effect, when a mgr is "
                              "active", prefix)
            err.carried = e.carried
            raise err from None
        except MgrBusy as e:
            raise CephStillWaiting(errno_mod.ETIMEDOUT, f"an earlier `{prefix}` from cephtui has waited "
                                   f"{e.earlier.age():.0f}s for the mgr (at this client); not sent again",
                                   prefix) from None
        except CephError:
            raise
        except rados.Error as e:
            raise error_for(abs(getattr(e, "errno", 0) or errno_mod.EIO), str(e), prefix) from None
        except OSError as e:
            raise error_for(e.errno or errno_mod.EIO, e.strerror or str(e), prefix) from None
        finally:
            self._inflight.pop(me, None)
        self.last_answer = time.monotonic()
        if target and ret > 0:
            ret = 0  # a daemon's own command answers 1 with a good answer (Pacific's dump_osd_network)
        if ret == -errno_mod.EACCES and not target:
            # The mgr checks mgr caps; the mon, forwarding, checks mon caps. A key with mon caps only is
            # served through the mon, as before (the CLI would be refused): the mon's own answer decides.
            self._via_mon.add(prefix)
            return self._send_one_of_a_kind(prefix, inbuf, args, wait)
        if ret != 0:
            if ret == -errno_mod.EINVAL and outs.strip().startswith("No handler found"):
                raise CephUnknownCommand(errno_mod.EINVAL, self.explain_unknown(prefix), prefix)
            raise error_for(abs(ret), outs, prefix)
        return out, outs

    def _observe_mgr(self, prefix: str, out: bytes) -> None:
        """Feed the gate whatever the mon says about the mgrmap, from answers we get anyway."""
        if prefix not in ("mgr dump", "mgr stat", "status"):
            return
        try:
            d = loads(out)
        except ValueError:
            return
        if not isinstance(d, dict):
            return
        if prefix == "status":
            d = d.get("mgrmap") if isinstance(d.get("mgrmap"), dict) else {}
        if "available" in d:
            # Only `mgr dump` names the active mgr's gid (a restarted mgr has a new one) and address.
            dump = prefix == "mgr dump"
            self.mgr_gate.observe(bool(d["available"]), d.get("active_gid") if dump else None,
                                  active_addr(d) if dump else None)

    def _mgr_not_listening(self) -> str | None:
        """"mgr down ..." when the active mgr's address says so: the kernel refuses a TCP connection,
        or another kind of daemon answers there (msgrprobe: a freed port is soon taken by the next
        daemon to start on that host).

        For mon_mgr_beacon_grace (30 s) after a mgr dies the mgrmap still calls it active, and a
        command sent then stays queued at the mon until a mgr returns, which then reports it as a
        slow op. The probe says at once, without the mon, that the process is gone (a SIGTERMed mgr
        stopped listening within 20 ms here). Any other outcome (a mgr answers, or a timeout, or no
        msgr2 HELLO) is no evidence: the command goes, under the gate. Checked before every mgr
        command (a connect and a banner cost one round trip each): a cached "alive" let a command
        through to a mgr that had died since, and that command then sat at the mon.
        """
        addr = self.mgr_gate.addr
        if addr is None or self.mgr_gate.available is False:
            return None
        answer = msgrprobe.probe(addr.host, addr.port, addr.msgr2)
        if answer.refused:
            return (f"mgr down: nothing listens at {addr.host}:{addr.port}, the active mgr's address; "
                    "the mon has not noticed yet (mon_mgr_beacon_grace)")
        if answer.entity and answer.entity != "mgr":
            return (f"mgr down: another daemon ({answer.entity}) now listens at {addr.host}:{addr.port}, the "
                    "active mgr's address; the mon has not noticed yet (mon_mgr_beacon_grace)")
        return None

    def _handle_for(self, prefix: str) -> Any:
        """The handle a mon command goes out on: a mutation's waits MUTATION_TIMEOUT for its answer."""
        info = self._commands.get(prefix) if self._commands is not None else None
        if info is None or not info.mutating or self.spec.op_timeout >= MUTATION_TIMEOUT:
            return self.handle  # a read, or a command the table does not name (the mon refuses it at once)
        opener = self._mutation_opener
        if opener is not None and opener.is_alive():
            opener.join(self.spec.connect_timeout)  # still connecting (a mutation right after the start)
        if self._mutation_handle is None and self._handle is not None:
            self._open_mutation_handle()  # it could not connect then: once more, now
        return self._mutation_handle or self.handle

    def _send_now(self, prefix: str, inbuf: bytes, args: dict[str, Any]) -> tuple[bytes, str]:
        cmd = {"prefix": prefix, **args}
        handle = self._handle_for(prefix)
        me = threading.get_ident()
        self._inflight[me] = (prefix, time.monotonic())
        # Mon commands; a mgr command only for a key without mgr caps (_send_to_mgr), forwarded by the mon.
        try:
            ret, out, outs = handle.mon_command(json.dumps(cmd), inbuf)
        except rados.Error as e:  # the binding raises on some transport failures
            raise error_for(abs(getattr(e, "errno", 0) or errno_mod.EIO), str(e), prefix) from None
        finally:
            self._inflight.pop(me, None)
        if ret != -errno_mod.ETIMEDOUT:  # -110: librados gave up waiting; anything else is an answer
            self.last_answer = time.monotonic()
        if ret != 0:
            if ret == -errno_mod.EINVAL and outs.strip() == "command not known" and prefix != "versions":
                raise CephUnknownCommand(errno_mod.EINVAL, self.explain_unknown(prefix), prefix)
            # mon commands return -errno; a timed-out mgr command comes back as +110.
            raise error_for(abs(ret), outs, prefix)
        return out, outs

    # ------------------------------------------------------------ releases on both sides
    def mon_releases(self) -> list[Release]:
        """The monitors' releases (`versions`; more than one mid-upgrade), oldest first; [] if not allowed."""
        if self._mon_releases is None:
            found: list[Release] = []
            try:
                ret, out, _ = self.handle.mon_command(json.dumps({"prefix": "versions", "format": "json"}), b"")
                if ret == 0:
                    mons = (loads(out) or {}).get("mon") or {}
                    found = [r for r in (parse_release(t) for t in mons) if r]
            except Exception:
                found = []
            self._mon_releases = sorted(set(found), key=lambda r: [int(x) for x in r.version.split(".")])
        return self._mon_releases

    def mon_release_text(self) -> str:
        rels = self.mon_releases()
        return ", ".join(str(r) for r in rels) if rels else "release unknown"

    def explain_unknown(self, prefix: str) -> str:
        """One line for a command the monitors do not know, naming both releases."""
        rels = self.mon_releases()
        local = local_release()
        head = f"the cluster (mon: {self.mon_release_text()}) does not know `{prefix}`"
        if why := module_not_running(prefix):  # not in the table at all when its module cannot run
            return f"{head}: {why} (`ceph mgr module ls`; `ceph health detail` names why, e.g. MGR_MODULE_DEPENDENCY)"
        if self.is_mgr_command(prefix):
            return (f"{head}: a mgr module serves it; is the module enabled and healthy (`ceph mgr module ls`, "
                    "`ceph health detail`)?")
        if rels and local and rels[0].major < local.major:
            return (f"{head}: not in its command table, so likely a later release's command "
                    f"({librados_text(local)})")
        return f"{head} ({librados_text(local)}): not in this release's command table"

    def release_skew(self) -> str | None:
        """One line when this librados is older than the monitors' release, else None."""
        rels = self.mon_releases()
        local = local_release()
        if not rels or local is None or local.major >= rels[-1].major or local.major == 0:
            return None
        return (f"{librados_text(local)}, older than the cluster (mon: {self.mon_release_text()}): newer keys, "
                "commands and fields may be refused or missing; run cephtui with the cluster's release of "
                "python3-rados (on a mon node, or `cephadm shell`)")

    def osd_tell(self, osd: int, prefix: str, **args: Any) -> Any:
        """`ceph tell osd.N PREFIX ...`: a command served by one OSD itself, parsed JSON.

        Bounded by rados_osd_op_timeout (spec.op_timeout), not rados_mon_op_timeout; the
        binding's own timeout argument is documented as ignored and is passed only in case a
        later binding honours it. A command that times out here keeps running on the OSD, and
        the OSD serves tell commands one at a time, so the next one queues behind it.
        """
        args.setdefault("format", "json")
        cmd = {"prefix": prefix, **args}
        where = f"osd.{osd} {prefix}"
        if self.read_only and prefix not in READ_TELLS:
            raise CephReadOnly(errno_mod.EROFS, f"read-only mode (--read-only): `ceph tell osd.{osd} {prefix}` "
                               "was not sent", where)
        handle = self.handle
        try:
            ret, out, outs = handle.osd_command(osd, json.dumps(cmd), b"", timeout=self.spec.op_timeout)
        except rados.Error as e:
            raise error_for(abs(getattr(e, "errno", 0) or errno_mod.EIO), str(e), where) from None
        if ret != 0:
            # -ENOENT "osd dne", -ENXIO "osd down" come from librados at once; -ETIMEDOUT has no text.
            if abs(ret) == errno_mod.ETIMEDOUT and not outs.strip():
                outs = f"no reply from osd.{osd} within {self.spec.op_timeout}s (rados_osd_op_timeout)"
            raise error_for(abs(ret), outs, where)
        return loads(out)


    def mds_tell_raw(self, spec: str, prefix: str, **args: Any) -> bytes:
        """`ceph tell mds.SPEC PREFIX` (SPEC: a name, gid, rank or fs:rank), bounded by the op timeout (cephfs/tell)."""
        if self.read_only and prefix not in MDS_READ_TELLS:
            raise CephReadOnly(errno_mod.EROFS, f"read-only mode (--read-only): `ceph tell mds.{spec} {prefix}` "
                               "was not sent", f"mds.{spec} {prefix}")
        if self._mds is None:
            raise CephConnectError(errno_mod.ENOTCONN, "not connected")
        return self._mds.command(spec, prefix, args)

    def mds_tell(self, spec: str, prefix: str, **args: Any) -> Any:
        return loads(self.mds_tell_raw(spec, prefix, **args))

    def mon_tell(self, mon: str, prefix: str, **args: Any) -> Any:
        """`ceph tell mon.ID PREFIX` (its sessions …), parsed JSON; read-only tells only."""
        where = f"mon.{mon} {prefix}"
        if prefix not in READ_TELLS:
            raise CephReadOnly(errno_mod.EROFS, f"`ceph tell {where}`: cephtui sends only reads this way", where)
        cmd = json.dumps({"prefix": prefix, "format": "json", **args})
        try:
            ret, out, outs = self.handle.mon_command(cmd, b"", timeout=self.spec.op_timeout, target=mon)
        except rados.Error as e:
            raise error_for(abs(getattr(e, "errno", 0) or errno_mod.EIO), str(e), where) from None
        if ret != 0:
            raise error_for(abs(ret), outs, where)
        return loads(out)


def _shutdown(handle: Any) -> None:
    try:
        handle.shutdown()
    except Exception:
        pass
