"""Secrets on request only: reveal one entity's key, or export its keyring to a new 0600 file.

Neither screen keeps the secret anywhere but on screen: the key is fetched
(`auth get-key`) when the operator asks, shown, and forgotten when the modal
closes; the keyring (`auth get`) goes straight from the monitor's answer into a
file created with O_EXCL and mode 0600, never over an existing file. Both are
written to the audit log (without the secret).
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Optional

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ScreenResultType
from textual.widgets import Input, Label, Static

from cephtui.ceph import ops
from cephtui.ceph.errors import CephError
from cephtui.ui import palette
from cephtui.ui.compat import Button  # its press ends when disabled: Export turns into Close while disabled
from cephtui.ui.dialog_types import readable
from cephtui.ui.screens.dialog import Dialog

log = logging.getLogger("cephtui")


reveal_operation = ops.auth_get_key
export_operation = ops.auth_export


def default_keyring_path(entity: str) -> str:
    """Where Ceph looks for it by default ($cluster.$name.keyring), in the current directory."""
    return str(Path.cwd() / f"ceph.{entity}.keyring")


def check_export_path(text: str) -> Path:
    """The file to create: refuse an empty path, a missing directory and any existing file."""
    text = text.strip()
    if not text:
        raise ValueError("give a file path")
    if not text.isprintable():  # an ESC or a bidi override in a file name hides what is written where
        raise ValueError("the file path has control, zero-width or bidi characters")
    path = Path(os.path.expanduser(text))
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        exists = path.exists() or path.is_symlink()
        parent_ok = path.parent.is_dir()
    except OSError as e:  # ENAMETOOLONG and the like: stat() raises, and this runs at every keystroke
        raise ValueError(f"file path: {e.strerror or e}") from None
    if exists:
        raise ValueError(f"{path} exists: cephtui never overwrites a file (choose another name)")
    if not parent_ok:
        raise ValueError(f"directory {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK):
        raise ValueError(f"directory {path.parent} is not writable")
    return path


def write_new_secret_file(path: Path, data: bytes) -> None:
    """Create `path` with mode 0600 (O_EXCL: fails if anything exists there, even a symlink) and write `data`."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)  # the umask can only narrow it, but say it plainly
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    os.close(fd)


class SecretDialog(Dialog[ScreenResultType]):
    """What both secret screens share: the entity, one audit line per request (never the secret itself),
    and the answer written into the status line #`STATUS`: refused (state "failed") or what was shown."""

    STATUS = ""

    def __init__(self, client: Any, entity: str, audit: ops.AuditLog | None) -> None:
        super().__init__()
        self.client = client
        self.entity = entity
        self.audit = audit

    def _audited(self, op: ops.Operation, ok: bool, note: str) -> None:
        if self.audit is not None:
            self.audit.record(op, ok, note)

    def _answered(self, shown: Text | None, error: str, state: str) -> None:
        """`shown` in the status line and `state`; with None, `error` and state "failed"."""
        status = self.query_one(f"#{self.STATUS}", Static)
        if shown is None:
            self.state = "failed"
            status.update(Text(f"✖ {error}", style=palette.style("bold err")))
        else:
            self.state = state
            status.update(shown)


class KeyScreen(SecretDialog[None]):
    """Fetches and shows one key; nothing keeps it once closed."""

    BINDINGS = [Binding("escape,q,enter", "close", "Close")]
    DEFAULT_CSS = """
    KeyScreen > Vertical { width: 90; border: thick $warning; }
    KeyScreen #key-title { text-style: bold; margin-bottom: 1; }
    KeyScreen #key-value { margin: 1 0; }
    KeyScreen #key-note { color: $text-muted; }
    """
    STATUS = "key-value"

    def __init__(self, client: Any, entity: str, audit: ops.AuditLog | None = None) -> None:
        super().__init__(client, entity, audit)
        self.state = "loading"  # loading / shown / failed

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Key of {self.entity}"), id="key-title")
            yield Static(Text.assemble(("$ ", palette.style("muted")),
                                       (reveal_operation(self.entity).cli, palette.style("bold info"))),
                         id="key-cli")
            yield Static(Text("Asking the monitor…", style="italic"), id="key-value")
            yield Static("Anyone who sees this key can act as this user. cephtui does not keep it: closing "
                         "this window forgets it. (escape/enter closes)", id="key-note")

    def on_mount(self) -> None:
        self._fetch()

    @work(thread=True, exit_on_error=False, description="fetch one cephx key")
    def _fetch(self) -> None:
        op = reveal_operation(self.entity)
        try:
            answer = self.client.mon("auth get-key", entity=self.entity)
            key = str((answer or {}).get("key", ""))
            if not key:
                raise CephError(0, "the monitor answered without a key", "auth get-key")
        except CephError as e:
            self._audited(op, False, f"{e.message} [errno {e.errno}]")
            self.app.call_from_thread(self._answered, None, f"refused: {e.message}", "shown")
            return
        self._audited(op, True, "key shown on screen")
        self.app.call_from_thread(self._answered, Text(key, style="bold"), "", "shown")

    def action_close(self) -> None:
        self.query_one("#key-value", Static).update("")
        self.dismiss(None)


