"""Keys typed while cephtui starts, kept for the TUI in the order they were typed.

Until Textual starts (about half a second: imports, the connection), the terminal is still in the shell's
cooked mode: the kernel echoes what is typed, edits the line, and turns Enter (CR) into LF (ICRNL). Textual
then reads that LF as ctrl+j, not Enter: `:osd.3⏎` typed in the first half-second left the jump prompt
open with `osd.3` in it. So the launcher calls `hold()` first thing: from then on the terminal passes keys
through as typed (Textual's own input mode, but Ctrl+C still interrupts), and they wait in the terminal
until Textual reads them. What was typed before `hold()` (the interpreter's own start) has already been
cooked: it is read here, its LFs turned back into the Enters they were, and handed to the app first
(`take()`, ui/compat.KeysInOrder). The terminal's own modes come back at exit (`release()`).

Standard library only: it runs before anything else is imported.
"""
from __future__ import annotations

import atexit
import fcntl
import os
import struct
import sys
import termios
from typing import Any

_original: list[Any] | None = None  # the terminal's modes before hold(), restored by release()
_fd = -1
_early = ""  # what was typed before hold(), as the terminal would have sent it in Textual's mode


def hold(fd: int | None = None) -> None:
    """Keep what is typed from now on as typed, for the TUI; read what was typed before (see the module)."""
    global _original, _fd, _early
    fd = sys.stdin.fileno() if fd is None else fd
    if _original is not None or not os.isatty(fd):
        return
    try:
        before = termios.tcgetattr(fd)
    except termios.error:
        return
    held: list[Any] = list(before)
    held[6] = list(before[6])  # the control characters: a copy, so `before` stays the terminal's own
    # As Textual's driver (drivers/linux_driver.py, _patch_lflag/_patch_iflag), but with ISIG kept: Ctrl+C
    # during the start still interrupts it.
    held[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN)
    held[0] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
    held[6][termios.VMIN], held[6][termios.VTIME] = 1, 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, held)
    except termios.error:
        return
    _original, _fd = before, fd
    atexit.register(release)
    _early = _cooked_to_raw(_read_pending(fd), before)


def _read_pending(fd: int) -> bytes:
    """The bytes waiting in the terminal (the cooked line typed so far, now readable as it stands)."""
    try:
        waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        return os.read(fd, waiting) if waiting > 0 else b""
    except OSError:
        return b""


def _cooked_to_raw(data: bytes, modes: list[Any]) -> str:
    """Undo the cooked mode's translation of Enter (CR to LF, ICRNL), the one that changes a key's meaning."""
    if modes[0] & termios.ICRNL:
        data = data.replace(b"\n", b"\r")
    return data.decode("utf-8", errors="replace")


def take() -> str:
    """What was typed before hold(), once (the app posts it ahead of what the terminal sends later)."""
    global _early
    text, _early = _early, ""
    return text


def original() -> list[Any] | None:
    """The terminal's modes from before hold() (Textual restores these at exit and on suspend), or None."""
    return _original


def release() -> None:
    """Give the terminal its own modes back (at exit, or for a command that is not the TUI)."""
    global _original
    if _original is None:
        return
    try:
        termios.tcsetattr(_fd, termios.TCSANOW, _original)
    except termios.error:
        pass
    _original = None
