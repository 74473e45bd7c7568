"""Every use of Textual's private API, in one place (Textual is pinned: its internals move between releases).

tests/unit/test_compat.py checks that each private name used here still exists with the kind and signature
used, and that the two Textual bugs worked around here still exist; a Textual upgrade fails there, naming
the attribute, rather than somewhere in a pane. Nothing else in cephtui touches a `_name` of Textual's.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from rich.console import RenderableType
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Button as _Button
from textual.widgets import DataTable as _DataTable
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported by textual.widgets; CephFooter makes its own
from textual.widgets.data_table import RowKey

__all__ = ["Button", "DataTable", "FooterKey", "bindings_ready", "node_bindings", "parse_action", "screen_frame"]

CellType = TypeVar("CellType")


def node_bindings(node: DOMNode) -> Mapping[str, list[Binding]]:
    """A widget's or screen's own bindings by key (its BINDINGS merged along the class tree); Textual's
    public `active_bindings` is only the focus chain's, which a pane not focused is not part of."""
    return node._bindings.key_to_bindings


def bindings_ready(footer: Footer) -> bool:
    """Whether the screen has told the footer its bindings yet (before that a footer composes empty)."""
    return bool(footer._bindings_ready)


def parse_action(app: App[Any], action: str, default_namespace: DOMNode,
                 namespaces: Mapping[str, DOMNode] | None = None) -> tuple[DOMNode, str, tuple[object, ...]]:
    """(target node, action name, arguments) as App.run_action resolves them ("app.x", "screen.x", "x")."""
    return app._parse_action(action, default_namespace, namespaces)


def screen_frame(app: App[Any]) -> RenderableType | None:
    """The whole screen as the terminal shows it (dialogs over the screens below): what
    App.export_screenshot draws, as a renderable for a plain-text export (tests, screenshots)."""
    return app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)


class DataTable(_DataTable[CellType]):
    """Textual's DataTable with its column widths never drawn stale.

    Textual bug (8.2.8): the table caches rendered cells and lines under `_update_count`, and its idle
    pass re-measures the column widths (`_update_dimensions`) without bumping that count. A frame
    painted between `add_row`/`update_cell` and that idle pass (the screen's frame came first: seen
    under CI load) is cached at the label widths and reused while nothing else changes: the CRUSH
    rules row stayed "repl" for replicated_rule under a header at the content widths. It shows only
    when the table does not change size with the row (a fixed or 1fr height): a resize bumps the count.
    Minimal reproduction (test_compat.test_textual_datatable_still_draws_stale_widths):

        app CSS "DataTable { height: 1fr; }"; table.add_columns("id", "name", "type")
        table.add_row("0", "replicated_rule", "replicated")
        table.render_line(1)        # a frame before the idle pass: ' 0   repl  repl'
        await pilot.pause()         # the idle pass measures the widths
        table.render_line(1)        # still ' 0   repl  repl' under ' id  name             type'
    """

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(new_rows)
        self._update_count += 1  # the new widths must not be served from the caches of the old
        self.refresh()


class Button(_Button):
    """Textual's Button, whose press ends when it is disabled.

    Textual bug (8.2.8): a press adds the "-active" class for `active_effect_duration` (0.2 s) and the
    button ignores clicks and Enter while it has it; disabling the button does not end it. A dialog
    disables its button while the command runs and enables it again as the next choice (Run becomes
    Close, or Run again after a recomputed preview); a command answered within 0.2 s left that choice
    deaf to the first Enter or click. Minimal reproduction
    (test_compat.test_textual_button_still_ignores_a_press_after_reenabling):

        on Button.Pressed: button.disabled = True; button.label = "Close"; button.disabled = False
        await pilot.click(button); await pilot.press("enter")   # within 0.2 s: Enter is ignored

    A button pressed twice without being disabled in between keeps Textual's debounce (a double click
    on "Apply without preview" must not also answer the question it puts).
    """

    def watch_disabled(self, disabled: bool) -> None:
        super().watch_disabled(disabled)
        if disabled:
            self.remove_class("-active")  # Textual's press class: the press was handled
