"""Keys that arrive together, on a real terminal: the real `cephtui` in a tmux of the test's own.

A burst is written to the app's terminal in one write (tmux's paste-buffer without -p writes the buffer to
the pane's pty as it is: no bracketed paste), so the app reads it in one read, as it reads keys typed
while it was busy, keys over a slow ssh link, or keys typed before it started. Without compat.KeysInOrder
the reweight form submits `0.` (a reweight to 0) and the jump lands on the wrong OSD; without typeahead.hold
the Enter of `:osd.1⏎` typed during the start never arrives (docs/textual-keys.md).

Nothing here changes the cluster: every confirmation is cancelled, and the test checks that it was.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path

import pytest

from tests.conftest import ROOT, Sandbox

pytestmark = pytest.mark.skipif(subprocess.run(["which", "tmux"], capture_output=True).returncode != 0,
                                reason="needs tmux (scripts/setup.sh installs it)")

SIZE = (120, 36)


def _tmux_version() -> tuple[int, ...]:
    out = subprocess.run(["tmux", "-V"], capture_output=True, text=True).stdout  # "tmux 3.7c", "tmux next-3.8"
    m = re.search(r"(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


# From tmux 3.6 paste-buffer passes the buffer through vis(3) unless given -S: Backspace arrived as the two
# characters `^?` and Escape as `^[` (forky's tmux 3.7c, the Tentacle chroot). Older tmux knows no -S.
RAW_PASTE = ("-S",) if subprocess.run(["which", "tmux"], capture_output=True).returncode == 0 \
    and _tmux_version() >= (3, 6) else ()

_servers = count()
# The row under the table's cursor: its text has a background colour set before the OSD's name.
CURSOR_ROW = re.compile(r"\x1b\[[0-9;]*\b48;[0-9;]*m[^\x1b]*● (osd\.\d+)")


class Terminal:
    """cephtui in a tmux server of its own (other users of tmux cannot touch it, it ends only its own)."""

    def __init__(self, conf: Path) -> None:
        self.socket = f"cephtui-keys-{os.getpid()}-{next(_servers)}"
        env = {k: os.environ[k] for k in ("CEPHTUI_AUDIT_LOG", "CEPHTUI_STATE_DIR", "CEPHTUI_DATA_DIR",
                                          "XDG_CONFIG_HOME") if k in os.environ}
        env["PYTHONPATH"] = str(ROOT)  # this checkout's cephtui, as the tests import it
        # Without COLUMNS and LINES (the test process may carry some, and the tmux server hands its environment
        # on): the app takes the terminal's own size, as it does for an admin.
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # The app's own trace of every key (ui/compat.py, KEYLOG): shown when a screen does not come.
        self.keylog = Path(tempfile.mkstemp(prefix="cephtui-keylog-")[1])
        env["CEPHTUI_KEYLOG"] = str(self.keylog)
        app = shlex.join([sys.executable, "-m", "cephtui", "-c", str(conf), "--refresh", "1"])
        self.command = f"exec env -u COLUMNS -u LINES {assignments} {app}"
        self.started = 0.0

    def tmux(self, *args: str, data: bytes | None = None) -> str:
        res = subprocess.run(["tmux", "-L", self.socket, *args], input=data, capture_output=True, timeout=30)
        return res.stdout.decode(errors="replace")

    def start(self) -> None:
        self.tmux("new-session", "-d", "-s", "t", "-x", str(SIZE[0]), "-y", str(SIZE[1]), self.command)
        self.started = time.monotonic()

    def write(self, keys: bytes) -> None:
        """`keys` to the app's terminal in one write."""
        self.tmux("load-buffer", "-b", "burst", "-", data=keys)
        self.tmux("paste-buffer", "-d", *RAW_PASTE, "-b", "burst", "-t", "t")

    def screen(self, escapes: bool = False) -> str:
        return self.tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "t")

    def wait(self, cond: Callable[[str], bool], what: str, timeout: float = 30, escapes: bool = False) -> str:
        """The screen once `cond` holds for it; fails naming `what` (and showing the screen) after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen(escapes)
            if cond(shown):
                return shown
            if time.monotonic() > deadline:
                size = self.tmux("display-message", "-p", "-t", "t", "#{window_width}x#{window_height}").strip()
                keys = self.keylog.read_text(errors="replace").splitlines()[-40:]
                raise AssertionError(f"the terminal ({size}) did not show {what} within {timeout:.0f}s:\n"
                                     f"{re.sub(chr(27) + r'[^a-zA-Z]*[a-zA-Z]', '', shown)}\n"
                                     "the app's key trace (CEPHTUI_KEYLOG), newest last:\n" + "\n".join(keys))
            time.sleep(0.1)

    def ready(self) -> str:
        # At the terminal's full width: the tabs' long titles (under 100 columns they take short ones).
        return self.wait(lambda s: "connected" in s and "Maintenance 7" in s, "cephtui connected and painted", 60)

    def close(self) -> None:
        path = self.tmux("display-message", "-p", "#{socket_path}").strip()
        self.tmux("kill-server")
        if path.endswith(self.socket):
            Path(path).unlink(missing_ok=True)
        self.keylog.unlink(missing_ok=True)


@pytest.fixture
def terminal(sandbox: Sandbox) -> Iterator[Terminal]:
    term = Terminal(sandbox.conf)
    try:
        yield term
    finally:
        term.close()


def cursor_rows(screen: str) -> list[str]:
    """The OSD rows drawn under the cursor (a background of their own) on a screen captured with escapes."""
    return CURSOR_ROW.findall(screen)


def on_osd(name: str) -> Callable[[str], bool]:
    """The OSD tab shown, the jump prompt closed, the cursor on `name`'s row."""
    def shown(screen: str) -> bool:
        plain = re.sub(r"\x1b\[[0-9;:?]*[a-zA-Z]", "", screen)
        prompt_open = any(line.startswith(" :") for line in plain.splitlines()[-3:])
        return not prompt_open and "w Reweight" in plain and cursor_rows(screen) == [name]
    return shown


