"""The Maintenance tab's preflight dialog: `osd ok-to-stop` said no (or could not answer), and what that means
before any flag is set."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from cephtui.ceph.workflows import maintenance as mt
from cephtui.ceph.workflows import maintenance_plan as mplan
from cephtui.ui import palette
from cephtui.ui.screens.dialog import YesNoDialog


class PreflightScreen(YesNoDialog):
    """`osd ok-to-stop` said no (or could not answer): explain, and continue only on an explicit choice."""

    BINDINGS = [Binding("escape", "no", "Cancel")]
    YES, NO, FOCUS = "preflight-continue", "preflight-cancel", "preflight-cancel"
    DEFAULT_CSS = """
    PreflightScreen > Vertical { border: thick $error; }
    PreflightScreen VerticalScroll { height: auto; max-height: 30; margin-top: 1; }
    PreflightScreen #preflight-text { height: auto; }
    """

    def __init__(self, title: str, text: Text) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            with VerticalScroll():
                yield Static(self.text, id="preflight-text")
            with Horizontal():
                yield Button("Cancel", id="preflight-cancel", variant="primary")
                yield Button("Set the flags anyway", id="preflight-continue", variant="error")


def refused_text(m: mt.Maintenance, text: str) -> Text:
    """What the preflight dialog says when ok-to-stop refuses `m`'s OSDs."""
    body = Text()
    body.append(f"$ ceph osd ok-to-stop {' '.join(map(str, m.target.osds))}\n", style=palette.style("bold info"))
    body.append(f"{text}\n\n", style=palette.style("bold err"))
    body.append(mplan.OK_TO_STOP_REFUSED + "\n\n")
    body.append("Nothing has been changed. If you continue, the flags are set; do not stop the daemons "
                "until ok-to-stop agrees (or you accept the outage).", style=palette.style("warn"))
    return body
