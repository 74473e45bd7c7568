"""One oldest Python, said once: requires-python, ruff's target and mypy's python_version agree.

The host (3.11) lints and type-checks for the oldest Python the project supports; raising one of the
three without the others would let 3.10+ syntax or APIs through unseen (or refuse code that is fine).
scripts/test_pythons.sh runs the unit suite on each chroot's real Python.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, before it joined the standard library
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def minimum(requires_python: str) -> tuple[int, int]:
    """'>=3.9' -> (3, 9). Only a lower bound is understood: anything else is a decision to make here."""
    m = re.fullmatch(r"\s*>=\s*(\d+)\.(\d+)\s*", requires_python)
    assert m, f"requires-python {requires_python!r}: expected '>=X.Y'"
    return int(m.group(1)), int(m.group(2))


def ruff_target(target: str) -> tuple[int, int]:
    """'py39' -> (3, 9)."""
    m = re.fullmatch(r"py3(\d+)", target)
    assert m, f"ruff target-version {target!r}"
    return 3, int(m.group(1))


def dotted(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def markers(requirements: list[str]) -> list[tuple[str, str, tuple[int, int]]]:
    """(requirement, operator, version) of every python_version marker."""
    out = []
    for req in requirements:
        for op, v in re.findall(r"python_version\s*(<=|>=|<|>|==|!=)\s*['\"](\d+\.\d+)['\"]", req):
            out.append((req, op, dotted(v)))
    return out


def test_the_parsers() -> None:
    assert minimum(">=3.9") == (3, 9) and minimum(">= 3.12") == (3, 12)
    assert ruff_target("py39") == (3, 9) and ruff_target("py314") == (3, 14)
    assert dotted("3.9") == (3, 9) and dotted("3.14") == (3, 14)
    assert markers(["a; python_version < '3.10'", "b", 'c>=1; python_version >= "3.11"']) == [
        ("a; python_version < '3.10'", "<", (3, 10)), ('c>=1; python_version >= "3.11"', ">=", (3, 11))]
    with pytest.raises(AssertionError):
        minimum(">=3.9,<4")


def test_requires_python_ruff_and_mypy_name_the_same_oldest_python() -> None:
    data = pyproject()
    oldest = minimum(data["project"]["requires-python"])
    assert ruff_target(data["tool"]["ruff"]["target-version"]) == oldest, "[tool.ruff] target-version"
    assert dotted(data["tool"]["mypy"]["python_version"]) == oldest, "[tool.mypy] python_version"
    assert sys.version_info[:2] >= oldest


def test_every_python_version_marker_still_matters() -> None:
    """A marker at or below the oldest Python is always true or always false: raise the minimum, drop it."""
    data = pyproject()
    oldest = minimum(data["project"]["requires-python"])
    reqs = list(data["project"]["dependencies"])
    for extra in data["project"].get("optional-dependencies", {}).values():
        reqs += extra
    found = markers(reqs)
    assert found, "the msgspec/tomli/mypy markers are gone: check this test still means something"
    dead = [req for req, op, v in found if v <= oldest]
    assert dead == [], f"markers the oldest Python {oldest} makes constant: {dead}"


def _struct_classes(tree: ast.Module) -> list[ast.ClassDef]:
    structs: set[str] = set()
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
                ast.unparse(b) in ("msgspec.Struct", "Struct") or ast.unparse(b) in structs for b in node.bases):
            structs.add(node.name)
            out.append(node)
    return out


def test_msgspec_struct_fields_spell_unions_the_old_way() -> None:
    """msgspec evaluates a Struct's annotations when the class is made: on 3.9, `int | None` there is a
    TypeError at import. The host's Python evaluates it fine, so only this (or a 3.9 run) catches it."""
    if minimum(pyproject()["project"]["requires-python"]) >= (3, 10):
        pytest.skip("the oldest Python evaluates X | Y")
    seen, bad = 0, []
    for path in sorted((ROOT / "cephtui").rglob("*.py")):
        for cls in _struct_classes(ast.parse(path.read_text())):
            for stmt in cls.body:
                if isinstance(stmt, ast.AnnAssign):
                    seen += 1
                    if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr)
                           for n in ast.walk(stmt.annotation)):
                        bad.append(f"{path.relative_to(ROOT)}:{stmt.lineno} {cls.name}: {ast.unparse(stmt.annotation)}")
    assert seen > 50, "found too few Struct fields: the scan no longer sees the models"
    assert bad == [], "use Optional[X] / Union[X, Y] (with # noqa: UP045 / UP007): " + "; ".join(bad)