def reweight(sandbox: Sandbox, osd: int) -> float:
    return next(float(o["weight"]) for o in sandbox.ceph("osd", "dump")["osds"] if o["osd"] == osd)


@pytest.mark.parametrize("after", [0.0, 0.1, 0.2, 0.3])
def test_a_jump_typed_while_cephtui_starts_is_done(terminal: Terminal, after: float) -> None:
    """`:osd.1⏎` typed 0–0.3 s after launch, long before the app can read keys (at 0 mostly before
    typeahead.hold, so cooked by the terminal; later held as typed): the jump is done, in order (the
    prompt does not stay open with osd.1 in it)."""
    terminal.start()
    time.sleep(max(0.0, terminal.started + after - time.monotonic()))  # the moment of typing: the test's input
    terminal.write(b":osd.1\r")
    assert "connected" not in terminal.screen(), "cephtui was already up: the keys were not typed during its start"
    terminal.wait(on_osd("osd.1"), "the jump to osd.1 done (OSD tab, cursor on osd.1, prompt closed)", 60,
                  escapes=True)


def test_a_jump_typed_in_one_burst_lands_where_typed(terminal: Terminal) -> None:
    """`:osd.2`, Backspace, `1`, Enter in one read: the jump goes to osd.1 (out of order it went to osd.2)."""
    terminal.start()
    terminal.ready()
    terminal.write(b":osd.2\x7f1\r")
    terminal.wait(on_osd("osd.1"), "the jump to osd.1", escapes=True)


def test_a_jump_and_the_keys_for_that_osd_in_one_read(terminal: Terminal, sandbox: Sandbox) -> None:
    """`:osd.1⏎w⌫0.5⏎` in one write, the tab not shown before: the reweight of osd.1 to 0.5 is offered (found
    by hand: the cursor landed on osd.1 but `w` came before the OSD tree and was lost; `5` then switched to
    Pools and Enter opened a pool)."""
    terminal.start()
    terminal.ready()
    terminal.write(b":osd.1\rw\x7f0.5\r")
    shown = terminal.wait(lambda s: "Confirm: Reweight osd.1 to 0.5" in s, "the confirmation of osd.1 at 0.5")
    assert "$ ceph osd reweight 1 0.5" in shown
    terminal.write(b"\x1b")  # cancel: nothing runs
    terminal.wait(lambda s: "Confirm" not in s, "the confirmation closed")
    assert reweight(sandbox, 1) == 1.0


