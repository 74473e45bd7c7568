"""Every use of Textual's private API, in one place (Textual is pinned: its internals move between releases).

tests/unit/test_compat.py checks that each private name used here still exists with the kind and signature
used, and that the Textual bugs worked around here still exist; a Textual upgrade fails there, naming
the attribute, rather than somewhere in a pane. Nothing else in cephtui touches a `_name` of Textual's.
"""
from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from rich.console import RenderableType
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Button as _Button
from textual.widgets import DataTable as _DataTable
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported by textual.widgets; CephFooter makes its own
from textual.widgets.data_table import RowKey

__all__ = ["Button", "DataTable", "FooterKey", "KeysInOrder", "bindings_ready", "keys_of", "node_bindings",
           "parse_action", "screen_frame"]

log = logging.getLogger("cephtui")

CellType = TypeVar("CellType")


def node_bindings(node: DOMNode) -> Mapping[str, list[Binding]]:
    """A widget's or screen's own bindings by key (its BINDINGS merged along the class tree); Textual's
    public `active_bindings` is only the focus chain's, which a pane not focused is not part of."""
    return node._bindings.key_to_bindings


def bindings_ready(footer: Footer) -> bool:
    """Whether the screen has told the footer its bindings yet (before that a footer composes empty)."""
    return bool(footer._bindings_ready)


def parse_action(app: App[Any], action: str, default_namespace: DOMNode,
                 namespaces: Mapping[str, DOMNode] | None = None) -> tuple[DOMNode, str, tuple[object, ...]]:
    """(target node, action name, arguments) as App.run_action resolves them ("app.x", "screen.x", "x")."""
    return app._parse_action(action, default_namespace, namespaces)


def screen_frame(app: App[Any]) -> RenderableType | None:
    """The whole screen as the terminal shows it (dialogs over the screens below): what
    App.export_screenshot draws, as a renderable for a plain-text export (tests, screenshots)."""
    return app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)


class DataTable(_DataTable[CellType]):
    """Textual's DataTable with its column widths never drawn stale.

    Textual bug (8.2.8): the table caches rendered cells and lines under `_update_count`, and its idle
    pass re-measures the column widths (`_update_dimensions`) without bumping that count. A frame
    painted between `add_row`/`update_cell` and that idle pass (the screen's frame came first: seen
    under CI load) is cached at the label widths and reused while nothing else changes: the CRUSH
    rules row stayed "repl" for replicated_rule under a header at the content widths. It shows only
    when the table does not change size with the row (a fixed or 1fr height): a resize bumps the count.
    Minimal reproduction (test_compat.test_textual_datatable_still_draws_stale_widths):

        app CSS "DataTable { height: 1fr; }"; table.add_columns("id", "name", "type")
        table.add_row("0", "replicated_rule", "replicated")
        table.render_line(1)        # a frame before the idle pass: ' 0   repl  repl'
        await pilot.pause()         # the idle pass measures the widths
        table.render_line(1)        # still ' 0   repl  repl' under ' id  name             type'
    """

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(new_rows)
        self._update_count += 1  # the new widths must not be served from the caches of the old
        self.refresh()


class Button(_Button):
    """Textual's Button, whose press ends when it is disabled.

    Textual bug (8.2.8): a press adds the "-active" class for `active_effect_duration` (0.2 s) and the
    button ignores clicks and Enter while it has it; disabling the button does not end it. A dialog
    disables its button while the command runs and enables it again as the next choice (Run becomes
    Close, or Run again after a recomputed preview); a command answered within 0.2 s left that choice
    deaf to the first Enter or click. Minimal reproduction
    (test_compat.test_textual_button_still_ignores_a_press_after_reenabling):

        on Button.Pressed: button.disabled = True; button.label = "Close"; button.disabled = False
        await pilot.click(button); await pilot.press("enter")   # within 0.2 s: Enter is ignored

    A button pressed twice without being disabled in between keeps Textual's debounce (a double click
    on "Apply without preview" must not also answer the question it puts).
    """

    def watch_disabled(self, disabled: bool) -> None:
        super().watch_disabled(disabled)
        if disabled:
            self.remove_class("-active")  # Textual's press class: the press was handled


# Typed input: what the app takes from the terminal and hands to the focused widget.
TYPED = (events.Key, events.Paste)
# A key whose way through the widgets has not ended after this long (a widget closed with it in its queue,
# say) no longer holds back the keys typed after it: they are handed on, in order, late rather than never.
KEY_STALL = 1.0
# A screen pushed by a key has mounted long before this; a key typed behind it waits for the mount at most this long.
KEY_MOUNT_WAIT = 10.0


def keys_of(text: str) -> list[events.Message]:
    """The events Textual's terminal parser makes of `text` (bytes a terminal sent), in order."""
    if not text:
        return []
    parser = XTermParser()
    return [*parser.feed(text), *parser.feed("")]  # "": end of input, so a lone ESC is the escape key


