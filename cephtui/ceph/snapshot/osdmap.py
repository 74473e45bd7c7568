"""`osd dump`, kept lean: the fields cephtui reads, not the whole map.

At 5,000 OSDs `osd dump` is 3.7 MB: per OSD four address vectors, xinfo, upmaps.
Parsed generically that is ~65,000 dicts and lists held for as long as the epoch
lasts, and every full garbage collection walks them all (here ~90 ms with the GIL
held, a frozen UI). msgspec decodes only the fields below and skips the rest.
The result keeps the shape of `osd dump` (a dict, the same keys), so the code that
reads it does not change; an answer in an unexpected shape is parsed generically
and trimmed the same way.
"""
from __future__ import annotations

from typing import Any

import msgspec

from cephtui.ceph.coerce import as_dict, dicts
from cephtui.ceph.snapshot.parse import loads_answer


class _OSD(msgspec.Struct, gc=False):
    osd: int
    up: int = 0
    in_: int = msgspec.field(default=0, name="in")
    weight: float = 0.0
    primary_affinity: float = 1.0
    state: tuple[str, ...] = ()


class _Dump(msgspec.Struct, gc=False):
    epoch: int = 0
    fsid: str = ""
    flags: str = ""
    flags_set: list[str] = []
    crush_node_flags: dict[str, list[str]] = {}
    device_class_flags: dict[str, list[str]] = {}
    full_ratio: float = 0.0
    backfillfull_ratio: float = 0.0
    nearfull_ratio: float = 0.0
    require_osd_release: str = ""
    require_min_compat_client: str = ""
    min_compat_client: str = ""
    max_osd: int = 0
    crush_version: int = 0
    pools: list[dict[str, Any]] = []
    erasure_code_profiles: dict[str, dict[str, Any]] = {}
    osds: list[_OSD] = []


_DECODER = msgspec.json.Decoder(_Dump)
KEPT = tuple(_Dump.__struct_fields__)
OSD_KEPT = ("osd", "up", "in", "weight", "primary_affinity", "state")


def lean_dump(raw: bytes) -> dict[str, Any]:
    """`osd dump` bytes -> the dict cephtui reads: the fields above, each OSD as a small dict."""
    try:
        d = _DECODER.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):  # msgspec: invalid UTF-8 in a string
        return trim(loads_answer(raw, "osd dump"))  # ParseError when the bytes are not JSON at all
    out = {k: getattr(d, k) for k in KEPT}
    out["osds"] = [{"osd": o.osd, "up": o.up, "in": o.in_, "weight": o.weight,
                    "primary_affinity": o.primary_affinity, "state": o.state} for o in d.osds]
    return out


_DEFAULTS = msgspec.structs.asdict(_Dump())


def _fits(value: Any, default: Any) -> bool:
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, type(default))


def trim(dump: Any) -> dict[str, Any]:
    """The same fields from an `osd dump` parsed generically (other releases' shapes). A field of
    another type than the fast path decodes is dropped, so readers see it as missing, never as a
    list where they expect an object; a falsy one (osdmaptool's `"flags_set": 0`) is kept verbatim,
    as every reader already treats it as missing (`d.get(k) or default`)."""
    dump = as_dict(dump)
    out = {k: dump[k] for k in KEPT
           if k in dump and k != "osds" and (not dump[k] or _fits(dump[k], _DEFAULTS[k]))}
    out["osds"] = [{k: o[k] for k in OSD_KEPT if k in o} for o in dicts(dump.get("osds"))]
    return out
