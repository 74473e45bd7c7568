"""The one way a mutating action reaches the cluster: show the command, confirm, run, report.

The dialog lists the exact `ceph` commands, optionally computes a preview in a
thread (what the change will move), asks for the typed name when the action
destroys something, then runs the operations itself and keeps the monitor's
answer on screen until the operator closes it.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Static

from cephtui.ceph import ops as ops_mod
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.ui import palette
from cephtui.ui.compat import Button  # its press ends when disabled, a new label is laid out: Run turns into Close
from cephtui.ui.dialog_types import Outcome
from cephtui.ui.screens.dialog import Dialog
from cephtui.ui.widgets.preview_view import PreviewUnavailable

log = logging.getLogger("cephtui")
# A command sent whose answer did not come within the op timeout: said so, never as a refusal.
NO_ANSWER = "no answer: "

def same_names(typed: str, wanted: str) -> bool:
    """The typed confirmation: names in the same order; commas and runs of spaces do not matter."""
    def norm(s: str) -> list[str]:
        return [w for w in re.split(r"[\s,]+", s.strip()) if w]
    return bool(wanted.strip()) and norm(typed) == norm(wanted)


def impact_of(operations: Sequence[ops_mod.Operation], preview_state: str, preview_label: str | None = None
              ) -> tuple[str, str]:
    """(Impact text, palette spec): from the preview when there is one, else from what the commands are.

    Never a guess: a previewed change says what the preview computed; a change that touches no PG
    mapping says no data moves; a flag says what it does to IO, failure detection or recovery.
    """
    destroys = any(op.impact == ops_mod.DESTROYS for op in operations)
    effects = [op.effect for op in operations if op.effect]
    prefix = "destroys; " if destroys else ""
    style = "bold err" if destroys else ""
    if any(op.previewable for op in operations):
        if preview_state == "running":
            return prefix + "computing the PG-movement preview…", style or "muted"
        if preview_state == "ready" and preview_label:
            moves = not preview_label.startswith("no data moves")
            return prefix + preview_label, style or ("bold warn" if moves else "ok")
        if preview_state in ("failed", "none"):
            return prefix + "unknown: no PG-movement preview (see below); this can move data", style or "bold warn"
        return prefix + "see the preview below", style or "warn"
    if any(op.impact == ops_mod.MOVES_DATA for op in operations):
        return (prefix + "moves data (not previewed: a pool's size, pg_num or rule decides where its data lives)",
                style or "bold warn")
    danger = any(op.confirm_text and op.effect for op in operations)
    if effects:
        return prefix + "; ".join(effects), style or ("bold err" if danger else "ok")
    if destroys:
        return "destroys", "bold err"
    return "no data moves (no PG-movement preview needed: nothing here changes CRUSH, OSD weights or in/out)", "ok"


def command_block(operations: Sequence[ops_mod.Operation]) -> Text:
    t = Text()
    for op in operations:
        t.append("$ ", style=palette.style("muted"))
        t.append(op.cli + "\n", style=palette.style("bold info"))
    return t


class ConfirmScreen(Dialog[Outcome]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ConfirmScreen #confirm-title { text-style: bold; margin-bottom: 1; }
    ConfirmScreen #confirm-body { height: auto; max-height: 30; }
    ConfirmScreen #confirm-impact { height: auto; }
    ConfirmScreen #confirm-preview { height: auto; margin-top: 1; }
    ConfirmScreen #confirm-typed { margin-top: 1; }
    ConfirmScreen #confirm-result { height: auto; margin-top: 1; }
    """

    def __init__(self, client: Cluster, operations: Sequence[ops_mod.Operation],
                 audit: ops_mod.AuditLog | None = None, explain: RenderableType | str = "",
                 preview: Callable[[], RenderableType] | None = None,
                 undo: Callable[[Sequence[ops_mod.Operation]], list[ops_mod.Operation]] | None = None,
                 before_run: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.client = client
        # Called on the run's thread once Run is pressed, before the first command: "" goes on, anything else is
        # why nothing is sent (a workflow record that must be in the cluster first, and may be refused there).
        self.before_run = before_run
        self.operations = tuple(operations)
        self.undo_for = undo  # given the steps that succeeded before a failure: how to take them back
        self.undo_ops: list[ops_mod.Operation] = []
        self.audit = audit
        self.explain = explain
        self.preview_fn = preview
        self.typed = next((op.confirm_text for op in self.operations if op.confirm_text), None)
        self.preview_state = "none" if preview is None else "running"  # running / ready / failed / none
        self.second_yes = False
        self.state = "asking"  # asking / running / done
        self.outcome = Outcome(False)
        self.stale_note = ""  # set when the preview was recomputed because the cluster changed under it

    def compose(self) -> ComposeResult:
        title = self.operations[0].title if len(self.operations) == 1 else f"{len(self.operations)} commands"
        with Vertical():
            yield Static(Text(f"Confirm: {title}"), id="confirm-title")
            with VerticalScroll(id="confirm-body"):
                yield Static(self._summary(), id="confirm-commands")
                yield Static(self._impact(), id="confirm-impact")
                if self.preview_fn is not None:
                    yield Static(Text("Computing the preview: mapping every PG with the current and the new "
                                      "CRUSH map…", style="italic"), id="confirm-preview")
                yield Static("", id="confirm-result")
            if self.typed:
                yield Input(placeholder=f"type {self.typed} to confirm", id="confirm-typed")
            with Horizontal():
                yield Button("Undo", id="confirm-undo", variant="warning")
                yield Button("Cancel", id="confirm-cancel")
                yield Button("Run", id="confirm-run", variant="error" if self.typed else "primary",
                             disabled=self.preview_state == "running")

    def _impact(self, label: str | None = None) -> Text:
        text, spec = impact_of(self.operations, self.preview_state, label)
        return Text.assemble(("Impact: ", "bold"), (text, palette.style(spec)))

    def _summary(self) -> Group:
        parts: list[RenderableType] = [Text("This runs, in order:", style="bold"), command_block(self.operations)]
        if self.explain:
            parts.append(Text(self.explain) if isinstance(self.explain, str) else self.explain)
        if self.typed:
            op = next(op for op in self.operations if op.confirm_text)
            why = "This cannot be undone." if op.impact == ops_mod.DESTROYS else (op.confirm_why or "")
            parts.append(Text(f"{why} Type '{self.typed}' below to confirm.".strip(),
                              style=palette.style("bold err")))
        return Group(*parts)

    def on_mount(self) -> None:
        self.query_one("#confirm-undo", Button).display = False
        if self.typed:
            self.query_one("#confirm-typed", Input).focus()
        elif self.preview_fn is None:
            self.query_one("#confirm-run", Button).focus()
        if self.preview_fn is not None:
            self._compute_preview()

    # ------------------------------------------------------------ preview
    @work(thread=True, exit_on_error=False)
    def _compute_preview(self) -> None:
        assert self.preview_fn is not None
        try:
            result: RenderableType = self.preview_fn()
            state = "ready"
        except PreviewUnavailable as e:
            result, state = Text(f"No preview: {e}\nApplying without a preview needs a second confirmation.",
                                 style=palette.style("bold warn")), "failed"
        except CephError as e:
            result, state = Text(f"No preview: the cluster refused ({e.message}).\nApplying without a preview "
                                 "needs a second confirmation.", style=palette.style("bold warn")), "failed"
        except Exception as e:  # a preview bug must not hide the dialog
            log.exception("preview failed")
            result, state = Text(f"No preview: {e}\nApplying without a preview needs a second confirmation.",
                                 style=palette.style("bold warn")), "failed"
        self.app.call_from_thread(self._show_preview, result, state)

    def _show_preview(self, result: RenderableType, state: str) -> None:
        self.preview_state = state
        label = getattr(self.preview_fn, "impact", None)
        self.query_one("#confirm-impact", Static).update(self._impact(label() if callable(label) else None))
        if self.stale_note:
            result = Group(Text(f"⚠ Recomputed: the cluster changed since the first preview ({self.stale_note}). "
                                "Check the numbers below, then press Run again.",
                                style=palette.style("bold warn")), result)
        self.query_one("#confirm-preview", Static).update(result)
        run = self.query_one("#confirm-run", Button)
        run.disabled = False
        self.query_one("#confirm-cancel", Button).disabled = False
        if state == "failed":
            run.label = "Apply without preview"
        if not self.typed:
            run.focus()

    # ------------------------------------------------------------ run
    @on(Button.Pressed, "#confirm-cancel")
    def action_cancel(self) -> None:
        if self.state != "running":
            self.dismiss(self.outcome)

    @on(Input.Submitted, "#confirm-typed")
    def _typed_submitted(self) -> None:
        self._run_pressed()

    @on(Button.Pressed, "#confirm-run")
    def _run_pressed(self) -> None:
        if self.state == "done":
            self.dismiss(self.outcome)
            return
        if self.state != "asking":
            return
        result = self.query_one("#confirm-result", Static)
        if self.preview_state == "running":  # Enter in the typed field while the preview computes
            if not self.stale_note:  # a recomputation keeps its own "nothing was sent" message
                result.update(Text("The preview is still being computed: nothing was sent. Run is enabled once "
                                   "it is shown.", style=palette.style("warn")))
            return
        if self.typed and not same_names(self.query_one("#confirm-typed", Input).value, self.typed):
            result.update(Text(f"Type exactly '{self.typed}' to confirm. Nothing was sent.",
                               style=palette.style("bold err")))
            return
        if self.preview_state == "failed" and not self.second_yes:
            self.second_yes = True
            self.query_one("#confirm-run", Button).label = "Yes, apply without preview"
            result.update(Text("Press again to apply without knowing how much data moves.",
                               style=palette.style("bold warn")))
            return
        self.state = "running"
        self.query_one("#confirm-run", Button).disabled = True
        self.query_one("#confirm-cancel", Button).disabled = True
        result.update(Text("Running…", style="italic"))
        self._run(self.operations)

    @work(thread=True, exit_on_error=False, description="run confirmed commands")
    def _run(self, operations: tuple[ops_mod.Operation, ...]) -> None:
        # The preview was computed against one osdmap; an OSD may have died (or come back) since.
        # Applying then would act on numbers that no longer hold: say so, recompute, ask again.
        stale = getattr(self.preview_fn, "stale", None)
        if operations is self.operations and self.preview_state == "ready" and callable(stale):
            try:
                changed = stale()
            except CephError as e:  # cannot tell: the operations themselves will meet the same cluster
                log.warning("could not check the preview's osdmap: %s", e.message)
                changed = None
            if changed:
                self.app.call_from_thread(self._preview_stale, changed)
                return
        if self.before_run is not None and operations is self.operations:
            try:
                why = self.before_run()
            except Exception as e:
                log.exception("the step before the commands failed")
                why = f"internal error: {e!r}"
            if why:
                self.app.call_from_thread(self._not_sent, why)
                return
            self.before_run = None  # once: an undo or a second run does not repeat it
        results: list[tuple[ops_mod.Operation, bool, str]] = []
        for i, op in enumerate(operations):
            if len(operations) > 1:  # step by step: the operator sees where a long sequence is
                self.app.call_from_thread(self._progress, tuple(results), operations, i)
            try:
                message = ops_mod.run(self.client, op, self.audit)
                results.append((op, True, message))
            except CephError as e:
                # Refused for caps: name the identity and the cap, from the cluster's command table.
                hint = ops_mod.explain_refusal(op, e, identity=self.client.spec.name,
                                               cap=self.client.required_cap(op.prefix) if e.errno == 13 else "")
                said = f"{e.message} [errno {e.errno}]" + (f"\n{hint}" if hint else "")
                results.append((op, False, NO_ANSWER + said if ops_mod.is_unanswered(e) else said))
                break  # later steps assume the earlier ones happened
            except Exception as e:
                log.exception("operation failed")
                results.append((op, False, f"internal error: {e!r}"))
                break
        self.app.call_from_thread(self._done, tuple(results), operations)

    def _preview_stale(self, changed: str) -> None:
        self.state, self.preview_state, self.stale_note, self.second_yes = "asking", "running", changed, False
        self.query_one("#confirm-impact", Static).update(self._impact())
        self.query_one("#confirm-preview", Static).update(Text(
            f"⚠ The preview above no longer matches the cluster ({changed}): its numbers were computed for the "
            "old map. Recomputing against the current one…", style=palette.style("bold warn")))
        self.query_one("#confirm-result", Static).update(Text("Nothing was sent: the preview was stale.",
                                                              style=palette.style("bold warn")))
        self.query_one("#confirm-cancel", Button).disabled = False
        self._compute_preview()

    @staticmethod
    def _report(results: Sequence[tuple[ops_mod.Operation, bool, str]], operations: Sequence[ops_mod.Operation],
                running: int | None = None) -> Text:
        t = Text()
        for i, (op, ok, message) in enumerate(results):
            step = f"{i + 1}/{len(operations)} " if len(operations) > 1 else ""
            unanswered = not ok and message.startswith(NO_ANSWER)  # sent, not refused: it may still apply
            t.append(f"✔ {step}" if ok else f"✖ {step}{NO_ANSWER if unanswered else 'refused: '}",
                     style=palette.style("bold ok" if ok else "bold err"))
            t.append(f"{op.cli}\n", style=palette.style("info"))
            if message:
                t.append(f"  {message[len(NO_ANSWER):] if unanswered else message}\n",
                         style="" if ok else palette.style("err"))
        if running is not None:
            t.append(f"… {running + 1}/{len(operations)} {operations[running].cli}\n", style="italic")
        return t

    def _progress(self, results: tuple[tuple[ops_mod.Operation, bool, str], ...],
                  operations: tuple[ops_mod.Operation, ...], running: int) -> None:
        self.query_one("#confirm-result", Static).update(self._report(results, operations, running))

    def _not_sent(self, why: str) -> None:
        self.state = "done"
        self.query_one("#confirm-result", Static).update(Text(f"✖ {why}\nNothing was sent.",
                                                              style=palette.style("bold err")))
        self.become_close("confirm-run", "confirm-cancel")

    def _done(self, results: tuple[tuple[ops_mod.Operation, bool, str], ...],
              operations: tuple[ops_mod.Operation, ...]) -> None:
        undoing = operations is not self.operations
        self.state = "done"
        if not undoing:
            self.outcome = Outcome(True, results)
        t = self._report(results, operations)
        skipped = len(operations) - len(results)
        if skipped:
            t.append(f"{skipped} later command(s) not sent.\n", style=palette.style("warn"))
        failed = results and not results[-1][1]
        done_ok = [op for op, ok, _ in results if ok]
        if failed and done_ok and not undoing:
            t.append(f"Already done: {', '.join(op.title for op in done_ok)}.\n", style=palette.style("bold warn"))
            self.undo_ops = self.undo_for(done_ok) if self.undo_for else []
            if self.undo_ops:
                t.append("Undo runs: " + "; ".join(op.cli for op in self.undo_ops) + "\n", style=palette.style("warn"))
                self.query_one("#confirm-undo", Button).display = True
        if undoing:
            self.query_one("#confirm-undo", Button).display = False
            t = Text.assemble(Text("Undo:\n", style="bold"), t)
        self.query_one("#confirm-result", Static).update(t)
        self.become_close("confirm-run", "confirm-cancel")

    @on(Button.Pressed, "#confirm-undo")
    def _undo_pressed(self) -> None:
        if self.state != "done" or not self.undo_ops:
            return
        self.state = "running"
        self.query_one("#confirm-undo", Button).disabled = True
        self.query_one("#confirm-run", Button).disabled = True
        self._run(tuple(self.undo_ops))
