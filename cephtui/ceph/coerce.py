"""Values from Ceph JSON, which may be missing, strings, null, bare nan/inf, or of another type entirely
(other releases, other builds). Each helper returns a usable value of the expected type, never raises."""
from __future__ import annotations

from typing import Any


def as_int(v: Any) -> int:
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(inf)
        return 0


def as_float(v: Any) -> float:
    """A finite float, or 0.0."""
    try:
        x = float(v)
    except (TypeError, ValueError, OverflowError):  # OverflowError: float(10**400)
        return 0.0
    return x if x == x and x not in (float("inf"), float("-inf")) else 0.0


def as_dict(v: Any) -> dict[str, Any]:
    """`v` when it is an object, else {} (a field that another release made a list, a string or null)."""
    return v if isinstance(v, dict) else {}


def as_list(v: Any) -> list[Any]:
    """`v` when it is an array, else []."""
    return v if isinstance(v, list) else list(v) if isinstance(v, tuple) else []


def dicts(v: Any) -> list[dict[str, Any]]:
    """The objects of an array, skipping anything else in it (null entries, bare strings)."""
    return [x for x in as_list(v) if isinstance(x, dict)]


def as_str(v: Any, default: str = "") -> str:
    """A string field: strings as they are, numbers spelled out, anything else (null, lists, objects) `default`."""
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    return default


def as_strs(v: Any) -> tuple[str, ...]:
    """An array of names: the strings (and numbers) in it; anything else is dropped."""
    return tuple(as_str(x) for x in as_list(v) if isinstance(x, (str, int, float)) and not isinstance(x, bool))
