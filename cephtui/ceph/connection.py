"""How to reach a cluster (ConnectionSpec), with the same meaning as the ceph CLI's flags and CEPH_ARGS, and the
librados handle it opens."""
from __future__ import annotations

import errno as errno_mod
import os
import shlex
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.errors import CephConnectError

try:  # Debian's python3-rados; absent on machines without Ceph (pure unit tests still run)
    import rados
except ImportError:  # pragma: no cover - exercised only on machines without python3-rados
    rados = None


@dataclass(frozen=True)
class ConnectionSpec:
    """How to reach the cluster, with the same meaning as the ceph CLI's flags."""

    conffile: str | None = None  # None: $CEPH_CONF, else /etc/ceph/$cluster.conf
    name: str = "client.admin"
    keyring: str | None = None
    cluster: str = "ceph"
    extra_args: tuple[str, ...] = ()  # further --option value pairs handed to librados
    connect_timeout: int = 5
    op_timeout: int = 5

    def resolved_conffile(self) -> str:
        if self.conffile:
            return self.conffile
        return os.environ.get("CEPH_CONF") or f"/etc/ceph/{self.cluster}.conf"

    @property
    def mon_host_given(self) -> bool:
        """A monitor address among the librados options (-m/--mon-host, a profile's mon_host)."""
        return any(a in ("-m", "--mon-host", "--mon_host") or a.startswith(("--mon-host=", "--mon_host="))
                   for a in self.extra_args)

    def conffile_to_read(self) -> str | None:
        """The config file librados reads; None: none (a monitor address given and no file to read, as
        `rados -m ADDR` runs without one). ENOENT CephConnectError when a file is needed and missing."""
        conffile = self.resolved_conffile()
        if os.path.exists(conffile):
            if not os.access(conffile, os.R_OK):
                raise CephConnectError(errno_mod.EACCES, f"cannot read {conffile}: permission denied")
            return conffile
        if self.mon_host_given and not self.conffile and not os.environ.get("CEPH_CONF"):
            return None
        raise CephConnectError(errno_mod.ENOENT, f"no ceph config at {conffile} (use -c/--conf or CEPH_CONF, "
                               "or -m/--mon-host to connect without one)")

    def open_handle(self, conf: dict[str, str]) -> Any:
        """A librados handle set up as this spec says, not connected. CephConnectError for a bad setting."""
        if rados is None:
            raise CephConnectError(errno_mod.ENOSYS, "the rados Python bindings are missing "
                                   "(apt install python3-rados; venv made with --system-site-packages)")
        conffile = self.conffile_to_read()
        try:
            handle = rados.Rados(name=self.name, clustername=self.cluster, conffile=conffile, conf=conf)
            if self.extra_args:
                handle.conf_parse_argv(["ceph", *self.extra_args])
            if self.keyring:
                handle.conf_set("keyring", self.keyring)
        except rados.Error as e:
            raise CephConnectError(getattr(e, "errno", None) or errno_mod.EINVAL, f"bad configuration: {e}") from None
        return handle


def split_ceph_args(value: str | None) -> list[str]:
    """CEPH_ARGS, split like a shell would, as the ceph CLI does."""
    return shlex.split(value) if value else []
