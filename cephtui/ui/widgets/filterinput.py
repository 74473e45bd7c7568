"""A filter box for big tables: debounced while typing, Enter hands the keys back to the table."""
from __future__ import annotations

from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input

DEBOUNCE = 0.2  # seconds of quiet typing before a filter over thousands of rows runs


class FilterInput(Input):
    class Applied(Message):
        """The filter text settled (after typing paused, on Enter, or when cleared)."""

        def __init__(self, filter_input: "FilterInput", text: str) -> None:
            super().__init__()
            self.filter_input = filter_input
            self.text = text

        @property
        def control(self) -> "FilterInput":
            return self.filter_input

    def __init__(self, placeholder: str, id: str) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self._timer: Timer | None = None

    def _on_input_changed(self, event: Input.Changed) -> None:
        if event.input is not self:
            return
        if self._timer is not None:
            self._timer.stop()
        text = event.value
        self._timer = self.set_timer(DEBOUNCE, lambda: self.post_message(self.Applied(self, text)))

    def clear_filter(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.value = ""
        self.post_message(self.Applied(self, ""))
