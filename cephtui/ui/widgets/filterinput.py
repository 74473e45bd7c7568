"""A filter box for big tables: applies at every keystroke, Enter hands the keys back to the table.

No debounce: the tables filter 200,000 PGs in a worker thread within tens of ms and the
newest result wins (scripts/bench_scale.py), so each keystroke shows its own rows.
"""
from __future__ import annotations

from textual.message import Message
from textual.widgets import Input


class FilterInput(Input):
    class Applied(Message):
        """The filter text changed (a keystroke, or cleared)."""

        def __init__(self, filter_input: FilterInput, text: str) -> None:
            super().__init__()
            self.filter_input = filter_input
            self.text = text

        @property
        def control(self) -> FilterInput:
            return self.filter_input

    def __init__(self, placeholder: str, id: str) -> None:
        super().__init__(placeholder=placeholder, id=id)

    def _on_input_changed(self, event: Input.Changed) -> None:
        if event.input is self:
            self.post_message(self.Applied(self, event.value))

    def clear_filter(self) -> None:
        self.value = ""  # the change posts Applied("")
