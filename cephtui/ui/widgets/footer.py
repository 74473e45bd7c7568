"""The footer with the keys that work everywhere first (`q`, `?`, `:` …): at 80 columns a tab's many
keys would otherwise push them off the end, and `?` is how one finds the rest.

The keys copy the footer's `compact` when made instead of `data_bind(compact=Footer.compact)` as
Textual's Footer does: a data binding adds a watcher to the footer's list that is pruned only when
`compact` next changes, i.e. never, so every recompose (each tab switch or focus change) kept all the
old FooterKey widgets alive for good: megabytes a minute when switching tabs every 3 s, and the
steady 0.5 MB a minute seen at an admin's pace (scripts/soak.py; Textualize/textual#6666)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from cephtui.ui.compat import FooterKey, bindings_ready

# What one key of the footer shows: key, its display, description, action, enabled, tooltip, classes.
Entry = tuple[str, str, str, str, bool, str, str]


class CephFooter(Footer):
    """Recomposed only when what it shows changes. Textual's Footer recomposes on every bindings update, and a
    tab switch sends several (the focus dropped, the tab shown, the pane focused), each mounting a fresh set of
    keys, mostly the same ones: measured on a replayed cluster, about a ninth of a tab switch's CPU."""

    _shown: tuple[Entry, ...] | None = None  # what the keys on screen show (None: not composed yet)
    _queued = False  # a recompose check waits for the next refresh

    def watch_compact(self, old: bool, new: bool) -> None:
        if old != new and self.is_attached:  # the keys copy it when made (see _key)
            self._shown = None
            self.call_after_refresh(self.recompose)

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._queued:
            self._queued = True  # several updates in one refresh: one look
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._queued = False
        if self.is_attached and tuple(self._entries()) != self._shown:
            await self.recompose()

    def _key(self, key: FooterKey) -> FooterKey:
        key.set_reactive(FooterKey.compact, self.compact)
        return key

    def _entries(self) -> list[Entry]:
        if not bindings_ready(self):
            return []
        active = self.screen.active_bindings
        shown = [a for a in active.values() if a.binding.show]
        shown.sort(key=lambda a: a.node is not self.app)  # stable: the app's own keys first, then the tab's
        seen: set[str] = set()
        entries: list[Entry] = []
        for _node, binding, enabled, tooltip in shown:
            if binding.action in seen:
                continue
            seen.add(binding.action)
            entries.append((binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            enabled, tooltip or binding.description, ""))
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                entries.append((palette.binding.key, self.app.get_key_display(palette.binding),
                                palette.binding.description, palette.binding.action, palette.enabled,
                                palette.binding.tooltip or palette.binding.description, "-command-palette"))
        return entries

    def compose(self) -> ComposeResult:
        entries = self._entries()
        self._shown = tuple(entries) if bindings_ready(self) else None
        for key, display, description, action, enabled, tooltip, classes in entries:
            made = FooterKey(key, display, description, action, disabled=not enabled, tooltip=tooltip,
                             classes=classes)
            yield made if classes else self._key(made)
