"""The bottom prompt of less and k9s: `:` jumps, `/` searches the table of a tab without a filter."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Input, Static

PROMPTS = {"jump": ":", "search": "/"}
PLACEHOLDERS = {
    "jump": "osds, pools, osd.3, 1.2f, rbd, client.admin, a host … (tab completes, enter goes, escape closes)",
    "search": "text in a row (enter keeps it: n / N next / previous match, escape closes)",
}


class PromptBar(Horizontal):
    BINDINGS = [Binding("escape", "close", "Close", show=False)]
    DEFAULT_CSS = """
    PromptBar { display: none; height: 1; background: $panel; }  /* in the flow: a docked one hides the footer */
    PromptBar.-open { display: block; }
    PromptBar > #prompt-sign { width: 2; padding: 0 0 0 1; color: $accent; text-style: bold; }
    PromptBar > Input { border: none; height: 1; padding: 0; width: 1fr; background: $panel; }
    PromptBar > Input:focus { border: none; }
    """

    class Changed(Message):
        def __init__(self, mode: str, text: str) -> None:
            super().__init__()
            self.mode, self.text = mode, text

    class Done(Message):
        """Enter (`text`) or escape (`cancelled`)."""

        def __init__(self, mode: str, text: str, cancelled: bool) -> None:
            super().__init__()
            self.mode, self.text, self.cancelled = mode, text, cancelled

    def __init__(self) -> None:
        super().__init__(id="promptbar")
        self.mode = "jump"

    def compose(self) -> ComposeResult:
        yield Static(":", id="prompt-sign")
        yield Input(id="prompt-input")

    @property
    def input(self) -> Input:
        return self.query_one("#prompt-input", Input)

    @property
    def value(self) -> str:
        return self.input.value

    def open(self, mode: str, text: str = "", completions: list[str] | None = None) -> None:
        self.mode = mode
        self.query_one("#prompt-sign", Static).update(PROMPTS[mode])
        box = self.input
        box.suggester = SuggestFromList(completions, case_sensitive=False) if completions else None
        box.placeholder = PLACEHOLDERS[mode]
        with box.prevent(Input.Changed):
            box.value = text
        self.add_class("-open")
        box.focus()

    def close(self) -> None:
        self.remove_class("-open")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.is_open:
            self.post_message(self.Changed(self.mode, event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.close()
        self.post_message(self.Done(self.mode, event.value, cancelled=False))

    def action_close(self) -> None:
        self.close()
        self.post_message(self.Done(self.mode, self.value, cancelled=True))
