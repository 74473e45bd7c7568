"""The bottom prompt of less and k9s: `:` jumps, `/` searches the table of a tab without a filter."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Input, Static

from cephtui.ui.jump import complete

PROMPTS = {"jump": ":", "search": "/"}
PLACEHOLDERS = {
    "jump": "osds, pools, osd.3, 1.2f, rbd, client.admin, a host … (tab completes, enter goes, escape closes)",
    "search": "text in a row (enter keeps it: n / N next / previous match, escape closes)",
}


class PromptBar(Horizontal):
    # Tab completes here (the screen's tab would move the focus out of the prompt).
    BINDINGS = [Binding("escape", "close", "Close", show=False),
                Binding("tab", "complete(1)", "Complete", show=False),
                Binding("shift+tab", "complete(-1)", "Previous completion", show=False)]
    DEFAULT_CSS = """
    PromptBar { display: none; height: 1; background: $panel; }  /* in the flow: a docked one hides the footer */
    PromptBar.-open { display: block; }
    PromptBar > #prompt-sign { width: 2; padding: 0 0 0 1; color: $accent; text-style: bold; }
    PromptBar > Input { border: none; height: 1; padding: 0; width: 1fr; background: $panel; }
    PromptBar > Input:focus { border: none; }
    PromptBar > #prompt-matches { width: auto; max-width: 60%; color: $text-muted; padding: 0 1; }
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
        self.completions: list[str] = []
        self._cycle: list[str] = []  # the matches Tab steps through, while the text is one of them
        self._cycle_at = 0
        self._setting: str | None = None  # the text Tab put in (its Changed is not typing)

    def compose(self) -> ComposeResult:
        yield Static(":", id="prompt-sign")
        yield Input(id="prompt-input")
        yield Static("", id="prompt-matches")

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
        self.completions = list(completions or [])
        self._cycle = []
        self.query_one("#prompt-matches", Static).update("")
        box.suggester = SuggestFromList(completions, case_sensitive=False) if completions else None
        box.placeholder = PLACEHOLDERS[mode]
        with box.prevent(Input.Changed):
            box.value = text
        self.add_class("-open")
        # Focus now, not with focus() (which waits for the next turn of the message loop): keys
        # already queued behind the `:` must land here, not in the table behind the prompt.
        self.screen.set_focus(box, scroll_visible=False)

    def action_complete(self, step: int) -> None:
        """Tab: complete as a shell does; Tab again steps through the matches (shift+tab back)."""
        box = self.input
        matches_box = self.query_one("#prompt-matches", Static)
        if self._cycle and box.value in self._cycle:
            self._cycle_at = (self._cycle_at + step) % len(self._cycle)
            self._set(self._cycle[self._cycle_at])
            return
        text, matches = complete(box.value, self.completions)
        if not matches:
            self._cycle = []
            matches_box.update("no completion" if self.completions else "nothing to complete here")
            self.app.bell()
            return
        if text != box.value or len(matches) == 1:
            self._set(text)
        else:
            self._cycle, self._cycle_at = matches, 0 if step > 0 else len(matches) - 1
            self._set(matches[self._cycle_at])
        shown = " ".join(matches[:12]) + (" …" if len(matches) > 12 else "")
        matches_box.update("" if len(matches) == 1 else f"{len(matches)}: {shown}")

    def _set(self, text: str) -> None:
        box = self.input
        self._setting = text
        box.value = text
        box.cursor_position = len(text)

    def close(self) -> None:
        self.remove_class("-open")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value != self._setting:  # typed: a new completion starts from it
            self._cycle = []
            self.query_one("#prompt-matches", Static).update("")
        if self.is_open:
            self.post_message(self.Changed(self.mode, event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.close()
        self.post_message(self.Done(self.mode, event.value, cancelled=False))

    def action_close(self) -> None:
        self.close()
        self.post_message(self.Done(self.mode, self.value, cancelled=True))
