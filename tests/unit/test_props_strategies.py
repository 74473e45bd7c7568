"""Shared pieces of the property tests (test_props_*.py): captured answers, and strategies that
damage them the way other Ceph releases (or broken builds) do.

Every JSON document comes from a captured fixture under tests/fixtures/; hypothesis then deletes
keys, adds unknown ones, nulls values, swaps their types, truncates lists, or replaces the whole
answer by arbitrary JSON. The few tests at the bottom check that the mutator really mutates.
"""
from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cephtui.ceph.answers import loads
from cephtui.ceph.recording import command_key
from tests.releases import release_dirs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# Pacific's captures by bare name; every other release's as "<release>/<scenario>", so each
# property runs on each release's own shapes too (tests/fixtures/<release>/, tests/releases.py).
SCENARIOS = ("healthy", "nearfull", "osd_down") + tuple(
    f"{d.name}/{s}" for d in release_dirs() if d.name != "pacific"
    for s in ("healthy", "nearfull", "osd_down") if (d / f"{s}.json").is_file())

# Deterministic (no example database, a fixed seed), no deadline (a 2-core CI box is slow).
FAST = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
QUICK = settings(FAST, max_examples=30)

# Exceptions that must never reach the UI from a parser or calculator: a bug, not an answer.
CRASHES: tuple[type[BaseException], ...] = (TypeError, KeyError, AttributeError, IndexError, ZeroDivisionError,
                                            OverflowError, RecursionError, UnicodeError, AssertionError)


@cache
def _recording(scenario: str) -> dict[str, Any]:
    release, _, name = scenario.rpartition("/")
    return json.loads((FIXTURES / (release or "pacific") / f"{name}.json").read_text())["commands"]


def raw_answer(scenario: str, target: str, prefix: str, **args: Any) -> bytes:
    """The bytes the cluster sent for one command in one captured scenario."""
    rec = _recording(scenario)[command_key(target, prefix, {"format": "json", **args})]
    return rec["out"].encode()


def answer(scenario: str, target: str, prefix: str, **args: Any) -> Any:
    """That answer parsed (a fresh copy each call: tests mutate it)."""
    return loads(raw_answer(scenario, target, prefix, **args))


def fixture_json(*parts: str) -> Any:
    return json.loads(FIXTURES.joinpath(*parts).read_text())


# ------------------------------------------------------------------ values

json_leaf = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
# Arbitrary JSON, as any release (or a broken proxy) might answer.
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
# Values that are legal in Python but not in strict JSON: what msgspec/json make of bare nan/inf or 1e400.
odd_number = st.sampled_from([float("nan"), float("inf"), float("-inf"), 10**30, -(10**30), 2**63, -1, -0.0,
                              1e308, 5e-324])
odd_value = st.one_of(
    st.none(), st.booleans(), odd_number, st.integers(-5, 5), st.floats(), st.text(max_size=6),
    st.sampled_from(["", "nan", "inf", "-1", "1e400", "9" * 40, "0x10", "\x00", "é", "osd.1"]),
    st.builds(list), st.builds(dict), st.lists(json_leaf, max_size=3), st.dictionaries(st.text(max_size=4), json_leaf,
                                                                               max_size=2),
)


def _swapped(v: Any) -> list[Any]:
    """The same value in the other JSON types (str<->int<->float<->list<->dict<->bool)."""
    out: list[Any] = [str(v), [v], {"value": v}, None]
    if isinstance(v, bool):
        out += [int(v), "true" if v else "false"]
    elif isinstance(v, (int, float)):
        out += [bool(v), float(v) if isinstance(v, int) else (int(v) if math.isfinite(v) else 0), -v]
    elif isinstance(v, str):
        out += [len(v), float(len(v)), bool(v)]
    elif isinstance(v, list):
        out += [len(v), {str(i): x for i, x in enumerate(v)}, v[:1]]
    elif isinstance(v, dict):
        out += [list(v.values()), list(v), len(v)]
    return out


# ------------------------------------------------------------------ mutating a document

Path_ = tuple[Any, ...]


def paths(doc: Any, limit: int = 4000) -> list[Path_]:
    """Every position in a JSON document (the root is ()), breadth first."""
    out: list[Path_] = [()]
    queue: list[tuple[Path_, Any]] = [((), doc)]
    while queue and len(out) < limit:
        nxt: list[tuple[Path_, Any]] = []
        for p, v in queue:
            kids = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
            for k, c in kids:
                out.append((*p, k))
                nxt.append(((*p, k), c))
        queue = nxt
    return out


