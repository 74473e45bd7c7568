"""Ceph's JSON answers, parsed: fast, and surviving what some releases emit (bare nan/inf, invalid UTF-8)."""
from __future__ import annotations

import json
import re
from typing import Any

import msgspec

_BARE_NUMBERS = re.compile(r'(?<=[:\[,\s])(-?nan|-?inf)(?=\s*[,\]\}])')


def loads(raw: bytes | str) -> Any:
    """Parse a Ceph answer: msgspec (4-5x the json module on big answers), surviving the bare
    nan/inf and invalid UTF-8 some Ceph releases emit."""
    if not raw.strip():
        return None
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):  # msgspec raises the latter for bad UTF-8 in a string
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        return json.loads(_BARE_NUMBERS.sub("null", text))
