"""Every dialog closes with `q` as with escape (k9s / less habit). A modal screen does not see the
app's keys, so the binding lives here; a field being typed in still gets its `q`."""
from __future__ import annotations

from textual.binding import Binding
from textual.screen import ModalScreen, ScreenResultType


class Dialog(ModalScreen[ScreenResultType]):
    BINDINGS = [Binding("q", "close_on_q", "Close", show=False)]

    async def action_close_on_q(self) -> None:
        escape = self._bindings.key_to_bindings.get("escape")
        if escape:
            await self.run_action(escape[0].action)  # what escape does here: cancel, close, later …
        else:
            self.dismiss(None)
