"""The CephFS failure as it happens in life, on a sandbox: a client holding a file's caps stops answering (SIGSTOP,
every thread), another client opens that file and waits at the MDS. The File systems tab's slow requests (`s`)
name the stopped client as the one the open waits on, as `dump_ops_in_flight` and `dump tree` say it, and `E`
there evicts it through the confirmation; then the open completes, and no other client is evicted."""
from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster.test_cephfs import FS, cli
from tests.conftest import ROOT, Sandbox, own_sandbox, stop_process, wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.tier]
CLIENT = ["/usr/bin/python3", str(ROOT / "scripts" / "cephfs_client.py")]
# A stopped client's session goes stale at the file system's session_timeout (60 s by default), and the MDS may then
# let the waiting open go on by itself: the test evicts well before that, and lengthens it so that a loaded machine
# cannot make the eviction moot (the waiter is checked to be still waiting when the eviction is sent).
SESSION_TIMEOUT = 180


@pytest.fixture(scope="module")
def fsbox() -> Iterator[Sandbox]:
    with own_sandbox("ctt-fsstuck-", "--osds", "3", "--pool", "rbd:8", "--fs", FS) as box:
        box.ceph("fs", "set", FS, "session_timeout", str(SESSION_TIMEOUT))
        yield box


def start(box: Sandbox, mode: str, path: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLIENT, str(box.conf), mode, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def session_id(box: Sandbox, pid: int) -> int:
    return int(wait_until(lambda: next((s["id"] for s in cli(box, "tell", f"mds.{FS}:0", "session", "ls")
                                        if s["client_metadata"].get("pid") == str(pid)), None), 30,
                          f"the session of pid {pid}"))


async def test_the_client_a_request_waits_on_is_named_and_evicted(fsbox: Sandbox, tmp_path: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from cephtui.ui.panes.filesystems import FileSystemsPane
    from cephtui.ui.screens.confirm import ConfirmScreen
    from cephtui.ui.screens.fs_requests import FsRequestsScreen
    from tests.ui.helpers import app_factory, click, text_of, wait_for

    holder, bystander = start(fsbox, "hold", "/stuck.txt"), start(fsbox, "hold", "/other.txt")
    waiter: subprocess.Popen[str] | None = None
    audit = tmp_path / "audit.log"
    monkeypatch.setenv("CEPHTUI_AUDIT_LOG", str(audit))
    try:
        for p in (holder, bystander):
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        held, other = session_id(fsbox, holder.pid), session_id(fsbox, bystander.pid)
        stop_process(holder.pid)
        waiter = start(fsbox, "try", "/stuck.txt")
        wanted = session_id(fsbox, waiter.pid)

        def waiting() -> list[dict[str, Any]]:
            ops = cli(fsbox, "tell", f"mds.{FS}:0", "dump_ops_in_flight")["ops"]
            return [o for o in ops if f"client.{wanted}:" in o["description"]]
        wait_until(waiting, 30, "the waiter's open in flight at rank 0")
        # What the MDS itself says of the file: the stopped client's caps are being taken back (issued > pending).
        [inode] = cli(fsbox, "tell", f"mds.{FS}:0", "dump", "tree", "/stuck.txt", "0")
        [cap] = [c for c in inode["client_caps"] if c["client_id"] == held]
        assert cap["issued"] != cap["pending"], cap
        with app_factory(fsbox.conf) as make:
            app = make()
            async with app.run_test(size=(160, 48)) as pilot:
                await wait_for(pilot, lambda: app.snapshot is not None, 20, "a first snapshot")
                await pilot.press(":", "f", "s", "enter")
                pane = app.query_one(FileSystemsPane)
                await wait_for(pilot, lambda: {held, other, wanted} <= {s.id for s in pane.vtable.rows}, 30,
                               "the three clients")
                await pilot.press("s")
                await wait_for(pilot, lambda: isinstance(app.screen, FsRequestsScreen)
                               and any(r.client_id == wanted for r in app.screen.got.requests), 20,
                               "the waiter's request")
                board = app.screen
                assert isinstance(board, FsRequestsScreen)
                [request] = [r for r in board.got.requests if r.client_id == wanted]
                assert request.waiting and board.got.path(request) == "/stuck.txt"
                assert [h.client_id for h in board.got.blockers(request)] == [held]
                assert request.description in {o["description"] for o in waiting()}  # the MDS's own words
                summary = " ".join(text_of(app, "#fsreq-summary").split())
                assert f"client.{held}" in summary and "E evicts it" in summary, summary
                table = board.query_one("#fsreq-table")
                row = next(i for i, r in enumerate(board.got.requests) if r.client_id == wanted)
                assert f"client.{held}" in str(table.get_row_at(row)[3])  # type: ignore[attr-defined]
                table.focus()
                await pilot.press("home", *["down"] * row)
                await pilot.press("E")
                await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the confirmation")
                confirm = app.screen
                assert isinstance(confirm, ConfirmScreen)
                shown = " ".join(text_of(app, "#confirm-commands").split())
                assert f"$ ceph tell mds.{FS}:0 client evict id={held}" in shown, shown
                assert f"1 request waits on it (the oldest: client.{wanted} " in shown, shown
                await pilot.press(*f"client.{held}")
                assert waiter.poll() is None and waiting(), "the open ended before the eviction: nothing proven"
                await pilot.press("enter")
                await wait_for(pilot, lambda: confirm.state == "done", 30, "the eviction's answer")
                assert confirm.outcome.ok, text_of(app, "#confirm-result")
                await wait_for(pilot, lambda: waiter.poll() is not None, 30, "the waiting open to complete")
                assert waiter.stdout is not None and waiter.stdout.read().strip() == "wrote"
                await click(pilot, "#confirm-run")  # Close: back to the requests, read again
                await wait_for(pilot, lambda: app.screen is board
                               and not any(r.client_id == wanted for r in board.got.requests), 20,
                               "the waiter's request gone from the list")
        left = {s["id"] for s in cli(fsbox, "tell", f"mds.{FS}:0", "session", "ls")}
        assert held not in left and other in left  # only the one it waited on
        lines = [json.loads(x) for x in audit.read_text().splitlines()]
        assert (lines[-1]["cli"], lines[-1]["ok"]) == (f"ceph tell mds.{FS}:0 client evict id={held}", True)
    finally:
        for p in (holder, bystander, waiter):
            if p is not None and p.poll() is None:
                os.kill(p.pid, signal.SIGCONT)
                p.kill()
            if p is not None:
                p.wait()
        subprocess.run(["ceph", "-c", str(fsbox.conf), "osd", "blocklist", "clear"], capture_output=True, timeout=60)
