"""The tab registry and the pane contract: one list the app, `:`, `?` and the palette read, and panes
that reach the app only through its services (ui/services.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.binding import Binding

from cephtui.ui.app import TABS, CephTUI
from cephtui.ui.jump import TAB_NAMES, resolve
from cephtui.ui.pane import NOTHING_MORE, Pane
from cephtui.ui.registry import PANES
from cephtui.ui.tabs import NUMBER_KEYS, number_key, tab
from cephtui.ui.tabs import TABS as REGISTRY

UI = Path(__file__).resolve().parents[2] / "cephtui" / "ui"


def _actions(pane: type[Pane]) -> set[str]:
    """The actions of the pane's own keys (its class's BINDINGS and its bases')."""
    return {b.action for cls in pane.__mro__ for b in vars(cls).get("BINDINGS", ()) if isinstance(b, Binding)}


def test_one_registry_every_pane_a_pane() -> None:
    assert len({t.key for t in REGISTRY}) == len({t.title for t in REGISTRY}) == len(REGISTRY)
    assert list(PANES) == [t.key for t in REGISTRY]  # a pane for every tab, in the tabs' order
    assert len(set(PANES.values())) == len(REGISTRY)  # app.pane(cls) finds one
    assert all(issubclass(p, Pane) and p is not Pane for p in PANES.values())
    assert all("show" in vars(p) for p in PANES.values())  # the one member without a default
    assert TABS == tuple((t.key, t.title) for t in REGISTRY)
    assert tab("osds").pane_id == "osds-pane"


def test_number_keys_jump_names_and_help_follow_the_registry() -> None:
    numbered = REGISTRY[:NUMBER_KEYS]
    digits = {b.key: b.action for b in CephTUI.BINDINGS if isinstance(b, Binding) and b.key.isdigit()}
    assert digits == {number_key(i): f"show_tab('{t.key}')" for i, t in enumerate(numbered, 1)}
    assert list(TAB_NAMES) == [t.key for t in REGISTRY]
    for i, t in enumerate(REGISTRY, 1):
        if i <= NUMBER_KEYS:
            assert resolve(number_key(i)).tab == t.key
        assert all(resolve(name).tab == t.key for name in (t.key, *t.aliases))
    from cephtui.ui.screens.help import EVERYWHERE

    keys = "1…9, 0" if len(REGISTRY) >= 10 else f"1…{len(REGISTRY)}"
    text = dict(EVERYWHERE)[keys]
    assert ", ".join(t.title for t in numbered) in text
    assert all(f"{t.title} by :{t.key}" in text for t in REGISTRY[NUMBER_KEYS:])


def test_help_and_read_only_name_real_actions() -> None:
    """ACTION_HELP and MUTATING keyed by an action the pane has no key for would be stale text."""
    for t in REGISTRY:
        pane = PANES[t.key]
        actions = _actions(pane)
        assert set(pane.ACTION_HELP) <= actions, (t.key, set(pane.ACTION_HELP) - actions)
        assert set(pane.MUTATING) <= actions, (t.key, set(pane.MUTATING) - actions)
        assert pane.HELP, f"{t.key}: no HELP prose for `?`"


def test_fetch_defaults_to_nothing_more() -> None:
    assert Pane().fetch() == NOTHING_MORE  # a tab that only shows costs the poll nothing extra


def test_panes_reach_the_app_only_through_its_services() -> None:
    reach_in = re.compile(r"getattr\((self\.)?app\b|app: Any\b|\.app\.\w+.*type: ignore\[[^]]*attr-defined")
    found = [f"{p.relative_to(UI)}:{n}: {line.strip()}" for p in sorted(UI.rglob("*.py"))
             for n, line in enumerate(p.read_text().splitlines(), 1) if reach_in.search(line)]
    assert found == []


def test_every_tab_label_fits_80_columns_when_narrow() -> None:
    """Under 100 columns a tab takes one column of padding: all labels must fit a default 80-column ssh window
    (tests/ui/test_layout.py checks the real screen)."""
    assert sum(len(t.label(i, narrow=True)) + 1 for i, t in enumerate(REGISTRY, 1)) <= 80
    labels = [t.label(i) for i, t in enumerate(REGISTRY, 1)]
    assert labels[9] == "Doctor 0"
    assert labels[10:] == ["Images", "File systems"]  # past the number row: no key (`:images`, `:fs`)


async def test_services_are_the_apps_and_nothing_else() -> None:
    """A widget in a CephTUI finds the app's services; in any other app it is told so (a TypeError), never
    handed an object that lacks them."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    from cephtui.ui.services import services_of

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Static(id="s")

    async with Bare().run_test() as pilot:
        with pytest.raises(TypeError, match="offers no cephtui services"):
            services_of(pilot.app.query_one("#s"))


def test_the_stale_and_history_parts_of_the_contract() -> None:
    """Only the panes that would show old data as current draw differently while the monitors are away, and the
    history is read for the tabs that show it."""
    stale = {key for key, p in PANES.items() if p.show_stale is not Pane.show_stale}
    assert stale == {"health"}
    assert {key for key, p in PANES.items() if p.SHOWS_HISTORY} == {"health", "osds"}
    shows_history = {key for key, p in PANES.items() if p.show_history is not Pane.show_history}
    assert shows_history == {"health", "osds"}
