"""Every use of Textual's private API, in one place (Textual is pinned: its internals move between releases).

tests/unit/test_compat.py checks that each private name used here still exists with the kind and signature
used, and that the Textual bugs worked around here still exist; a Textual upgrade fails there, naming
the attribute, rather than somewhere in a pane. Nothing else in cephtui touches a `_name` of Textual's.
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from rich.console import RenderableType
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App, ScreenStackError
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Button as _Button
from textual.widgets import DataTable as _DataTable
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported by textual.widgets; CephFooter makes its own
from textual.widgets.data_table import RowKey
from textual.worker import NoActiveWorker, Worker, get_current_worker

__all__ = ["FLOW_READ", "FORM_FOLLOWS", "Button", "DataTable", "FooterKey", "KeysInOrder", "bindings_ready", "keys_of",
           "node_bindings", "parse_action", "screen_frame"]

log = logging.getLogger("cephtui")
# CEPHTUI_KEYLOG=FILE: a line per typed key as KeysInOrder takes it (which key is in hand, what has the focus,
# which screen is up) and per wait that runs out, appended to FILE. For a key that went astray, to be explained
# rather than retried: tests/ui/test_keybursts.py shows it beside a screen that did not come.
KEYLOG = os.environ.get("CEPHTUI_KEYLOG", "")

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

    Also (8.2.8): a new label repaints the button but does not lay it out again, so an auto-width button
    keeps the width of its old label: "Run" (16 cells) relabelled "Apply without preview" showed "Apply
    without", unless something else happened to lay the row out in the same frame (a screen snapshot
    that differed between runs). Reproduction: test_compat.test_textual_button_keeps_its_width_when_relabelled.
    """

    def watch_label(self) -> None:
        self.refresh(layout=True)

    def watch_disabled(self, disabled: bool) -> None:
        super().watch_disabled(disabled)
        if disabled:
            self.remove_class("-active")  # Textual's press class: the press was handled


