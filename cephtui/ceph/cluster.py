"""One contract to the cluster: what cephtui asks of a connection, whoever serves it.

`CephClient` serves it from librados; `ReplaySurface` (recording.py: `ReplayClient`, the look tier's
replays, the look capture's recorder) from recorded answers. Code that talks to a cluster takes a
`Cluster`, or one of its views when it needs less (`Commands`: the four command calls; `Tells`: the
daemons' own commands), so a replay stands in for a cluster everywhere without a `getattr` probe.
Like Harlequin's adapter ABCs, it says what a backend offers; unlike them it is structural (a Protocol),
so a test's fake needs no base class, only the members a caller uses.
"""
from __future__ import annotations

from typing import Any, Protocol

from cephtui.ceph.commands import CommandTable
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.releases import Release


class Commands(Protocol):
    """The four command calls: parsed JSON (`mon`, `mgr`), or the raw answer and the status text."""

    def mon(self, prefix: str, **args: Any) -> Any: ...

    def mgr(self, prefix: str, **args: Any) -> Any: ...

    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]: ...

    def mgr_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]: ...


class Tells(Protocol):
    """Commands a daemon serves itself (`ceph tell osd.N`, `ceph tell mon.ID`, `ceph tell mgr`, `ceph tell mds.X`)."""

    def osd_tell(self, osd: int, prefix: str, **args: Any) -> Any: ...

    def mon_tell(self, mon: str, prefix: str, **args: Any) -> Any: ...

    def tell_mgr(self, prefix: str, **args: Any) -> Any: ...

    def mds_tell(self, spec: str, prefix: str, **args: Any) -> Any:
        """`ceph tell mds.SPEC` (a name, gid, rank or fs:rank): the MDS's own commands (`session ls` ...)."""
        ...


class Cluster(Commands, Tells, Protocol):
    """Everything cephtui asks of a cluster connection."""

    # Who is asking: the identity (`spec.name`, said in every refusal for caps) and the cluster's name.
    spec: ConnectionSpec
    # --read-only: nothing mutating leaves (the connection refuses it by the cluster's command table).
    read_only: bool

    @property
    def live(self) -> bool:
        """A real cluster now (False: answers recorded earlier; nothing to record into history)."""
        ...

    @property
    def connected(self) -> bool: ...

    @property
    def handle(self) -> Any:
        """The librados handle (cluster log, pools' I/O, RBD); a replay has none and raises CephError."""
        ...

    def fsid(self) -> str: ...

    def close(self) -> None: ...

    def commands(self) -> CommandTable:
        """The cluster's own command table: mutating or not, mgr or mon, the caps each needs."""
        ...

    def is_mgr_command(self, prefix: str) -> bool: ...

    def required_cap(self, prefix: str) -> str:
        """The cap a refused command needs, for the refusal's one line ("more mon caps" when unknown)."""
        ...

    def waiting(self) -> tuple[str, float] | None:
        """The command waited on longest right now and for how long: the UI says "no answer" before a timeout."""
        ...

    def mgr_refusal(self) -> str | None:
        """Why mgr commands are held back now (a mgr command left unanswered, the mgr down), else None."""
        ...

    def mon_releases(self) -> list[Release]:
        """The monitors' releases, oldest first ([] when unknown)."""
        ...

    def release_skew(self) -> str | None:
        """One line when this librados is older than the monitors, else None."""
        ...
