"""The Health tab's cluster log: a RichLog that asks for its lines to be drawn again when its width changes."""
from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import RichLog


class ClusterLog(RichLog):
    """Textual's RichLog wraps a line once, at the width it has when the line is written, and never again.
    The first lines come with the first snapshot, while the tab is still being laid out, so whether a line
    was wrapped for the box it ends in depended on timing: at 80 columns "— live since 07:32:53 UTC —" was
    sometimes two lines and sometimes cut off behind a scroll bar. When its width changes it posts Reflow
    and the pane draws the lines it still holds again, at the new width (and narrow or wide, log_line)."""

    class Reflow(Message):
        """The log's width changed since its lines were drawn."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._drawn_at = 0

    def on_resize(self, event: events.Resize) -> None:
        # RichLog's own on_resize runs as well (Textual calls each class's handler): it draws the lines
        # written before the size was known.
        if event.size.width and event.size.width != self._drawn_at:
            first = self._drawn_at == 0
            self._drawn_at = event.size.width
            if not first:
                self.post_message(self.Reflow())
