"""The cluster's own command table (`get_command_descriptions`): what each command needs.

Every mon and mgr command is declared with a module and a permission ("r",
"rw", "rx", …); the mon checks a client's mon caps against it (cephtui sends
mgr commands through the mon too). So this one table answers, from the
cluster itself rather than from a list kept here:
  - is a command mutating ("w" in its permission)? -- the read-only guard;
  - which capability was missing when one was refused? -- what a pane says.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FLAG_MGR = 8  # MonCommand::FLAG_MGR: served by the active mgr


# The mgr modules whose commands cephtui uses or names, by the words their commands start with (each module's
# COMMANDS in src/pybind/mgr/<module>/module.py). A module that cannot run takes its commands out of the
# cluster's command table, so a refusal must name the module, not the release.
MODULE_OF = {"crash": "crash", "balancer": "balancer", "osd pool autoscale-status": "pg_autoscaler",
             "device": "devicehealth", "telemetry": "telemetry", "orch": "orchestrator", "progress": "progress",
             "iostat": "iostat", "fs volume": "volumes", "fs subvolume": "volumes", "fs subvolumegroup": "volumes",
             "nfs": "nfs", "fs status": "status", "osd status": "status", "rbd": "rbd_support"}


def module_of(prefix: str) -> str:
    """The mgr module that serves `prefix`, if it is one cephtui knows of ("" otherwise)."""
    words = prefix.split()
    for n in range(len(words), 0, -1):
        if (module := MODULE_OF.get(" ".join(words[:n]))) is not None:
            return module
    return ""


def module_not_running(prefix: str) -> str:
    """"the mgr's crash module serves it, and it is not running" for a module's command missing from the
    cluster's table ("" when cephtui knows no module for it)."""
    module = module_of(prefix)
    return f"the mgr's {module} module serves it, and it is not running" if module else ""


@dataclass(frozen=True)
class CommandInfo:
    prefix: str
    module: str
    perm: str
    mgr: bool

    @property
    def mutating(self) -> bool:
        return "w" in self.perm

    @property
    def cap(self) -> str:
        """The smallest mon cap that allows it, as `ceph auth caps` takes it."""
        return f"mon 'allow {self.perm or 'r'}'"


def _prefix(sig: Any) -> str:
    words: list[str] = []
    for item in sig if isinstance(sig, list) else ():
        if isinstance(item, str):
            words.append(item)
        elif isinstance(item, dict) and item.get("type") == "CephPrefix" and isinstance(item.get("prefix"), str):
            words.append(item["prefix"])
        else:
            break
    return " ".join(words)


class CommandTable:
    def __init__(self, descriptions: Mapping[str, Any] | None) -> None:
        self._by_prefix: dict[str, CommandInfo] = {}
        for entry in (descriptions or {}).values():
            if not isinstance(entry, dict):
                continue
            prefix = _prefix(entry.get("sig"))
            if not prefix:
                continue
            flags = entry.get("flags")
            info = CommandInfo(prefix, str(entry.get("module") or ""), str(entry.get("perm") or ""),
                               isinstance(flags, int) and bool(flags & FLAG_MGR))
            old = self._by_prefix.get(prefix)
            # The same prefix can be declared twice (mon and mgr): the stricter declaration counts.
            if old is None or len(info.perm) > len(old.perm):
                self._by_prefix[prefix] = info

    def __len__(self) -> int:
        return len(self._by_prefix)

    def get(self, prefix: str) -> CommandInfo | None:
        return self._by_prefix.get(" ".join(prefix.split()))

    def is_mutating(self, prefix: str) -> bool:
        """Unknown commands count as mutating: the read-only guard fails closed."""
        info = self.get(prefix)
        return info is None or info.mutating

    def required_cap(self, prefix: str) -> str:
        info = self.get(prefix)
        return info.cap if info is not None else "more mon caps"