# Typed input: what the app takes from the terminal and hands to the focused widget.
TYPED = (events.Key, events.Paste)
# A key whose way through the widgets has not ended after this long (a widget closed with it in its queue,
# say) no longer holds back the keys typed after it: they are handed on, in order, late rather than never.
KEY_STALL = 1.0
# The keys typed behind a key that opened a screen, or started a dialog flow, wait for that screen to be up (or the
# flow to end) at most this long; past it they go to whatever has the focus, late rather than never.
KEY_SETTLE_WAIT = 5.0
KEY_SETTLE_POLL = 0.005  # how often the wait looks again (only while a key's screen or flow is on its way)
# The name of a thread worker whose read a form follows (Images `s`: the image read again, then the snapshot form):
# the keys typed behind its key belong to that form and wait for the read, at most KEY_READ_WAIT. Past it they
# are set aside, said so, rather than acting as keys of the screen behind (`e 3G`: the `3` switched tabs).
FORM_FOLLOWS = "keys-wait: a form follows this read"
KEY_READ_WAIT = 10.0
# The name of a dialog flow's other reads (flows.in_thread): the keys behind the key do not wait for them.
FLOW_READ = "a dialog flow's read"


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

    A key that opened a screen, or started a dialog flow (an async worker that pushes a form), is dealt with
    only once that screen has mounted, or the flow ended without one: the keys typed behind it belong to the
    form (`_key_done`, `_settle`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._key_in_hand: events.Event | None = None  # the typed event on its way through the widgets
        self._key_in_hand_since = 0.0
        self._keys_waiting: deque[events.Event] = deque()
        self._key_stall_timer: Any = None
        self._workers_before: set[Any] = set()  # the workers that ran before the key in hand
        self._settling: Any = None  # the wait after a key that opened a screen or started a flow
        self._key_waits: list[Callable[[], bool]] = []  # what the keys behind the key in hand wait for too
        self._stack_before: list[Any] = []  # the screens stacked when the key in hand was taken
        self._focus_before: Any = None  # the widget focused then
        # A dialog flow's step: the screen it awaits (push_screen_wait), and the flow. A key that dismisses the
        # step resumes the flow, whose next step (a form, a confirmation) is where the keys behind belong.
        self._flow_of: WeakKeyDictionary[Screen[Any], Worker[Any]] = WeakKeyDictionary()

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

    def _trace(self, what: str) -> None:
        if KEYLOG:
            try:
                with open(KEYLOG, "a", encoding="utf-8") as f:
                    f.write(f"{time.monotonic():.3f} {what} · in hand {getattr(self._key_in_hand, 'key', None)!r}, "
                            f"{len(self._keys_waiting)} waiting, focus {self.focused!r}, "
                            f"screen {type(self._current_screen()).__name__}\n")
            except OSError:
                pass

    async def on_event(self, event: events.Event) -> None:
        if KEYLOG and isinstance(event, TYPED):
            self._trace(f"key {getattr(event, 'key', type(event).__name__)!r}"
                        f"{' back at the app' if event.is_forwarded else ''}")
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
        self._workers_before, self._stack_before, self._focus_before = set(self.workers), self._stack(), self.focused
        self._key_waits = []
        target = self.focused or self.screen
        await super().on_event(event)  # a priority binding, or forwarded to `target`
        if not event.is_forwarded:
            self._key_done(event)  # a priority binding took it
        elif not target.call_later(self._key_passed, target, event):
            self._key_done(event)  # the target is closing: the key went nowhere

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
        if event is not self._key_in_hand or self._settling is not None:
            return
        if not self._settled():
            # What the key set in motion has not played out: a screen still mounting, a flow (a worker whose
            # first step is a form: CephTUI.form_then_confirm) that has not pushed it yet, a step it dismissed
            # whose flow has not pushed the next, a message it posted (an Input's Submitted) not yet handled.
            # Handed on now, the next key reaches the pane, or the bare screen before its on_mount focused the
            # field, or the step being closed (`e` then `ct-ec21` in one read made the form `t-ec21`; `Enter Z`
            # in a wizard's first step gave its name field the Z). It waits, in order, until that is over.
            # The coroutine function, not a coroutine: a worker cancelled before it starts (the app exiting)
            # then leaves no coroutine that was never awaited (Python's RuntimeWarning in the suite's logs).
            self._settling = self.run_worker(self._settle, name="keys-wait-for-screen", group="keys",
                                             exit_on_error=False)
            return
        self._hand_on()

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        """Textual's push_screen; a step of a dialog flow (wait_for_dismiss, from a worker) is remembered with its
        flow, so a key that dismisses it waits for the flow's next step (_resumed_flows)."""
        wait = kwargs.get("wait_for_dismiss", args[1] if len(args) > 1 else False)
        if wait and isinstance(screen, Screen):
            try:
                self._flow_of[screen] = get_current_worker()
            except NoActiveWorker:
                pass
        return super().push_screen(screen, *args, **kwargs)

    def keys_wait_for(self, ready: Callable[[], bool]) -> None:
        """The keys typed behind the key in hand wait until `ready()` too (bounded by KEY_SETTLE_WAIT): for what
        the key's action sets in motion through the message queues (a tab whose pane takes the focus after its
        TabActivated, after a refresh; also when it comes from a message the key posted, as the jump prompt's
        Enter). Called outside a key, it does nothing."""
        if self._key_in_hand is not None:
            self._key_waits.append(ready)

    def _waits_over(self) -> bool:
        return all(ready() for ready in self._key_waits)

    def _flows_started(self) -> list[Any]:
        """The async workers that the key in hand started and that still run. Thread workers (a refresh, a
        cluster read) are not dialog flows: keys never wait on the cluster."""
        return [w for w in self.workers if w not in self._workers_before and not w.is_finished
                and not w._thread_worker and w.group != "keys"]

    def _reading_the_cluster(self) -> bool:
        """A dialog flow's read (flows.in_thread) started since the key in hand was taken, that no form is said
        to follow; not the poller's or a pane's own reads, which run whenever their timers say."""
        return any(w._thread_worker and w.name == FLOW_READ and w not in self._workers_before
                   for w in self.workers)

    def _form_reads(self) -> list[Any]:
        """The reads started since the key in hand that a form follows (FORM_FOLLOWS), still running."""
        return [w for w in self.workers if w._thread_worker and w.name == FORM_FOLLOWS and not w.is_finished
                and w not in self._workers_before]

    def _resumed_flows(self) -> list[Any]:
        """The flows whose step the key in hand dismissed, still running: their next step is on its way."""
        stack = self._stack()
        return [w for screen, w in list(self._flow_of.items())
                if screen in self._stack_before and screen not in stack and not w.is_finished]

    def _awaiting_a_screen(self, worker: Any, stack: list[Any]) -> bool:
        return any(w is worker and screen in stack for screen, w in list(self._flow_of.items()))

    def _queues_quiet(self) -> bool:
        """No message waits in the queues the key went through (the widget focused when it was taken and its
        parents, the screens, the app), nor a callback Textual runs after the current message (a dismissed
        screen's result callback): what the key posted has been handled."""
        nodes: list[Any] = [self, self._current_screen(), *self._stack_before[-1:]]
        for start in (self._focus_before, self.focused):
            node = start
            while node is not None and node is not self:
                nodes.append(node)
                node = node._parent
        return all(n is None or (n._message_queue.empty() and not n._next_callbacks) for n in nodes)

    def _settled(self) -> bool:
        """Everything the key in hand set in motion has played out, as far as the keys behind it are concerned."""
        if not (self._screen_up() and self._waits_over() and self._queues_quiet()) or self._form_reads():
            return False
        stack = self._stack()
        current = stack[-1] if stack else None
        if current is not None and current not in self._stack_before:
            return True  # a new screen is up (and mounted): the keys behind are its keys
        flows = [*self._flows_started(), *self._resumed_flows()]
        if all(self._awaiting_a_screen(w, stack) for w in flows):
            return True  # no flow under way, or each waits on a screen that is up
        # A flow that reads the cluster (in_thread: a thread worker) lets the keys go on: keys never wait on the
        # cluster, and a dialog that comes later gets only the keys typed after it; unless a form is said to
        # follow the read (FORM_FOLLOWS).
        return self._reading_the_cluster()

    def _screen_up(self) -> bool:
        """The screen shown has mounted, so its own on_mount focus is in the queue ahead of the next key."""
        screen = self._current_screen()
        return screen is None or screen.is_mounted  # no screen: the app is closing

    async def _settle(self) -> None:
        start = time.monotonic()
        polls = 0
        while not self._settled():
            waited = time.monotonic() - start
            reads = self._form_reads()
            if reads and waited >= KEY_READ_WAIT:
                self._set_aside(reads[0], waited)
                break
            if not reads and waited >= KEY_SETTLE_WAIT:
                self._trace(f"no screen after {waited:.1f} s: handing on")
                log.warning("no screen after %.0f s behind key %r: handing on the %d typed after it",
                            KEY_SETTLE_WAIT, self._key_in_hand, len(self._keys_waiting))
                break
            polls += 1
            # The first looks only let the loop run the queues (a message, a mount); then every few ms.
            await asyncio.sleep(0 if polls <= 20 else KEY_SETTLE_POLL)
        self._settling = None
        self._hand_on()

    def _set_aside(self, read: Any, waited: float) -> None:
        """The read a form follows has not answered: the keys typed for that form are not handed to the screen
        behind it (where `3` switches tabs and `s` opens another dialog); they are dropped, and said so."""
        n = len(self._keys_waiting)
        self._keys_waiting.clear()
        if n:
            log.warning("%s: no answer after %.0f s; %d keys typed for its form set aside", read.description,
                        waited, n)
            self.notify(f"{n} key{'s' if n != 1 else ''} typed for the form after “{read.description}” not used: "
                        f"no answer after {waited:.0f} s; the form opens when the read ends.",
                        severity="warning", timeout=8)

    def _stack(self) -> list[Any]:
        try:
            return self.screen_stack
        except Exception:  # noqa: BLE001  # no mode yet, or the app is closing
            return []

    def _current_screen(self) -> Any:
        try:
            return self.screen
        except ScreenStackError:  # the stack is empty: the app is closing
            return None

    def _hand_on(self) -> None:
        """The key in hand is done: the next key typed goes on its way."""
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
        if self._settling is not None:  # not lost: waiting for its screen (bounded by KEY_SETTLE_WAIT)
            self._key_stall_timer = self.set_timer(KEY_STALL, self._key_stalled)
            return
        if time.monotonic() - self._key_in_hand_since >= KEY_STALL:
            self._trace(f"key stalled {KEY_STALL} s: handing on")
            log.warning("key %r not dealt with after %.1f s: handing on the %d typed after it", stuck,
                        KEY_STALL, len(self._keys_waiting))
            self._key_done(stuck)
        if self._keys_waiting:
            self._key_stall_timer = self.set_timer(KEY_STALL, self._key_stalled)
