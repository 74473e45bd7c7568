"""The import boundary: cephtui/ceph, the cluster side, is plain Python that runs and is tested without a
terminal. It never imports Textual or Rich, nor the UI (cephtui.ui) or the user's configuration
(cephtui.config): what the UI or the config decides reaches it as arguments."""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

CEPH = Path(__file__).resolve().parents[2] / "cephtui" / "ceph"


def imports() -> Iterator[tuple[str, int, str]]:
    """(file, line, module) for every import in cephtui/ceph, at any depth (inside functions too); a
    `from cephtui import config` counts as cephtui.config."""
    for path in sorted(CEPH.rglob("*.py")):
        where = str(path.relative_to(CEPH.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield where, node.lineno, alias.name
            elif isinstance(node, ast.ImportFrom) and node.module:
                yield where, node.lineno, node.module
                for alias in node.names:
                    yield where, node.lineno, f"{node.module}.{alias.name}"


def offenders(forbidden: tuple[str, ...]) -> list[str]:
    return sorted({f"{where}:{line}: {module}" for where, line, module in imports()
                   if any(module == f or module.startswith(f + ".") for f in forbidden)})


def test_cluster_side_never_imports_textual() -> None:
    assert offenders(("textual", "rich")) == []


def test_cluster_side_never_imports_the_ui_or_the_config() -> None:
    assert offenders(("cephtui.ui", "cephtui.config")) == []


def test_the_check_sees_every_form_of_import() -> None:
    """The walk finds imports in all their forms (a check that finds nothing proves nothing)."""
    found = {module for _, _, module in imports()}
    assert {"rados", "cephtui.ceph.snapshot.models"} <= found  # a plain import, a from-import
    assert any(module.startswith("cephtui.ceph.") and module.count(".") >= 4 for module in found)