def test_the_reweight_form_takes_a_burst_as_typed(terminal: Terminal, sandbox: Sandbox) -> None:
    """The issue's case: `w` on osd.1, then Backspace, `0.5` and Enter in one read. The confirmation offers
    `ceph osd reweight 1 0.5`, not the full drain `... 1 0` that `0.` read as 0 made of it."""
    assert reweight(sandbox, 1) == 1.0
    terminal.start()
    terminal.ready()
    terminal.write(b":osd.1\r")
    terminal.wait(on_osd("osd.1"), "the cursor on osd.1", escapes=True)
    terminal.write(b"w")
    terminal.wait(lambda s: "Reweight osd.1" in s and "$ ceph osd reweight 1 1" in s, "the reweight form at 1")
    # Half-typed first: Backspace, `0.`, Enter in one read. Refused, said so, no confirmation.
    terminal.write(b"\x7f0.\r")
    shown = terminal.wait(lambda s: "incomplete number" in s, "the form refusing '0.'")
    assert "Confirm" not in shown and "reweight 1 0" not in shown
    # Then the rest of the number and Enter, together.
    terminal.write(b"5\r")
    shown = terminal.wait(lambda s: "Confirm: Reweight osd.1 to 0.5" in s, "the confirmation of 0.5")
    assert "$ ceph osd reweight 1 0.5" in shown
    terminal.write(b"\x1b")  # cancel: nothing runs
    terminal.wait(lambda s: "Confirm" not in s and "Reweight osd.1" not in s, "the dialogs closed")
    assert reweight(sandbox, 1) == 1.0


def test_the_reweight_form_takes_backspace_digits_and_enter_in_one_read(terminal: Terminal,
                                                                         sandbox: Sandbox) -> None:
    """Backspace, `0.5`, Enter: one write, as the issue typed it."""
    terminal.start()
    terminal.ready()
    terminal.write(b":osd.1\r")
    terminal.wait(on_osd("osd.1"), "the cursor on osd.1", escapes=True)
    terminal.write(b"w")
    terminal.wait(lambda s: "Reweight osd.1" in s and "$ ceph osd reweight 1 1" in s, "the reweight form at 1")
    terminal.write(b"\x7f0.5\r")
    shown = terminal.wait(lambda s: "Confirm: Reweight osd.1 to" in s, "the confirmation")
    assert "Confirm: Reweight osd.1 to 0.5" in shown and "$ ceph osd reweight 1 0.5" in shown, shown
    terminal.write(b"\x1b")
    terminal.wait(lambda s: "Confirm" not in s and "Reweight osd.1" not in s, "the dialogs closed")
    assert reweight(sandbox, 1) == 1.0