class ExportKeyringScreen(SecretDialog[Optional[str]]):
    """Asks for a path, then writes `ceph auth get ENTITY` into a new 0600 file; returns the path written."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ExportKeyringScreen #export-title { text-style: bold; margin-bottom: 1; }
    ExportKeyringScreen #export-help { color: $text-muted; margin-bottom: 1; }
    ExportKeyringScreen .form-row { height: auto; }
    ExportKeyringScreen .form-row Label { width: 12; padding-top: 1; }
    ExportKeyringScreen #export-path { width: 1fr; }
    ExportKeyringScreen #export-status { height: auto; margin-top: 1; }
    """
    STATUS = "export-status"

    def __init__(self, client: Any, entity: str, path: str, audit: ops.AuditLog | None = None) -> None:
        super().__init__(client, entity, audit)
        self.initial_path = path
        self.state = "asking"  # asking / running / done / failed
        self.written: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Export the keyring of {self.entity}"), id="export-title")
            yield Static("The file holds the secret key: it is created with mode 0600 (owner read/write only) and "
                         "an existing file is never overwritten.", id="export-help")
            with Horizontal(classes="form-row"):
                yield Label("File")
                yield Input(value=self.initial_path, id="export-path")
            yield Static("", id="export-status")
            with Horizontal(id="export-buttons"):
                yield Button("Cancel", id="export-cancel")
                yield Button("Export", id="export-ok", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()
        self._check()

    def _check(self) -> Path | None:
        status = self.query_one("#export-status", Static)
        try:
            path = check_export_path(self.query_one("#export-path", Input).value)
        except ValueError as e:
            status.update(Text(f"✖ {readable(str(e))}", style=palette.style("bold err")))
            return None
        status.update(Text.assemble(("$ ", palette.style("muted")),
                                    (export_operation(self.entity, str(path)).cli, palette.style("bold info")),
                                    ("\n(cephtui creates the file itself with mode 0600; `ceph -o` follows the umask)",
                                     palette.style("muted"))))
        return path

    @on(Input.Changed, "#export-path")
    def _changed(self) -> None:
        if self.state == "asking":
            self._check()

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-ok")
    def _submit(self) -> None:
        if self.state in ("done", "failed"):
            self.dismiss(self.written)
            return
        if self.state != "asking":
            return
        path = self._check()
        if path is None:
            return
        self.state = "running"
        self.query_one("#export-ok", Button).disabled = True
        self.query_one("#export-path", Input).disabled = True
        self.query_one("#export-status", Static).update(Text("Asking the monitor…", style="italic"))
        self._export(path)

    @work(thread=True, exit_on_error=False, description="export a keyring to a 0600 file")
    def _export(self, path: Path) -> None:
        op = export_operation(self.entity, str(path))
        try:
            keyring, _ = self.client.mon_raw("auth get", entity=self.entity)
            if not keyring.strip():
                raise CephError(0, "the monitor answered without a keyring", "auth get")
            write_new_secret_file(path, keyring if keyring.endswith(b"\n") else keyring + b"\n")
        except CephError as e:
            self._audited(op, False, f"{e.message} [errno {e.errno}]")
            self.app.call_from_thread(self._done, None, f"refused: {e.message}")
            return
        except OSError as e:
            self._audited(op, False, f"writing {path}: {e.strerror}")
            self.app.call_from_thread(self._done, None, f"could not write {path}: {e.strerror}")
            return
        except Exception as e:
            log.exception("keyring export failed")
            self.app.call_from_thread(self._done, None, f"internal error: {e!r}")
            return
        self._audited(op, True, f"keyring written to {path} (mode 0600)")
        self.app.call_from_thread(self._done, str(path), "")

    def _done(self, path: str | None, error: str) -> None:
        self.written = path
        self._answered(None if path is None else Text.assemble(
            ("✔ ", palette.style("bold ok")), (f"wrote {path} (mode 0600). ", ""),
            (f"Use it with: ceph -n {self.entity} --keyring {path} -s", palette.style("info"))), error, "done")
        self.become_close("export-ok", "export-cancel")

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        if self.state != "running":
            self.dismiss(self.written)
