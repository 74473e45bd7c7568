"""Record the commands a snapshot needs, and replay them: real cluster output as test fixtures.

`scripts/capture_fixtures.py` records from a sandbox cluster; unit tests replay the
recordings through the same SnapshotBuilder the app uses, without a cluster.
"""
from __future__ import annotations

import base64
import errno as errno_mod
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cephtui.ceph.answers import loads
from cephtui.ceph.client import MGR_PREFIXES, CephClient
from cephtui.ceph.commands import CommandTable
from cephtui.ceph.connection import ConnectionSpec
from cephtui.ceph.errors import CephError, error_for
from cephtui.ceph.releases import Release


def command_key(target: str, prefix: str, args: dict[str, Any]) -> str:
    return json.dumps({"target": target, "prefix": prefix, **args}, sort_keys=True)


class RawAnswers:
    """The client's four command calls, answered from `raw` (one command's raw JSON answer) as CephClient does."""

    def raw(self, target: str, prefix: str, args: dict[str, Any]) -> bytes:
        raise NotImplementedError

    def mon(self, prefix: str, **args: Any) -> Any:
        return loads(self.raw("mon", prefix, args))

    def mgr(self, prefix: str, **args: Any) -> Any:
        return loads(self.raw("mgr", prefix, args))

    def mon_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        return self.raw("mon", prefix, args), ""

    def mgr_raw(self, prefix: str, inbuf: bytes = b"", **args: Any) -> tuple[bytes, str]:
        return self.raw("mgr", prefix, args), ""

    def mds_tell(self, spec: str, prefix: str, **args: Any) -> Any:
        """An MDS's answer, recorded under the target `mds:SPEC` (scripts/capture_fs_fixtures.py)."""
        return loads(self.raw(f"mds:{spec}", prefix, args))


class ReplaySurface(RawAnswers):
    """The rest of cluster.Cluster for a client without librados: always connected, never read-only, no
    handle (so no cluster log and no I/O) and no daemon to tell, nothing waited on, the fsid from `status`.
    ReplayClient's, and the look capture's recorder's, so the app takes the same paths while a capture is
    made as while it is replayed."""

    spec: ConnectionSpec = ConnectionSpec(name="client.replay")
    read_only: bool = False

    @property
    def live(self) -> bool:
        return False  # recorded answers: nothing new to record into history

    @property
    def connected(self) -> bool:
        return True

    @property
    def handle(self) -> Any:
        raise error_for(errno_mod.ENOTSUP, "a recording has no librados handle (no cluster log, no I/O)")

    def fsid(self) -> str:
        return (self.mon("status") or {}).get("fsid", "")

    def close(self) -> None:
        pass

    def commands(self) -> CommandTable:
        # Not recorded: a caller takes this as it takes a mon that is away (cannot tell).
        raise error_for(errno_mod.ENOTSUP, "a recording has no command table", "get_command_descriptions")

    def is_mgr_command(self, prefix: str) -> bool:
        return prefix in MGR_PREFIXES

    def required_cap(self, prefix: str) -> str:
        return "more mon caps"

    def waiting(self) -> tuple[str, float] | None:
        return None  # answers come at once

    def mgr_refusal(self) -> str | None:
        return None

    def mon_releases(self) -> list[Release]:
        return []

    def release_skew(self) -> str | None:
        return None

    def _no_tell(self, where: str) -> Any:
        raise error_for(errno_mod.ENOTSUP, f"a recording cannot tell {where}", where)

    def osd_tell(self, osd: int, prefix: str, **args: Any) -> Any:
        return self._no_tell(f"osd.{osd} {prefix}")

    def mon_tell(self, mon: str, prefix: str, **args: Any) -> Any:
        return self._no_tell(f"mon.{mon} {prefix}")

    def tell_mgr(self, prefix: str, **args: Any) -> Any:
        return self._no_tell(f"mgr {prefix}")


@dataclass
class RecordingClient(RawAnswers):
    """Wraps a CephClient and keeps each answer's raw text (or error) by command."""

    inner: CephClient
    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    def raw(self, target: str, prefix: str, args: dict[str, Any]) -> bytes:
        args = {"format": "json", **args}
        key = command_key(target, prefix, args)
        try:
            if target.startswith("mds:"):
                out = self.inner.mds_tell_raw(target[4:], prefix, **args)
            else:
                out, _ = (self.inner.mon_raw if target == "mon" else self.inner.mgr_raw)(prefix, **args)
        except CephError as e:
            self.records[key] = {"errno": e.errno, "message": e.message}
            raise
        try:
            self.records[key] = {"out": out.decode("utf-8")}
        except UnicodeDecodeError:  # a binary answer (osd getmap, osd getcrushmap): kept byte for byte
            self.records[key] = {"out_b64": base64.b64encode(out).decode("ascii")}
        return out

    def save(self, path: Path, meta: dict[str, Any]) -> None:
        path.write_text(json.dumps({"meta": meta, "commands": self.records}, indent=1, sort_keys=True) + "\n")


@dataclass
class ReplayClient(ReplaySurface):
    """Answers exactly what was recorded, as raw bytes parsed by the client's own `loads`.

    Strict (tests): an unrecorded command is a KeyError, a test failure rather than a guess.
    Lenient (the scale harness runs the whole app on it): an unrecorded command is refused
    with EINVAL the way a mon refuses an unknown command, so the app shows a note.
    """

    records: dict[str, dict[str, Any]]
    strict: bool = True
    spec: ConnectionSpec = field(default_factory=lambda: ConnectionSpec(name="client.replay"))

    files: dict[str, Path] = field(default_factory=dict)  # command key -> file read at each ask

    def __post_init__(self) -> None:
        self._raw = {k: rec["out"].encode() for k, rec in self.records.items() if "out" in rec}
        self._raw.update((k, base64.b64decode(rec["out_b64"])) for k, rec in self.records.items() if "out_b64" in rec)

    @classmethod
    def from_dir(cls, directory: Path) -> ReplayClient:
        """A recording written as one file per answer (scripts/gen_scale_fixtures.py): read on
        each ask, so a big cluster's answers cost a read, as a fetch would, and no resident copy."""
        index = json.loads((directory / "index.json").read_text())
        return cls({}, strict=False, files={k: directory / name for k, name in index["files"].items()})

    @classmethod
    def load(cls, path: Path, strict: bool = True) -> ReplayClient:
        return cls(json.loads(path.read_text())["commands"], strict=strict)

    def raw(self, target: str, prefix: str, args: dict[str, Any]) -> bytes:
        key = command_key(target, prefix, {"format": "json", **args})
        if key in self._raw:
            return self._raw[key]
        if key in self.files:
            return self.files[key].read_bytes()
        rec = self.records.get(key)
        if rec is not None:
            raise error_for(rec["errno"], rec["message"], prefix)
        if self.strict:
            raise KeyError(f"not recorded: {key}")
        raise error_for(errno_mod.EINVAL, f"command not in this recording: {prefix}", prefix)