class KeysInOrder(App[Any]):
    """The app hands each typed key (or paste) to the focused widget only once the key before it has been
    dealt with, as if typed one at a time; and keys typed while cephtui started (cephtui/typeahead.py) come
    first, in order.

    Textual bug (8.2.8; upstream issue Textualize/textual#6605, draft fix #6631): keys that arrive in one
    read are handled out of order. The app forwards every key at once to the focused widget's queue
    (app.py:4136, App.on_event); an Input handles a printable key there and then (widgets/_input.py:743,
    _on_key), but Backspace, Enter, the arrows are BINDINGS (widgets/_input.py:114): the key bubbles back up
    through the parents' queues (message_pump.py:834, _on_message) to the app, whose binding check
    (app.py:4341, _on_key) runs the Input's action only after the Input has inserted every character
    behind it. `x`, Backspace, `0.5`, Enter in one read leaves `x0.`: Backspace deletes the 5 and Enter
    submits. docs/textual-keys.md has the mechanism and a ten-line reproduction
    (test_compat.test_textual_still_reorders_a_burst of keys).

    A key is dealt with when a widget stops it, when it has bubbled back to the app and the app has run
    its binding, or when bubbling ends without reaching the app. Between a widget and its parent the key
    travels through the parent's queue, so a callback posted behind it into each queue on its way up
    runs once that queue has dealt with it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._key_in_hand: events.Event | None = None  # the typed event on its way through the widgets
        self._key_in_hand_since = 0.0
        self._keys_waiting: deque[events.Event] = deque()
        self._key_stall_timer: Any = None
        self._key_held: events.Event | None = None  # the key in hand, waiting for its screen to mount
        self._screens_ready: weakref.WeakSet[Any] = weakref.WeakSet()  # mounted, with their own focus set

    def _on_load(self, event: events.Load) -> None:
        # Before the driver starts: these reach the queue ahead of anything it reads from the terminal.
        from cephtui import typeahead

        for message in keys_of(typeahead.take()):
            if isinstance(message, TYPED):
                message.set_sender(self)
                self.post_message(message)

    def _on_mount(self, event: events.Mount) -> None:
        from cephtui import typeahead

        # The terminal modes to restore at exit and on suspend: the ones from before cephtui held the keys
        # (Textual saved the held ones when it started, which have no echo).
        before = typeahead.original()
        if before is not None and hasattr(self._driver, "attrs_before"):
            self._driver.attrs_before = before  # type: ignore[union-attr]

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, TYPED):
            await super().on_event(event)
            return
        if event.is_forwarded:  # it bubbled back up to the app: its bindings run, then it is dealt with
            await super().on_event(event)
            self._key_done(event)
            return
        if self._key_in_hand is not None and event is not self._key_in_hand:
            self._keys_waiting.append(event)
            if self._key_stall_timer is None:
                self._key_stall_timer = self.set_timer(KEY_STALL, self._key_stalled)
            return
        self._key_in_hand, self._key_in_hand_since = event, time.monotonic()
        if self.screen not in self._screens_ready:
            # The key before opened this screen. Its on_mount focuses its field with Widget.focus, a callback
            # put in our queue behind the key typed next: handed on now, that key reaches the screen's first
            # focusable widget, or the bare screen while it mounts, and is lost (`e` then `ct-ec21` in one
            # read made `t-ec21`). The first key of a screen waits, in hand, for its mount, then queues behind.
            self._hold_for_mount(self.screen, event)
            return
        target = self.focused or self.screen
        await super().on_event(event)  # a priority binding, or forwarded to `target`
        if not event.is_forwarded:
            self._key_done(event)  # a priority binding took it
        elif not target.call_later(self._key_passed, target, event):
            self._key_done(event)  # the target is closing: the key went nowhere

    def _hold_for_mount(self, screen: Any, event: events.Event) -> None:
        self._key_held = event

        async def mounted() -> None:
            try:
                # Textual sets it even when the screen's compose or mount failed; the bound is for a screen
                # dropped before it ever ran: then the key goes on late rather than never.
                await asyncio.wait_for(screen._mounted_event.wait(), KEY_MOUNT_WAIT)
            except asyncio.TimeoutError:
                log.warning("screen %r not mounted after %.0f s: handing on key %r", screen, KEY_MOUNT_WAIT, event)
            self._screens_ready.add(screen)
            if self._key_held is event:
                self._key_held = None
                # Behind the screen's own focus callback, which its on_mount put in the queue first.
                if not self.post_message(event):
                    self._key_done(event)

        self.run_worker(mounted(), name="key-waits-for-mount", group="keys", exit_on_error=False)

    def _key_passed(self, node: Any, event: events.Event) -> None:
        """`node` has dealt with `event`: it was stopped there, or it is in the parent's queue now."""
        if event is not self._key_in_hand:
            return
        parent = node._parent
        if parent is None or parent is self:
            # A screen's key goes on to the app, where on_event ends it; this call comes after it there.
            if parent is None or not self.call_later(self._key_passed_app, event):
                self._key_done(event)
            return
        if event._stop_propagation:
            self._key_done(event)  # a widget took it
        elif not parent.call_later(self._key_passed, parent, event):
            self._key_done(event)

    def _key_passed_app(self, event: events.Event) -> None:
        self._key_done(event)  # bubbling ended before the app (a screen that stopped it, or closed)

    def _key_done(self, event: events.Event) -> None:
        if event is not self._key_in_hand:
            return
        self._key_in_hand = None
        if self._keys_waiting:
            following = self._keys_waiting.popleft()
            self._key_in_hand, self._key_in_hand_since = following, time.monotonic()
            if not self.post_message(following):
                self._key_in_hand = None
        if not self._keys_waiting and self._key_stall_timer is not None:
            self._key_stall_timer.stop()
            self._key_stall_timer = None

    def _key_stalled(self) -> None:
        self._key_stall_timer = None
        stuck = self._key_in_hand
        if stuck is None:
            return
        if stuck is self._key_held:  # not lost: waiting for its screen (bounded by KEY_MOUNT_WAIT)
            self._key_stall_timer = self.set_timer(KEY_STALL, self._key_stalled)
            return
        if time.monotonic() - self._key_in_hand_since >= KEY_STALL:
            log.warning("key %r not dealt with after %.1f s: handing on the %d typed after it", stuck,
                        KEY_STALL, len(self._keys_waiting))
            self._key_done(stuck)
        if self._keys_waiting:
            self._key_stall_timer = self.set_timer(KEY_STALL, self._key_stalled)
