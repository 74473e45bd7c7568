"""Operation (a mutating command with its exact `ceph` CLI equivalent), run() and the audit log."""
from __future__ import annotations

import errno
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cephtui.ceph.cluster import Commands
from cephtui.ceph.errors import CephError, CephPermissionError, CephReadOnly, CephStillWaiting, CephTimeout
from cephtui.ceph.mgrline import Carried
from cephtui.ceph.owner_only import open_append
from cephtui.ceph.secrets import redact, redact_value
from cephtui.paths import audit_log_path, login

# What an operation is known to do before any preview: SAFE changes no PG's up set (no data moves),
# DESTROYS removes something for good, MOVES_DATA changes placement in a way cephtui does not preview
# (pool size, pg_num). Operations that carry crush_edit or osd_weights are previewed: their impact label
# comes from the preview's own numbers, never from this field.
SAFE, MOVES_DATA, DESTROYS = "safe", "moves data", "destroys"


@dataclass(frozen=True)
class Operation:
    title: str  # "Mark osd.1 out"
    prefix: str
    args: tuple[tuple[str, Any], ...]
    cli: str  # the exact command an admin would type
    impact: str = SAFE  # SAFE / MOVES_DATA / DESTROYS
    confirm_text: str | None = None  # must be typed to confirm (destroying operations)
    inbuf: bytes = b""
    crush_edit: tuple[str, ...] | None = None  # crushtool args emulating this change (preview)
    # The override weights (`osd in/out/reweight`) this sets, osd id -> 0..1: the preview applies them
    # to an offline copy of the osdmap.
    osd_weights: tuple[tuple[int, float], ...] | None = None
    effect: str = ""  # what it does to client IO / failure detection / recovery, when that is the point
    confirm_why: str = ""  # why the typed confirmation is asked when nothing is destroyed
    # Not a mon command: what runs it instead, given the client (an image operation: librbd, as `rbd` does).
    run_by: Callable[[Any, Operation], str] | None = field(default=None, compare=False, repr=False)

    @property
    def command(self) -> dict[str, Any]:
        return {"prefix": self.prefix, **dict(self.args)}

    @property
    def previewable(self) -> bool:
        """Changes CRUSH or OSD weights: the PG-movement preview can compute what it moves."""
        return self.crush_edit is not None or self.osd_weights is not None


# ------------------------------------------------------------------ audit log

class AuditLog:
    """Append-only JSON lines: who ran what against which cluster, and what the cluster said.

    One line per attempt that reached the cluster: time, the operator's login (`user`), the
    cephx identity, the cluster fsid, the exact CLI equivalent, the command JSON, the return
    code (0, or -errno as librados gives it) and the monitor's own message. The file is 0600 in
    a 0700 directory, and secrets are masked on the way in. `session` keeps this run's entries
    for the Activity pane.
    """

    def __init__(self, path: Path | None = None, cluster: str = "", entity: str = "") -> None:
        self.path = path or audit_log_path()
        self.cluster = cluster
        self.entity = entity
        self.session: list[dict[str, Any]] = []  # appended from worker threads; read by the UI
        self.write_error = ""  # why the file could not be written, for the Activity pane to say
        self._lock = threading.Lock()

    def record(self, op: Operation, ok: bool, message: str, rc: int | None = None) -> dict[str, Any]:
        if rc is None:
            found = _ERRNO_RE.search(message)
            rc = 0 if ok else -(int(found.group(1)) if found else 1)
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "user": login(), "identity": self.entity,
            "fsid": self.cluster, "cli": redact(op.cli), "command": redact_value(op.command), "rc": rc,
            "ok": ok, "message": redact(message.strip()),
        }
        line = json.dumps(entry, default=str) + "\n"
        with self._lock:
            self.session.append(entry)
            try:
                with open_append(self.path) as f:
                    f.write(line)
                self.write_error = ""
            except OSError as e:
                # An unwritable audit log must not stop the operator (the mon keeps its own audit
                # channel); the Activity pane says the file is not being written, and why.
                self.write_error = f"{self.path}: {e.strerror or e}"
        return entry

    def tail(self, n: int = 50) -> list[dict[str, Any]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()[-n:]
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out


_ERRNO_RE = re.compile(r"\[errno (\d+)\]")


def is_unanswered(error: CephError) -> bool:
    """Sent, and no answer came within the op timeout (not one that was never sent: CephStillWaiting)."""
    return isinstance(error, CephTimeout) and not isinstance(error, CephStillWaiting)


def explain_refusal(op: Operation, error: CephError, identity: str = "", cap: str = "") -> str | None:
    """What the operator can do about a refusal the mon's text alone does not make obvious."""
    text = error.message
    if is_unanswered(error):
        # Not a refusal: librados stopped waiting (the op timeout), the monitor may have the command and commit
        # it later (seen: paxos commits over 5 s on a loaded 2-core machine). Running it again blind could do it
        # twice, or an undo could undo nothing.
        return ("No answer within the op timeout: this is not a refusal, and it may still be applied. Check the "
                "cluster (the tab shows it at its next refresh) before running it again.")
    if op.prefix == "osd pool delete" and "mon_allow_pool_delete" in text:
        return ("The monitors refuse to delete pools while mon_allow_pool_delete is false (a safety switch). "
                "cephtui never flips it for you. To allow it for this one deletion, run "
                "`ceph config set mon mon_allow_pool_delete true`, delete, then "
                "`ceph config set mon mon_allow_pool_delete false`.")
    if op.prefix == "osd pool delete" and "nodelete" in text:
        return f"The pool has the nodelete flag: `ceph osd pool set {dict(op.args)['pool']} nodelete false` first."
    if op.prefix == "osd pool create" and "max_pg_per_osd" in text:
        return "Lower pg_num, add OSDs, or raise mon_max_pg_per_osd (it protects OSD memory)."
    # EACCES is the caps check; the mon's policy refusals (pool deletion disabled …) are EPERM.
    if isinstance(error, CephPermissionError) and error.errno == errno.EACCES:
        who = identity or "this identity"
        need = f"`{op.prefix}` needs {cap}" if cap else f"`{op.prefix}` needs more mon caps"
        return (f"{who} may not do this: {need}. An admin can grant it with `ceph auth caps {who} …` "
                f"(caps are replaced as a whole), or run cephtui as another user (--id/--name, -k).")
    return None


def run(client: Commands, op: Operation, audit: AuditLog | None = None) -> str:
    """Send the operation; return the monitor's message. Raises CephError (audited) when refused."""
    try:
        if op.run_by is not None:
            outs = op.run_by(client, op)
        else:
            _, outs = client.mon_raw(op.prefix, op.inbuf, **dict(op.args))
    except CephReadOnly:
        raise  # never sent: nothing for the audit log
    except CephError as e:
        if audit is not None:
            audit.record(op, False, f"{e.message} [errno {e.errno}]", rc=-e.errno)
            if isinstance(e, CephTimeout) and e.carried is not None:
                # Still on its way to the mgr: when it is answered, and so takes effect, the log says so too.
                e.carried.when_answered(lambda c: _audit_late(audit, op, c))
        raise
    if audit is not None:
        audit.record(op, True, outs, rc=0)
    return outs.strip()


def _audit_late(audit: AuditLog, op: Operation, carried: Carried) -> None:
    after = f"answered {carried.age():.0f}s after it was sent, once a mgr was active"
    if carried.result is None:
        audit.record(op, False, f"{after}: {carried.error}", rc=-1)
        return
    ret, _, outs = carried.result
    audit.record(op, ret == 0, f"{after}: {outs.strip() or ('done' if ret == 0 else 'refused')}", rc=ret)
