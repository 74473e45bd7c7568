"""The CRUSH map as text, for experts: fetch, decompile, edit, compile, diff, preview, apply.

The map is applied with `osd setcrushmap` and the crush version it was read
at, so the mon refuses (instead of silently overwriting) when someone changed
CRUSH in the meantime.
"""
from __future__ import annotations

import difflib

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Static, TextArea

from cephtui.ceph import ops
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.crush import crushtool
from cephtui.ceph.errors import CephError
from cephtui.ui import palette
from cephtui.ui.dialog_types import readable
from cephtui.ui.screens.dialog import YesNoDialog
from cephtui.ui.services import services_of
from cephtui.ui.widgets.preview_view import PreviewJob, preview_map_for


def diff_text(old: str, new: str) -> Text:
    t = Text()
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), "running map", "edited map", lineterm="",
                                     n=2):
        role = ("ok" if line.startswith("+") else "err" if line.startswith("-")
                else "info" if line.startswith("@@") else "muted")
        t.append(line + "\n", style=palette.style(role))
    return t


def changed_lines(old: str, new: str) -> int:
    """Lines added or removed between two texts (what a discard would lose)."""
    return sum(1 for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---")))


class DiscardScreen(YesNoDialog):
    """Unsaved edits: discard them (True) or keep editing (False). Keep is the default, as in an editor."""

    BINDINGS = [Binding("escape", "no", "Keep editing"), Binding("n", "no", "Keep editing", show=False),
                Binding("y", "yes", "Discard", show=False)]
    YES, NO, FOCUS = "discard-yes", "discard-keep", "discard-keep"  # enter keeps the edits
    DEFAULT_CSS = """
    DiscardScreen > Vertical { width: 72; border: thick $warning; }
    DiscardScreen #discard-question { text-style: bold; }
    """

    def __init__(self, question: str, detail: str, verb: str) -> None:
        super().__init__()
        self.question, self.detail, self.verb = question, detail, verb

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.question), id="discard-question")
            yield Static(Text(self.detail), id="discard-detail")
            with Horizontal(id="discard-buttons"):
                yield Button("Keep editing (n)", id="discard-keep", variant="primary")
                yield Button(f"{self.verb} (y)", id="discard-yes", variant="error")


class CrushEditorScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "compile", "Compile + diff", priority=True),
        Binding("ctrl+a", "apply", "Preview + apply", priority=True),
        Binding("ctrl+r", "reload", "Reload from cluster", priority=True),
        Binding("escape", "close", "Close"),
    ]
    DEFAULT_CSS = """
    CrushEditorScreen #editor-main { height: 1fr; }
    CrushEditorScreen TextArea { width: 3fr; }
    CrushEditorScreen #editor-side { width: 2fr; }
    CrushEditorScreen #editor-status { height: auto; }
    """

    def __init__(self, client: Cluster) -> None:
        super().__init__()
        self.client = client
        self.original = ""
        self.version: int | None = None
        self.compiled: bytes | None = None
        self.compiled_text: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="editor-main"):
            yield TextArea("", id="editor-text", show_line_numbers=True, soft_wrap=False, tab_behavior="indent")
            with Vertical(id="editor-side", classes="box"):
                yield Static(Text("Fetching the map (osd getcrushmap)…", style="italic"), id="editor-status")
                with VerticalScroll():
                    yield Static("", id="editor-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#editor-side").border_title = "Compiler / diff"
        missing = crushtool.missing_tools()
        if "crushtool" in missing:
            self._status(Text("crushtool is not installed (apt install ceph-base): the text editor needs it to "
                              "decompile and compile maps.", style=palette.style("bold err")))
            return
        self._load()

    def _status(self, text: Text | str) -> None:
        self.query_one("#editor-status", Static).update(text)

    # ------------------------------------------------------------ unsaved edits
    @property
    def text(self) -> str:
        return self.query_one("#editor-text", TextArea).text

    @property
    def dirty(self) -> bool:
        """Edits the cluster does not have: the text differs from the map last read from it."""
        return self.text != self.original

    async def _may_discard(self, question: str, verb: str) -> bool:
        """Nothing unsaved, or the operator agreed to lose the unsaved edits (await it from a worker)."""
        if not self.dirty:
            return True
        n = changed_lines(self.original, self.text)
        detail = (f"{n} line{'' if n == 1 else 's'} differ from the map read at crush version {self.version}; "
                  "nothing of them was applied to the cluster.")
        discard: bool | None = await self.app.push_screen_wait(DiscardScreen(question, detail, verb))
        return bool(discard)

    # ------------------------------------------------------------ load
    @work(group="crush-editor-flow", description="reload the map")
    async def action_reload(self) -> None:
        if await self._may_discard("Reload the map from the cluster and discard your edits?", "Discard and reload"):
            self._reload()

    def _reload(self) -> None:
        self._status(Text("Fetching the map (osd getcrushmap)…", style="italic"))
        self._load()

    @work(thread=True, exclusive=True, group="crush-editor", exit_on_error=False, description="crush editor")
    def _load(self) -> None:
        try:
            binary, outs = self.client.mon_raw("osd getcrushmap")
            # getcrushmap answers with the crush version on its status line; older mons did not.
            stated = outs.strip()
            version = int(stated) if stated.isdigit() else int((self.client.mon("osd dump") or {})["crush_version"])
            text = crushtool.decompile(binary)
        except (CephError, crushtool.CrushToolError, ValueError, TypeError, KeyError) as e:
            self.app.call_from_thread(self._status, Text(f"Could not read the map: {e}",
                                                         style=palette.style("bold err")))
            return
        self.app.call_from_thread(self._loaded, text, version)

    def _loaded(self, text: str, version: int) -> None:
        self.original, self.version, self.compiled = text, version, None
        area = self.query_one("#editor-text", TextArea)
        area.load_text(text)
        area.focus()
        self.query_one("#editor-text").border_title = f"CRUSH map, crush version {version}"
        self.query_one("#editor-diff", Static).update("")
        self._status(Text(f"Map at crush version {version}. Edit, then ctrl+s to compile and see the diff.",
                          style=palette.style("ok")))

    # ------------------------------------------------------------ compile / apply
    def action_compile(self) -> None:
        text = self.query_one("#editor-text", TextArea).text
        self._status(Text("Compiling…", style="italic"))
        self._compile(text)

    @work(thread=True, exclusive=True, group="crush-editor", exit_on_error=False, description="crush editor")
    def _compile(self, text: str) -> None:
        try:
            compiled = crushtool.compile_text(text)
        except crushtool.CrushCompileError as e:
            self.app.call_from_thread(self._compile_failed, e)
            return
        except crushtool.CrushToolError as e:
            self.app.call_from_thread(self._status, Text(f"crushtool failed: {readable(str(e))}",
                                                         style=palette.style("bold err")))
            return
        self.app.call_from_thread(self._compiled, text, compiled)

    def _compile_failed(self, e: crushtool.CrushCompileError) -> None:
        self.compiled = None
        # crushtool reports the last line it could parse: the mistake is there or just after it.
        where = f" near line {e.line}" if e.line else ""
        # readable(): crushtool echoes the offending line, which may be 10,000 characters or hold escapes
        self._status(Text(f"✖ The map does not compile{where}; nothing was applied.\n{readable(str(e))}",
                          style=palette.style("bold err")))
        if e.line:
            area = self.query_one("#editor-text", TextArea)
            area.move_cursor((max(e.line - 1, 0), 0))
            area.focus()

    def _compiled(self, text: str, compiled: bytes) -> None:
        self.compiled, self.compiled_text = compiled, text
        diff = diff_text(self.original, text)
        if not diff.plain:
            self._status(Text("Compiles. No change from the running map.", style=palette.style("ok")))
        else:
            self._status(Text("✔ Compiles. ctrl+a previews the data movement and applies.",
                              style=palette.style("bold ok")))
        self.query_one("#editor-diff", Static).update(diff or Text("(no differences)", style=palette.style("muted")))

    def action_apply(self) -> None:
        text = self.query_one("#editor-text", TextArea).text
        if self.compiled is None or text != self.compiled_text:
            self._status(Text("Compile first (ctrl+s): the text changed since the last compile.",
                              style=palette.style("warn")))
            return
        if text == self.original:
            self._status(Text("Nothing to apply: the map is unchanged.", style=palette.style("warn")))
            return
        op = ops.set_crush_map(self.compiled, self.version)

        self._apply(op, preview_map_for(self.client, self.compiled))

    @work(group="crush-editor-flow", description="apply the map")
    async def _apply(self, op: ops.Operation, preview: PreviewJob) -> None:
        outcome = await services_of(self).ask_confirm(
            [op], explain="The edited map replaces the running one as a whole.", preview=preview)
        if getattr(outcome, "ok", False):
            self._reload()  # the edits are the cluster's now: nothing to ask

    @work(group="crush-editor-flow", description="close the editor")
    async def action_close(self) -> None:
        if await self._may_discard("Close the editor and discard your edits?", "Discard and close"):
            self.dismiss(None)
