"""The dialog base: one frame for every dialog, and `q` closes as escape does (k9s / less habit).

A modal screen does not see the app's keys, so the binding lives here; a field being typed in still gets
its `q`. The frame is the screen's one child (a Vertical, or a VerticalScroll for a long read-only view),
centred; its last child, when a Horizontal, is the row of buttons, right-aligned. A dialog's own
DEFAULT_CSS says only what differs (its width, a warning or error border); app.tcss fits dialogs to a
short terminal."""
from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding
from textual.screen import ModalScreen, Screen, ScreenResultType

from cephtui.ui.compat import Button, node_bindings


async def close_like_escape(screen: Screen[Any]) -> None:
    """Do what escape does on `screen` (cancel, close, later …), or dismiss it when escape does nothing."""
    escape = node_bindings(screen).get("escape")
    if escape:
        await screen.run_action(escape[0].action)
    else:
        screen.dismiss(None)


class Dialog(ModalScreen[ScreenResultType]):
    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog > Vertical, Dialog > VerticalScroll { width: 100; max-width: 95%; height: auto; max-height: 95%;
        border: thick $primary; background: $surface; padding: 1 2; }
    Dialog > Vertical > Horizontal:last-child { height: auto; margin-top: 1; align-horizontal: right; }
    Dialog Button { margin-left: 2; }
    """
    BINDINGS = [Binding("q", "close_on_q", "Close", show=False)]

    async def action_close_on_q(self) -> None:
        await close_like_escape(self)

    def become_close(self, action: str, cancel: str) -> None:
        """Once the dialog's action has run: its button (#`action`) turns into Close and takes the focus, and
        Cancel (#`cancel`) goes, since there is nothing left to cancel."""
        button = self.query_one(f"#{action}", Button)
        button.label, button.disabled, button.variant = "Close", False, "default"
        self.query_one(f"#{cancel}", Button).display = False
        button.focus()


class YesNoDialog(Dialog[bool]):
    """A question answered by one of two buttons: #`YES` dismisses True, #`NO` False (actions `yes` and `no`
    for the bindings). #`FOCUS`, one of the two, has the focus as it opens: what Enter answers."""

    YES: ClassVar[str] = ""
    NO: ClassVar[str] = ""
    FOCUS: ClassVar[str] = ""

    def on_mount(self) -> None:
        self.query_one(f"#{self.FOCUS}").focus()  # Textual's Button or compat's: the dialog chooses

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id in (self.YES, self.NO):
            self.dismiss(event.button.id == self.YES)

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
