"""The errors a cluster call raises: each carries the errno (positive) and Ceph's own text, with no key in it
(secrets.redact), and the command prefix it answered."""
from __future__ import annotations

import errno as errno_mod
import os

from cephtui.ceph.mgrline import Carried
from cephtui.ceph.secrets import redact


class CephError(Exception):
    """A command or connection failed. `errno` is positive; `message` is Ceph's own text."""

    def __init__(self, errno: int, message: str, prefix: str = "") -> None:
        self.errno = errno
        # Whatever a command or the mon says passes through here on its way to the screen,
        # the audit log and the log: no key goes with it.
        self.message = redact(message.strip()) or os.strerror(errno)
        self.prefix = prefix
        where = f"{prefix}: " if prefix else ""
        super().__init__(f"{where}{self.message} [errno {errno}]")


class CephTimeout(CephError):
    """The mon (or mgr) did not answer within the configured op timeout.

    `carried`: a mgr command that is still on its way (mgrline): it waits at this client, not at the mon,
    and is answered (and takes effect) when a mgr does; its listeners hear of that answer.
    """

    carried: Carried | None = None


class CephStillWaiting(CephTimeout):
    """Not sent: an earlier command of the same prefix from cephtui still waits for its answer."""


class CephPermissionError(CephError):
    """The cluster refused: our key or caps do not allow this."""


class CephReadOnly(CephError):
    """cephtui runs with --read-only: a mutating command was stopped before it left."""


class CephMgrDown(CephError):
    """Not sent: the mgr is down or has left a command unanswered at the mon (see mgrgate)."""


class CephConnectError(CephError):
    """Could not connect at all; `str()` is a one-line explanation for the operator."""


class CephUnknownCommand(CephError):
    """The monitors answered EINVAL "command not known": the cluster's release has no such command."""


def error_for(errno: int, message: str, prefix: str = "") -> CephError:
    if errno in (errno_mod.ETIMEDOUT, errno_mod.EINTR):
        return CephTimeout(errno, message or "timed out waiting for the monitor", prefix)
    if errno in (errno_mod.EACCES, errno_mod.EPERM):
        return CephPermissionError(errno, message or "permission denied", prefix)
    return CephError(errno, message, prefix)
