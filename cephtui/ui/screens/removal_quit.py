"""`q` while this cephtui drives a removal: quit and pause it, or stay.

Nothing else ticks a removal this process drives: quitting without a word left the cluster's queue saying
`running` with no driver (other cephtuis then waited a minute before offering to take it over). Quitting
here pauses it, saved in the cluster's queue, as `cephtui remove` does on SIGTERM.
"""
from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from cephtui.ui.compat import Button
from cephtui.ui.screens.dialog import YesNoDialog


def quit_question(titles: Sequence[str]) -> str:
    """"osd.3's removal is running, driven by this cephtui" (one), or the list (several)."""
    if len(titles) == 1:
        title = titles[0]
        what, osds = title.split(" ", 1)
        return f"{osds}'s {'replacement' if what == 'Replace' else 'removal'} is running, driven by this cephtui."
    return f"{len(titles)} removals are running, driven by this cephtui: {'; '.join(titles)}."


class QuitRemovalScreen(YesNoDialog):
    """True: quit and pause the removals (saved in the cluster's queue); False: stay. Stay is the default."""

    BINDINGS = [Binding("escape", "no", "Stay"), Binding("s", "no", "Stay", show=False),
                Binding("p", "yes", "Quit and pause", show=False)]
    YES, NO, FOCUS = "quit-pause", "quit-stay", "quit-stay"
    DEFAULT_CSS = """
    QuitRemovalScreen > Vertical { width: 80; border: thick $warning; }
    QuitRemovalScreen #quit-question { text-style: bold; }
    """

    def __init__(self, titles: Sequence[str]) -> None:
        super().__init__()
        self.titles = tuple(titles)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(quit_question(self.titles)), id="quit-question")
            yield Static(Text("Nothing else drives it while this cephtui is gone. Quitting pauses it, saved in the "
                              "cluster's queue; any cephtui (P on the OSDs tab) or `cephtui remove --resume` "
                              "continues it."), id="quit-detail")
            with Horizontal(id="quit-buttons"):
                yield Button("Stay (s)", id="quit-stay", variant="primary")
                yield Button("Quit and pause it (p)", id="quit-pause", variant="warning")
