"""The mgr's image tasks (`ceph rbd task list`, rbd_support): a flatten, a trash removal or a migration that
runs in the mgr, goes on when cephtui quits, and reports its progress there."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Task:
    id: str
    action: str  # flatten, remove, trash remove, migrate …
    spec: str  # pool[/namespace]/image
    message: str  # the mgr's own words: "Flattening image rbd/c"
    progress: float | None  # 0..1; None before it starts
    in_progress: bool
    retry: str = ""  # why the mgr will try again (a failure it retries)

    def describe(self) -> str:
        done = f" {self.progress * 100:.0f}%" if self.progress is not None else " (queued)"
        retry = f"; retrying: {self.retry}" if self.retry else ""
        return f"{self.message}{done}{retry}"


def parse_tasks(answer: Any) -> tuple[Task, ...]:
    out = []
    for t in answer if isinstance(answer, list) else ():
        refs = t.get("refs") or {}
        ns = f"{refs['pool_namespace']}/" if refs.get("pool_namespace") else ""
        progress = t.get("progress")
        out.append(Task(str(t.get("id", "")), str(refs.get("action", "")),
                        f"{refs.get('pool_name', '?')}/{ns}{refs.get('image_name', refs.get('image_id', '?'))}",
                        str(t.get("message", "")), float(progress) if progress is not None else None,
                        bool(t.get("in_progress")), str(t.get("retry_message", "") or "")))
    return tuple(out)


def list_tasks(client: Any) -> tuple[Task, ...]:
    """Raises CephError (CephMgrDown while no mgr is active; EINVAL where rbd_support is not running)."""
    return parse_tasks(client.mgr("rbd task list"))