def _get(doc: Any, path: Path_) -> tuple[bool, Any]:
    for k in path:
        if isinstance(doc, dict) and k in doc or isinstance(doc, list) and isinstance(k, int) and k < len(doc):
            doc = doc[k]
        else:
            return False, None
    return True, doc


@st.composite
def mutated(draw: st.DrawFn, doc: Any, max_mutations: int = 6) -> Any:
    """`doc` (a captured answer) with a few of the changes other releases make, anywhere in it."""
    doc = copy.deepcopy(doc)
    where = paths(doc)
    for _ in range(draw(st.integers(1, max_mutations))):
        path = draw(st.sampled_from(where))
        ok, here = _get(doc, path)
        if not ok:
            continue  # an earlier mutation removed it
        op = draw(st.sampled_from(("delete", "null", "swap", "odd", "extra", "truncate", "arbitrary")))
        if op == "extra" and isinstance(here, dict):
            here[draw(st.text(max_size=10))] = draw(json_value)
            continue
        if op == "truncate" and isinstance(here, list):
            del here[draw(st.integers(0, len(here))):]
            continue
        if not path:  # the root itself: replace the whole answer
            doc = draw(json_value) if op in ("arbitrary", "odd") else None if op == "null" else doc
            continue
        ok, parent = _get(doc, path[:-1])
        key = path[-1]
        if op == "delete":
            if isinstance(parent, dict):
                parent.pop(key, None)
            elif isinstance(parent, list) and key < len(parent):
                del parent[key]
            continue
        value = (None if op == "null" else draw(st.sampled_from(_swapped(here))) if op == "swap"
                 else draw(odd_value) if op == "odd" else draw(json_value))
        parent[key] = value
    return doc


def damaged(doc: Any) -> st.SearchStrategy[Any]:
    """The document mutated, or (one time in five or so) replaced by arbitrary JSON."""
    return st.one_of(mutated(doc), mutated(doc), mutated(doc), mutated(doc), json_value)


def as_bytes(doc: Any) -> bytes:
    """Compact JSON like Ceph's; nan/inf written bare (invalid JSON, as some releases send)."""
    return json.dumps(doc, separators=(",", ":")).encode()


@st.composite
def damaged_bytes(draw: st.DrawFn, raw: bytes) -> bytes:
    """An answer's bytes: mutated and re-encoded, truncated, with a byte flipped, or arbitrary."""
    kind = draw(st.sampled_from(("json", "json", "json", "truncate", "flip", "junk")))
    if kind == "json":
        return as_bytes(draw(mutated(loads(raw))))
    if kind == "truncate":
        return raw[:draw(st.integers(0, len(raw)))]
    if kind == "flip":
        i = draw(st.integers(0, max(0, len(raw) - 1)))
        return raw[:i] + bytes([draw(st.integers(0, 255))]) + raw[i + 1:]
    return draw(st.binary(max_size=200))


def must_not_crash(fn: Callable[[], Any], allowed: tuple[type[BaseException], ...] = ()) -> Any:
    """Call fn; an allowed (declared) error must say what was wrong; anything else fails the test."""
    try:
        return fn()
    except allowed as e:
        assert str(e).strip(), f"{type(e).__name__} without a message"
        return e


# ------------------------------------------------------------------ the mutator itself

def test_paths_cover_every_level() -> None:
    doc = answer("osd_down", "mon", "osd tree")
    ps = paths(doc)
    assert ("nodes", 0, "id") in ps and ("nodes",) in ps and () in ps


@given(mutated(answer("healthy", "mon", "osd stat")))
@settings(FAST, max_examples=40)
def test_mutated_documents_are_still_json_values(doc: Any) -> None:
    json.dumps(doc)  # nan/inf allowed (bare), but nothing that is not a JSON type


def test_mutations_change_the_document() -> None:
    original = answer("healthy", "mon", "osd stat")
    changed: list[bool] = []

    @given(mutated(original))
    @settings(FAST, max_examples=30)
    def probe(doc: Any) -> None:
        changed.append(doc != original)

    probe()
    assert sum(changed) > len(changed) // 2  # most examples differ from the capture