def test_a_tab_a_form_and_its_name_in_one_read(terminal: Terminal, sandbox: Sandbox) -> None:
    """A tab's digit, the key that opens its form and the name, in one read: every key lands where it was
    typed. Before, the key after a tab switch reached no pane (the new pane takes the focus after its
    TabActivated) and the first key of a form opened by a flow reached the pane (`ct-ec21` became `t-ec21`
    in CI)."""
    terminal.start()
    terminal.ready()
    terminal.write(b"5cct-pool")  # the second `c` is the name's first letter
    shown = terminal.wait(lambda s: "Create a pool" in s and "ct-pool" in s, "the pool wizard holding ct-pool")
    assert re.search(r"Pool name\s+▊\s+ct-pool\s", shown), shown
    terminal.write(b"\x1b")
    terminal.wait(lambda s: "Create a pool" not in s, "the wizard closed")
    # CRUSH reads its map when its tab opens; a form key before that reads it first, and the keys behind it
    # wait for that read (panes/crush.py _map_first): the tab, the form and the name in one read too.
    terminal.write(b"4ect-ec21")
    # The preview follows the field one message later (Input.Changed): wait for both, then the field holds
    # exactly what was typed (a lost or misplaced key shows there).
    shown = terminal.wait(lambda s: "Create an erasure-code profile" in s and "erasure-code-profile set ct-ec21 " in s,
                          "the EC profile form and its preview holding ct-ec21")
    assert re.search(r"Profile name\s+▊\s+ct-ec21\s", shown), shown
    terminal.write(b"\x1b")
    terminal.wait(lambda s: "Create an erasure-code profile" not in s, "the form closed")
    # The reweight form, its opening key and the value in one read: the confirmation offers what was typed.
    terminal.write(b":osd.1\r")
    terminal.wait(on_osd("osd.1"), "the cursor on osd.1", escapes=True)
    terminal.write(b"w\x7f0.5\r")
    shown = terminal.wait(lambda s: "Confirm: Reweight osd.1 to" in s, "the confirmation")
    assert "$ ceph osd reweight 1 0.5" in shown, shown
    terminal.write(b"\x1b")
    terminal.wait(lambda s: "Confirm" not in s and "Reweight osd.1" not in s, "the dialogs closed")
    assert reweight(sandbox, 1) == 1.0
    assert "ct-ec21" not in sandbox.ceph("osd", "erasure-code-profile", "ls")
    assert "ct-pool" not in [p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")]


def test_a_wizard_step_its_enter_and_the_next_steps_keys_in_one_read(terminal: Terminal, sandbox: Sandbox) -> None:
    """`c vmhost4 ⏎ ZZ` on the Users tab in one read: the name in step 1, `ZZ` in step 2's first field (it named
    the user client.vmhost4ZZ); `c vmhost3 ⏎ ⏎` reaches the confirmation (it stopped at step 2)."""
    terminal.start()
    terminal.ready()
    terminal.write(b"6")
    # The footer follows the focus a frame after the tab's content (the pane takes the focus after its
    # TabActivated): a key typed between the two reaches no pane. Wait for what the footer says, as a person sees.
    # The users themselves may not be read yet ("client.admin" is the tab's "connected as"): `c` then reads them
    # and the keys behind it wait for that read (two clean-clone CI runs sent the name to the tab: the `4` switched
    # to CRUSH; tests/ui/test_keybursts_look.py holds the read back to show it every time).
    terminal.wait(lambda s: "client.admin" in s and "Create user" in s.splitlines()[-1], "the Users tab, focused")
    terminal.write(b"cvmhost4\rZZ")
    shown = terminal.wait(lambda s: "client.vmhost4: step 2 of 2" in s and re.search(r"mon cap\s+▊\s+ZZ\s", s),
                          "step 2 of client.vmhost4 with ZZ in its mon cap")
    assert "vmhost4ZZ" not in shown, shown
    terminal.write(b"\x1b")
    terminal.wait(lambda s: "step 2 of 2" not in s, "the wizard closed")
    terminal.write(b"cvmhost3\r\r")
    shown = terminal.wait(lambda s: "$ ceph auth get-or-create client.vmhost3 mon 'profile rbd'" in s,
                          "the confirmation of client.vmhost3")
    terminal.write(b"\x1b")
    terminal.wait(lambda s: "get-or-create client.vmhost3" not in s, "the confirmation cancelled")
    users = [e["entity"] for e in sandbox.ceph("auth", "ls")["auth_dump"]]
    assert "client.vmhost3" not in users and "client.vmhost4" not in users


def test_a_jump_then_a_form_that_reads_first_in_one_read(terminal: Terminal, sandbox: Sandbox) -> None:
    """`:images ⏎`, then `s mysnap ⏎` and `e 3G ⏎` each in one read: each form reads the image first, and the
    keys behind its key wait for it (the snapshot kept its default name, and `3` switched to the OSDs tab).
    `:pools ⏎ c poolx ⏎ 4` in one read: the wizard's second step holds size 4 (it named the pool poolx4)."""
    subprocess.run(["rbd", "-c", str(sandbox.conf), "create", "--size", "64M", "rbd/ctk-img"], check=True,
                   capture_output=True, timeout=60)
    try:
        terminal.start()
        terminal.ready()
        terminal.write(b":images\r")
        terminal.wait(lambda s: "ctk-img" in s and "images · by name" in s, "the Images tab with ctk-img")
        terminal.write(b"smysnap\r")
        shown = terminal.wait(lambda s: "$ rbd snap create rbd/ctk-img@mysnap" in s, "the snapshot's confirmation")
        terminal.write(b"\x1b")
        terminal.wait(lambda s: "snap create" not in s, "the confirmation cancelled")
        terminal.write(b"e\x153G\r")
        shown = terminal.wait(lambda s: "$ rbd resize --size 3G rbd/ctk-img" in s, "the resize's confirmation")
        assert "OSD tree" not in shown, shown
        terminal.write(b"\x1b")
        terminal.wait(lambda s: "rbd resize" not in s, "the confirmation cancelled")
        terminal.write(b":pools\rcpoolx\r4")
        terminal.wait(lambda s: "Create a pool — step 2 of 3" in s and re.search(r"size \(copies\)\s+▊\s+4\s", s)
                      is not None, "the pool wizard's second step holding size 4")
        terminal.write(b"\x1b")
    finally:
        subprocess.run(["rbd", "-c", str(sandbox.conf), "rm", "rbd/ctk-img"], capture_output=True, timeout=60)
    assert not [s for s in subprocess.run(["rbd", "-c", str(sandbox.conf), "ls", "rbd"], capture_output=True,
                                          text=True, timeout=60).stdout.split() if s == "ctk-img"]
    assert "poolx" not in [p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")]
