"""`?`: the keys of the tab shown (read from its bindings, so never stale), what it shows, and the keys
that work everywhere; `a` in the help shows every tab's keys. A tab's words are its pane's HELP and
ACTION_HELP (ui/pane.py)."""
from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from cephtui.ui.pane import Pane
from cephtui.ui.screens.dialog import Dialog
from cephtui.ui.tabs import TABS, Tab

# (key, what it does) for the keys that work on every tab.
EVERYWHERE = (
    ("1…9, 0" if len(TABS) >= 10 else f"1…{len(TABS)}", "switch tab: " + ", ".join(t.title for t in TABS[:10])
     + "".join(f"; {t.title} by :{t.key}" for t in TABS[10:])),
    (":", "jump: a tab (`:osds`, `:pools`), an OSD (`:osd.3`), a PG (`:1.2f`), a pool, a user "
          "(`:client.admin`), a host or bucket; `tab` completes"),
    ("/", "filter the table (PGs, OSDs, Users) or search it (other tabs)"),
    ("n / N", "next / previous row matching the filter or search, wrapping"),
    ("g / G", "first / last row;  `↑ ↓ pgup pgdn home end` move too"),
    ("enter / space", "open / mark the row, where the tab has that"),
    ("r", "refresh now"),
    ("ctrl+p", "command palette: every action of every tab, themes, screenshot"),
    ("?", "this help"),
    ("escape", "clear the filter / close a dialog"),
    ("q", "close the dialog or prompt on top; on the main screen, quit (asks again while a bench runs)"),
    ("ctrl+q", "quit at once"),
    ("mouse", "click tabs, rows, buttons and footer keys; the wheel scrolls; double-click opens a row"),
)

# (key display, action, footer label, tooltip) of one binding
KeyRow = tuple[str, str, str, str]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def tab_section(tab: Tab, pane: type[Pane], keys: Sequence[KeyRow], read_only: bool = False) -> str:
    """One tab's keys (their words: the pane's ACTION_HELP, else the tooltip, else the footer label) and
    its HELP prose."""
    lines = [f"## {tab.title} tab", "", "| key | does |", "|---|---|"]
    for key, action, label, tooltip in keys:
        text = pane.ACTION_HELP.get(action) or tooltip or label
        lines.append(f"| `{_cell(key)}` | {_cell(text)} |")
    if not keys:
        lines.append("| | this tab only shows; the keys below work here |")
    lines += ["", pane.HELP]
    if read_only:
        lines += ["", "cephtui runs with `--read-only`: keys that would change the cluster are dimmed and say why."]
    return "\n".join(lines)


def everywhere() -> str:
    rows = "\n".join(f"| `{_cell(k)}` | {_cell(v)} |" for k, v in EVERYWHERE)
    return f"## Everywhere\n\n| key | does |\n|---|---|\n{rows}\n"


class HelpScreen(Dialog[None]):
    """The help of one tab; `a` switches to every tab's keys and back."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close"), Binding("a", "toggle_all", "All tabs")]
    DEFAULT_CSS = """
    HelpScreen > VerticalScroll { height: 1fr; border: round $primary; padding: 0; }
    """

    def __init__(self, current: str, sections: dict[str, str]) -> None:
        """`sections`: tab key -> its markdown (tab_section), in tab order; `current` is shown first."""
        super().__init__()
        self.current, self.sections, self.show_all = current, sections, False

    def _markdown(self) -> str:
        head = "# cephtui keys\n\n`a` every tab · `escape` close · `ctrl+p` every action by name\n\n"
        if self.show_all:
            return head + "\n\n".join(self.sections.values()) + "\n\n" + everywhere()
        return head + self.sections[self.current] + "\n\n" + everywhere()

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self._markdown())

    def action_toggle_all(self) -> None:
        self.show_all = not self.show_all
        self.query_one(Markdown).update(self._markdown())
