"""Where resumable workflows keep their state: one JSON file each, rewritten after every step."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..private import replace_text


def state_dir() -> Path:
    env = os.environ.get("CEPHTUI_STATE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "cephtui"


class WorkflowStore:
    """`<state dir>/workflows/<kind>-<id>.json`; written atomically (a crash never leaves half a file)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or state_dir()) / "workflows"

    def path(self, kind: str, wf_id: str) -> Path:
        return self.root / f"{kind}-{wf_id}.json"

    def save(self, kind: str, wf_id: str, data: dict[str, Any]) -> None:
        replace_text(self.path(kind, wf_id), json.dumps(data, indent=1, sort_keys=True))

    def load_all(self, kind: str) -> list[dict[str, Any]]:
        out = []
        for p in sorted(self.root.glob(f"{kind}-*.json")) if self.root.is_dir() else ():
            try:
                out.append(json.loads(p.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue  # a foreign or damaged file is not ours to act on
        return out

    def delete(self, kind: str, wf_id: str) -> None:
        self.path(kind, wf_id).unlink(missing_ok=True)
