"""Keys typed while cephtui starts (cephtui/typeahead.py), on a real pty: kept in order, Enter still Enter,
the terminal's own modes back at the end."""
from __future__ import annotations

import os
import pty
import select
import termios
import time
from collections.abc import Iterator

import pytest

from cephtui import launcher, typeahead
from cephtui.cli import table


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """(master, slave) of a new pty in the cooked mode a shell leaves (echo, line editing, CR to LF)."""
    master, slave = pty.openpty()
    try:
        yield master, slave
    finally:
        typeahead.release()
        typeahead.take()
        os.close(master)
        os.close(slave)


def echoed(master: int, count: int, timeout: float = 5) -> bytes:
    """The terminal's echo of what was typed, once `count` bytes of it came (the line discipline has
    then taken in every key)."""
    out = b""
    deadline = time.monotonic() + timeout
    while len(out) < count:
        assert time.monotonic() < deadline, f"echo {out!r} stopped short of {count} bytes"
        if select.select([master], [], [], 0.05)[0]:
            out += os.read(master, 4096)
    return out


def waiting(fd: int) -> int:
    import fcntl
    import struct

    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def until_queued(fd: int, count: int) -> None:
    deadline = time.monotonic() + 5
    while waiting(fd) < count:
        assert time.monotonic() < deadline, f"{count} bytes never reached the terminal's queue"
        select.select([], [], [], 0.01)


def test_keys_typed_before_and_after_hold_reach_the_tui_in_order(terminal: tuple[int, int]) -> None:
    master, slave = terminal
    cooked = termios.tcgetattr(slave)
    assert cooked[3] & termios.ICANON and cooked[0] & termios.ICRNL  # as a shell leaves it
    os.write(master, b":osd.3\r")  # typed while the interpreter starts: the line discipline cooks it
    assert echoed(master, 8) == b":osd.3\r\n"  # its echo
    typeahead.hold(slave)
    # Read back and un-cooked: the LF the terminal made of Enter is Enter again.
    assert typeahead.take() == ":osd.3\r" and typeahead.take() == ""
    held = termios.tcgetattr(slave)
    assert not held[3] & (termios.ICANON | termios.ECHO) and not held[0] & termios.ICRNL
    assert held[3] & termios.ISIG  # Ctrl+C still ends a start that takes too long
    os.write(master, b"w\x7f0.5\r")  # typed after hold: waits as typed, no echo, no line editing
    until_queued(slave, 6)
    assert os.read(slave, 4096) == b"w\x7f0.5\r"
    assert not select.select([master], [], [], 0)[0], "nothing echoed"
    typeahead.release()
    assert termios.tcgetattr(slave) == cooked and typeahead.original() is None


def test_a_half_typed_line_is_kept_too(terminal: tuple[int, int]) -> None:
    """The cooked line without its Enter yet (the kernel holds it until Enter) is readable once held."""
    master, slave = terminal
    os.write(master, b":osd")
    echoed(master, 4)  # the kernel has it
    typeahead.hold(slave)
    assert typeahead.take() == ":osd"


def test_line_editing_before_hold_is_the_terminals(terminal: tuple[int, int]) -> None:
    """Backspace typed while cooked was applied by the terminal: what is kept is what the line showed."""
    master, slave = terminal
    os.write(master, b"osd.2\x7f1")
    echoed(master, 9)  # osd.2, then the erase echoed as "\b \b", then 1
    typeahead.hold(slave)
    assert typeahead.take() == "osd.1"


def test_hold_leaves_what_is_not_a_terminal_alone() -> None:
    r, w = os.pipe()
    try:
        os.write(w, b"x\n")
        typeahead.hold(r)
        assert typeahead.original() is None and typeahead.take() == ""
        assert os.read(r, 10) == b"x\n"
    finally:
        os.close(r)
        os.close(w)


def test_the_launcher_knows_the_headless_commands() -> None:
    """The launcher holds keys only for the TUI; its list of commands is the CLI's."""
    assert launcher.HEADLESS_COMMANDS == table.NAMES
