"""Numbers from Ceph JSON, which may be missing, strings, null, or bare nan/inf."""
from __future__ import annotations

from typing import Any


def as_int(v: Any) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return 0


def as_float(v: Any) -> float:
    """A finite float, or 0.0."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return 0.0
    return x if x == x and x not in (float("inf"), float("-inf")) else 0.0
