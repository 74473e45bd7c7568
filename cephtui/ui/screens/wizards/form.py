"""A small typed form: fields in, operations out, or a clear message and nothing sent.

`build` turns the field values into operations or raises ValueError; the form
shows the resulting `ceph` command live as the operator types, and refuses to
close with OK while the values are bad. A form whose result is not a cluster
change (an export to a file) builds no operations and closes with [] when valid.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Optional

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static

from cephtui.ceph.ops import Operation
from cephtui.ui import palette
from cephtui.ui.dialog_types import Builder, Field, readable
from cephtui.ui.screens.confirm import command_block
from cephtui.ui.screens.dialog import Dialog

log = logging.getLogger("cephtui")

class FormScreen(Dialog[Optional[list[Operation]]]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    FormScreen #form-title { text-style: bold; margin-bottom: 1; }
    FormScreen #form-help { color: $text-muted; margin-bottom: 1; }
    FormScreen #form-fields { height: auto; max-height: 24; }
    FormScreen .form-row { height: auto; }
    FormScreen .form-row Label { width: 36; padding-top: 1; }
    FormScreen .form-row Input, FormScreen .form-row Select { width: 1fr; }
    FormScreen #form-status { height: auto; margin-top: 1; }
    """

    def __init__(self, title: str, fields: Sequence[Field], build: Builder, help: str = "",
                 warn: Callable[[dict[str, str]], Sequence[str]] | None = None,
                 notes: Callable[[dict[str, str]], Sequence[str]] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.fields = tuple(fields)
        self.build = build
        self.help_text = help
        self.warn = warn  # risky but allowed values: explained, not refused
        self.notes = notes  # plain facts under the commands (an equivalent command that is not run)
        self.submitted_values: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), id="form-title")
            if self.help_text:
                yield Static(self.help_text, id="form-help")
            with VerticalScroll(id="form-fields"):
                for f in self.fields:
                    with Horizontal(classes="form-row"):
                        yield Label(f.label)
                        if f.choices:
                            shown = f.labels if len(f.labels) == len(f.choices) else f.choices
                            yield Select([(label or "(none)", c) for label, c in zip(shown, f.choices)],
                                         value=f.value if f.value in f.choices else Select.NULL,
                                         allow_blank=True, id=f"field-{f.key}")
                        else:
                            yield Input(value=f.value, placeholder=f.placeholder, id=f"field-{f.key}")
            yield Static("", id="form-status")
            with Horizontal(id="form-buttons"):
                yield Button("Cancel", id="form-cancel")
                yield Button("Next", id="form-ok", variant="primary")

    def on_mount(self) -> None:
        if self.fields:
            self.query_one(f"#field-{self.fields[0].key}").focus()
        self._validate()

    def values(self) -> dict[str, str]:
        out = {}
        for f in self.fields:
            w = self.query_one(f"#field-{f.key}")
            if isinstance(w, Select):
                out[f.key] = "" if w.value in (Select.NULL, None) else str(w.value)
            else:
                out[f.key] = self.query_one(f"#field-{f.key}", Input).value
        return out

    def _validate(self) -> list[Operation] | None:
        status = self.query_one("#form-status", Static)
        try:
            ops = list(self.build(self.values()))
        except ValueError as e:
            status.update(Text(f"✖ {readable(str(e))}", style=palette.style("bold err")))
            return None
        except Exception as e:  # a checker bug (OverflowError, TypeError …): a message and nothing sent, not a crash
            log.exception("checking the form %r failed", self.title_text)
            status.update(Text(f"✖ could not check these values: {readable(repr(e))}",
                               style=palette.style("bold err")))
            return None
        notes = list(self.warn(self.values())) if self.warn else []
        block = command_block(ops)
        for n in notes:
            block.append(f"⚠ {n}\n", style=palette.style("warn"))
        for n in self.notes(self.values()) if self.notes else ():
            block.append(f"{n}\n", style=palette.style("muted"))
        status.update(block)
        return ops

    def recheck(self) -> None:
        """Check the values again: what the build consults changed (a queue read afresh)."""
        self._validate()

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self) -> None:
        self._validate()

    @on(Input.Submitted)
    @on(Button.Pressed, "#form-ok")
    def _submit(self) -> None:
        ops = self._validate()
        if ops is not None:
            self.submitted_values = self.values()  # for callers that need the fields, not just the commands
            self.dismiss(ops)

    @on(Button.Pressed, "#form-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
