"""The import graph of cephtui/: no circle anywhere, counting every import (at module level, under
TYPE_CHECKING, inside functions), since a circle muted by a late import is still a circle in the design; and
nothing under ui/ reaches the app class (ui/services.py is what panes, screens and wizards see of it); and no
two folders of ceph/ or ui/ import each other (a folder is a layer)."""
from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cephtui"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def edges(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The cephtui modules `name` imports, at any depth. `from a.b import c` is a.b.c where that is a module,
    else a.b. A module's own packages are left out: importing a sibling runs the package's __init__, which
    may import the module back (ceph/ops re-exports its parts), and Python handles that order."""
    known = set(known)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full in known:
                    found.add(full)
                elif node.module in known:
                    found.add(node.module)
    own_packages = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    return found - own_packages - {name}


@functools.lru_cache(maxsize=1)
def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: edges(name, path, mods) for name, path in mods.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_in_cephtui() -> None:
    assert circles(graph()) == []


def test_the_circle_finder_finds_circles() -> None:
    """A check that cannot fail proves nothing: a made-up graph with a circle through a late import."""
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(g) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_counts_late_and_type_checking_imports() -> None:
    g = graph()
    # ui/app.py imports the help screen inside a function (loaded on the first `?`)
    assert "cephtui.ui.screens.help" in g["cephtui.ui.app"]
    assert "cephtui.ui.services" in g["cephtui.ui.pane"]
    assert "cephtui.ceph.snapshot.models" in g["cephtui.ceph.snapshot.cluster_snapshot"]


def test_nothing_under_ui_imports_the_app() -> None:
    """Panes, screens, wizards and the app's parts see the app as ui/services.py's AppServices (or as a plain
    Textual App); only the launcher and the CLI make a CephTUI."""
    g = graph()
    importers = sorted(m for m, deps in g.items() if "cephtui.ui.app" in deps and m.startswith("cephtui.ui."))
    assert importers == []
    assert "cephtui.ui.app" in g["cephtui.cli.tui"]  # the check sees the one that does


def test_tab_facts_load_no_pane() -> None:
    """`:` and `?` read the tabs (ui/tabs.py) without loading every pane: only ui/registry.py maps them."""
    g = graph()

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            m = todo.pop()
            for d in g.get(m, ()):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return seen

    for light in ("cephtui.ui.tabs", "cephtui.ui.jump"):
        assert not {m for m in reach(light) if m.startswith("cephtui.ui.panes.")}, light
    assert {m for m in g["cephtui.ui.registry"] if m.startswith("cephtui.ui.panes.")}


def test_every_screen_lives_under_ui_screens() -> None:
    """Dialogs, wizards and every other Screen are in cephtui/ui/screens/ (a new one goes there too); a pane
    module holds its pane."""
    import textual.screen

    from cephtui.ui.screens import dialog

    classes: list[tuple[str, set[str], str]] = []  # (class, its bases' names, module)
    for name, path in modules().items():
        if name.startswith("cephtui.ui."):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    bases = {b.value.id if isinstance(b, ast.Subscript) and isinstance(b.value, ast.Name)
                             else b.id if isinstance(b, ast.Name) else "" for b in node.bases}
                    classes.append((node.name, bases, name))
    found: dict[str, str] = {}  # class -> module, for every class whose bases lead to Textual's Screen
    screens = {"Screen", "ModalScreen"}
    while True:  # to a fixed point: a base may be defined in a module read later
        more = {c: m for c, bases, m in classes if c not in found and bases & (screens | set(found))}
        if not more:
            break
        found.update(more)
    assert issubclass(dialog.Dialog, textual.screen.ModalScreen)  # the walk starts from what Dialog is
    assert {"Dialog", "ConfirmScreen", "FormScreen", "HelpScreen", "PoolDetailScreen"} <= set(found)
    assert sorted(f"{cls} in {m}" for cls, m in found.items() if not m.startswith("cephtui.ui.screens.")) == []


def folder_graph(package: str) -> dict[str, set[str]]:
    """The graph of `package`'s rooms: each folder (or module) right under it, an arrow where any module of one
    imports any module of the other."""
    def room(name: str) -> str:
        return ".".join(name.split(".")[:package.count(".") + 2])

    rooms: dict[str, set[str]] = {}
    for name, deps in graph().items():
        if name.startswith(package + "."):
            mine = rooms.setdefault(room(name), set())
            mine.update(room(d) for d in deps if d.startswith(package + ".") and room(d) != room(name))
    return rooms


@pytest.mark.parametrize("package", ["cephtui", "cephtui.ceph", "cephtui.ui"])
def test_no_two_folders_import_each_other(package: str) -> None:
    """Layers, not only modules: a folder stands above what it imports (the data-movement preview left crush/
    for movement.py, which stands above crush/, ops/ and snapshot/; sizes are read by validate.py, under bench/
    and images/ both; the librados option table is ceph/'s, read by cli/ and config/ alike)."""
    assert circles(folder_graph(package)) == []
