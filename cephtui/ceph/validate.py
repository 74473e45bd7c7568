"""Value checks shared by the operation factories, the CRUSH model, the bench and the image forms: names,
numbers, sizes, OSD ids; each raises a clear ValueError before anything is sent. A leaf: it imports nothing of
cephtui, so every layer above can use it."""
from __future__ import annotations

import math
import re
import shlex
from collections.abc import Iterable, Sequence
from typing import Any

# CrushWrapper::is_valid_crush_name / the mon's goodchars for names and locations.
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
CLASS_RE = NAME_RE

# Ceph sets no limit, but nothing needs more; without one a stray paste of a whole file becomes a name.
MAX_NAME = 255


def check_length(value: str, what: str) -> None:
    if len(value) > MAX_NAME:
        raise ValueError(f"{what} is {len(value)} characters long (at most {MAX_NAME})")


def check_name(value: str, what: str = "name") -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} is empty")
    check_length(value, what)
    if not NAME_RE.match(value):
        raise ValueError(f"{what} '{value}' may only contain letters, digits, '-', '_' and '.'")
    return value


def parse_fraction(text: str | float, what: str = "reweight") -> float:
    """A value in 0..1 (reweight, primary affinity)."""
    value = _number(text, what)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{what} must be between 0 and 1 (got {value:g})")
    return value


def parse_weight(text: str | float, what: str = "CRUSH weight") -> float:
    """A CRUSH weight: non-negative, in TiB by convention."""
    value = _number(text, what)
    if value < 0:
        raise ValueError(f"{what} cannot be negative (got {value:g})")
    if value > 65535:  # 16.16 fixed point in the map
        raise ValueError(f"{what} {value:g} is too large (CRUSH weights are 16.16 fixed point, max 65535)")
    return value


# A number as typed in a form: digits, at most one point with digits on both sides or after it (.5), an
# exponent with its digits. Python's float() also takes "0.", "1_000", other scripts' digits and "infinity".
COMPLETE_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# What a number looks like while it is still being typed: "0.", ".", "-", "1e", "2.5e-".
HALF_TYPED_NUMBER = re.compile(r"[+-]?(?:[0-9]*\.?[0-9]*|(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?)")


class IncompleteNumber(ValueError):
    """A number still being typed ("0.", "1e", "-")."""


def number(text: str, what: str) -> float:
    """A number typed in a form; a half-typed one ("0.", "1e", "-") is refused, never read as what it
    would become (Python reads "0." as 0: a reweight to 0 drains the OSD), nor as 0."""
    typed = str(text).strip()
    if typed.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        raise ValueError(f"{what} must be a finite number")
    if not COMPLETE_NUMBER.fullmatch(typed):
        if typed and HALF_TYPED_NUMBER.fullmatch(typed):
            raise IncompleteNumber(f"{what} '{typed}' is an incomplete number: finish typing it (e.g. 0.5, 1, 2e-3)")
        raise ValueError(f"{what} must be a number (got '{text}')")
    return float(typed)


def _number(text: str | float, what: str) -> float:
    if isinstance(text, (int, float)):
        try:
            value = float(text)
        except OverflowError:  # an int beyond float range (10**400)
            raise ValueError(f"{what} is out of range (a {len(str(abs(text)))}-digit number)") from None
    else:
        value = number(text, what)
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{what} must be a finite number")
    return value + 0.0  # -0 becomes 0: "-0" must not reach the command line or the mon


def _osd_id(i: Any) -> int:
    """An OSD id as a form or a selection gives it: an int, or the text of one ("3", "osd.3")."""
    if isinstance(i, int) and not isinstance(i, bool):
        return i
    s = str(i).strip().removeprefix("osd.")
    if not (s.isascii() and s.isdigit() and len(s) < 10):
        raise ValueError(f"'{i}' is not an OSD id (a whole number like 3 or osd.3)")
    return int(s)


def osd_ids(ids: Iterable[Any]) -> tuple[int, ...]:
    out = tuple(sorted(set(_osd_id(i) for i in ids)))
    if not out:
        raise ValueError("no OSD selected")
    if any(i < 0 for i in out):
        raise ValueError("OSD ids are not negative")
    return out


def fmt_value(value: float) -> str:
    return f"{value:g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.6f}"


def osd_list(ids: Sequence[int]) -> str:
    return ", ".join(f"osd.{i}" for i in ids)


def loc_args(location: Sequence[tuple[str, str]]) -> list[str]:
    return [f"{check_name(t, 'bucket type')}={check_name(n, 'bucket name')}" for t, n in location]


def loc_edit(location: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    out: list[str] = []
    for t, n in location:
        out += ["--loc", t, n]
    return tuple(out)


def cli_line(*words: str) -> str:
    return "ceph " + " ".join(shlex.quote(w) for w in words)


def parse_size(text: str | int) -> int:
    """Bytes from '4096', '4K', '4KiB', '4M', '1G' (powers of 1024, like rados bench's -b)."""
    if isinstance(text, int):
        return text
    s = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = 1
    for suffix, m in (("K", 1024), ("M", 1024**2), ("G", 1024**3)):
        if s.endswith(suffix):
            s, mult = s[:-1].strip(), m
            break
    if not COMPLETE_NUMBER.fullmatch(s):  # float() reads a half-typed "4." as 4: 4 bytes nobody meant
        if s and HALF_TYPED_NUMBER.fullmatch(s):
            raise ValueError(f"{text.strip()!r} is an incomplete size: finish typing it (e.g. 4K, 4M, 4096)")
        raise ValueError(f"not a size: {text!r} (use bytes or 4K, 4M, 1G)")
    value = float(s)
    total = value * mult  # may overflow to inf ("1e308G"): checked before int(), which would raise
    if not math.isfinite(total) or value <= 0 or total != int(total):
        raise ValueError(f"not a size: {text!r} (a positive whole number of bytes)")
    return int(total)
