"""Every dialog closes with `q` as with escape (k9s / less habit). A modal screen does not see the
app's keys, so the binding lives here; a field being typed in still gets its `q`."""
from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import ModalScreen, Screen, ScreenResultType

from cephtui.ui.compat import node_bindings


async def close_like_escape(screen: Screen[Any]) -> None:
    """Do what escape does on `screen` (cancel, close, later …), or dismiss it when escape does nothing."""
    escape = node_bindings(screen).get("escape")
    if escape:
        await screen.run_action(escape[0].action)
    else:
        screen.dismiss(None)


class Dialog(ModalScreen[ScreenResultType]):
    BINDINGS = [Binding("q", "close_on_q", "Close", show=False)]

    async def action_close_on_q(self) -> None:
        await close_like_escape(self)
