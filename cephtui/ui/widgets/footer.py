"""The footer with the keys that work everywhere first (`q`, `?`, `:` …): at 80 columns a tab's many
keys would otherwise push them off the end, and `?` is how one finds the rest.

The keys copy the footer's `compact` when made instead of `data_bind(compact=Footer.compact)` as
Textual's Footer does: a data binding adds a watcher to the footer's list that is pruned only when
`compact` next changes, i.e. never, so every recompose (each tab switch or focus change) kept all the
old FooterKey widgets alive for good: megabytes a minute when switching tabs every 3 s, and the
steady 0.5 MB a minute seen at an admin's pace (scripts/soak.py; Textualize/textual#6666)."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

from cephtui.ui.compat import FooterKey, bindings_ready


class CephFooter(Footer):
    def watch_compact(self, old: bool, new: bool) -> None:
        if old != new and self.is_attached:  # the keys copy it when made (see _key)
            self.call_after_refresh(self.recompose)

    def _key(self, key: FooterKey) -> FooterKey:
        key.set_reactive(FooterKey.compact, self.compact)
        return key

    def compose(self) -> ComposeResult:
        if not bindings_ready(self):
            return
        active = self.screen.active_bindings
        shown = [a for a in active.values() if a.binding.show]
        shown.sort(key=lambda a: a.node is not self.app)  # stable: the app's own keys first, then the tab's
        seen: set[str] = set()
        for _node, binding, enabled, tooltip in shown:
            if binding.action in seen:
                continue
            seen.add(binding.action)
            yield self._key(FooterKey(binding.key, self.app.get_key_display(binding), binding.description,
                                      binding.action, disabled=not enabled, tooltip=tooltip or binding.description))
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                yield FooterKey(palette.binding.key, self.app.get_key_display(palette.binding),
                                palette.binding.description, palette.binding.action, classes="-command-palette",
                                disabled=not palette.enabled,
                                tooltip=palette.binding.tooltip or palette.binding.description)
