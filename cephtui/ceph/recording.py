"""Record the commands a snapshot needs, and replay them: real cluster output as test fixtures.

`scripts/capture_fixtures.py` records from a sandbox cluster; unit tests replay the
recordings through the same SnapshotBuilder the app uses, without a cluster.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .client import CephClient, CephError, error_for, loads


def command_key(target: str, prefix: str, args: dict[str, Any]) -> str:
    return json.dumps({"target": target, "prefix": prefix, **args}, sort_keys=True)


@dataclass
class RecordingClient:
    """Wraps a CephClient and keeps each answer's raw text (or error) by command."""

    inner: CephClient
    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    def _record(self, target: str, prefix: str, args: dict[str, Any]) -> Any:
        args = {"format": "json", **args}
        key = command_key(target, prefix, args)
        raw = self.inner.mon_raw if target == "mon" else self.inner.mgr_raw
        try:
            out, _ = raw(prefix, **args)
        except CephError as e:
            self.records[key] = {"errno": e.errno, "message": e.message}
            raise
        self.records[key] = {"out": out.decode("utf-8", "replace")}
        return loads(out)

    def mon(self, prefix: str, **args: Any) -> Any:
        return self._record("mon", prefix, args)

    def mgr(self, prefix: str, **args: Any) -> Any:
        return self._record("mgr", prefix, args)

    def save(self, path: Path, meta: dict[str, Any]) -> None:
        path.write_text(json.dumps({"meta": meta, "commands": self.records}, indent=1, sort_keys=True) + "\n")


@dataclass
class ReplayClient:
    """Answers exactly what was recorded; an unrecorded command is a test failure, not a guess."""

    records: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, path: Path) -> "ReplayClient":
        return cls(json.loads(path.read_text())["commands"])

    def raw(self, target: str, prefix: str, args: dict[str, Any]) -> str:
        key = command_key(target, prefix, {"format": "json", **args})
        if key not in self.records:
            raise KeyError(f"not recorded: {key}")
        rec = self.records[key]
        if "errno" in rec:
            raise error_for(rec["errno"], rec["message"], prefix)
        return rec["out"]

    def mon(self, prefix: str, **args: Any) -> Any:
        return loads(self.raw("mon", prefix, args))

    def mgr(self, prefix: str, **args: Any) -> Any:
        return loads(self.raw("mgr", prefix, args))
