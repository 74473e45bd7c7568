"""CephFS on a sandbox with a file system and real libcephfs clients: `cephtui fs status` and `fs clients` equal
`ceph fs status -f json` and `ceph tell mds.FS:0 session ls`, and an MDS that stops answering is a state.

The mgr's numbers move while a client writes (it samples the MDS every mgr_stats_period), so "at the same moment"
is a read of ours between two reads of the CLI that agree with each other.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cephtui.ceph.cephfs.reader import read_clients, read_fs_status
from cephtui.ceph.client import CephClient
from cephtui.ceph.connection import ConnectionSpec
from tests.conftest import ROOT, Sandbox, own_sandbox, stop_process, wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.tier]
FS = "cephfs"
CEPHTUI = [sys.executable, "-m", "cephtui"]


@pytest.fixture(scope="module")
def fsbox() -> Iterator[Sandbox]:
    with own_sandbox("ctt-fs-", "--osds", "3", "--pool", "rbd:8", "--fs", FS) as box:
        yield box


@pytest.fixture(scope="module")
def fs_clients(fsbox: Sandbox) -> Iterator[list[subprocess.Popen[str]]]:
    """Two real clients: one holds /held.txt open, one writes and reads /io.bin in a loop."""
    procs = [subprocess.Popen(["/usr/bin/python3", str(ROOT / "scripts" / "cephfs_client.py"), str(fsbox.conf), mode,
                               path, *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for mode, path, extra in (("hold", "/held.txt", []), ("io", "/io.bin", ["--size", "1048576"]))]
    try:
        for p in procs:
            line = p.stdout.readline() if p.stdout else ""
            assert line.strip() == "ready", f"a CephFS client did not mount: {line!r}"
        yield procs
    finally:
        for p in procs:
            p.kill()
            p.wait()


def cli(box: Sandbox, *args: str) -> Any:
    """The `ceph` CLI itself, as an admin types it."""
    res = subprocess.run(["ceph", "-c", str(box.conf), "--connect-timeout", "10", *args, "-f", "json"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def cephtui(box: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS", "CEPHTUI_CONFIG")}
    env["XDG_CONFIG_HOME"] = "/nonexistent/cephtui-tests"
    return subprocess.run([*CEPHTUI, "-c", str(box.conf), *args], capture_output=True, text=True, env=env,
                          timeout=120)


def same_moment(box: Sandbox, cli_args: tuple[str, ...], ours: Any, what: str,
                key: Any = lambda answer: answer) -> tuple[Any, Any]:
    """(the CLI's answer, ours) read between two CLI answers that agree on `key` (what is compared): nothing
    compared moved meanwhile."""
    def read() -> tuple[Any, Any] | None:
        before = cli(box, *cli_args)
        mine = ours()
        return (before, mine) if key(cli(box, *cli_args)) == key(before) else None
    return wait_until(read, 90, what)


def session_key(answer: Any) -> Any:
    """What `fs clients` shows of `session ls` (its uptime and decaying counters move at every call)."""
    return [(s["id"], s["inst"], s["state"], s["num_caps"], s["requests_in_flight"], s["client_metadata"])
            for s in answer]


def cli_answer(box: Sandbox, *args: str) -> Any | None:
    """The CLI's answer, or None when the cluster does not serve the command (Debian's Reef mgr runs no module)."""
    res = subprocess.run(["ceph", "-c", str(box.conf), "--connect-timeout", "10", *args, "-f", "json"],
                         capture_output=True, text=True, timeout=60)
    return json.loads(res.stdout) if res.returncode == 0 else None


def ours_json(box: Sandbox) -> Any:
    res = cephtui(box, "fs", "status", "--json")
    assert res.returncode in (0, 3), res.stderr
    return json.loads(res.stdout)


def test_fs_status_json_equals_ceph_fs_status(fsbox: Sandbox, fs_clients: list[Any]) -> None:
    if cli_answer(fsbox, "fs", "status", FS) is None:
        return mgr_status_not_served(fsbox)
    wait_until(lambda: cli(fsbox, "fs", "status", FS)["clients"][0]["clients"] == 2, 60, "both clients counted")
    theirs, mine = same_moment(fsbox, ("fs", "status", FS), lambda: ours_json(fsbox),
                               "`ceph fs status` twice alike around ours")
    fs = mine["filesystems"][0]
    assert fs["name"] == FS and fs["state"] == "healthy" and not mine["notes"]
    # Every rank's numbers, the pools' bytes and the client count: the CLI's own.
    ranks = [e for e in theirs["mdsmap"] if e["state"] not in ("standby", "standby-replay")]
    assert fs["mdsmap"] == ranks, (fs["mdsmap"], ranks)
    assert fs["pools"] == theirs["pools"]
    assert fs["clients"] == theirs["clients"][0]["clients"] == 2
    assert [s["name"] for s in mine["standbys"]] == [e["name"] for e in theirs["mdsmap"] if e["state"] == "standby"]
    version = theirs["mds_version"]
    assert [v["version"] for v in mine["mds_version"]] == ([version] if isinstance(version, str)
                                                            else [v["version"] for v in version])
    # The map and flags are the mon's `fs dump`.
    m = cli(fsbox, "fs", "dump")["filesystems"][0]["mdsmap"]
    assert (fs["max_mds"], fs["session_timeout"], fs["epoch"]) == (m["max_mds"], m["session_timeout"], m["epoch"])
    text = cephtui(fsbox, "fs", "status")
    assert text.returncode == 0 and f"{FS} - 2 clients (healthy" in text.stdout, text.stdout + text.stderr


def mgr_status_not_served(box: Sandbox) -> None:
    """Without the mgr's `fs status`: the map is the mon's, the pools' bytes are `ceph df`'s, and a note says
    which numbers are missing and why (exit status 3)."""
    theirs, mine = same_moment(box, ("df", "detail"), lambda: ours_json(box), "`ceph df` twice alike around ours")
    fs = mine["filesystems"][0]
    assert mine["notes"] and "the mgr's `fs status`" in mine["notes"][0], mine["notes"]
    m = cli(box, "fs", "dump")["filesystems"][0]["mdsmap"]
    gid = m["up"]["mds_0"]
    assert fs["mdsmap"] == [{"rank": 0, "state": "active", "name": m["info"][f"gid_{gid}"]["name"]}]
    by_id = {p["id"]: p for p in theirs["pools"]}
    assert [(p["id"], p["name"], p["used"], p["avail"]) for p in fs["pools"]] == [
        (i, by_id[i]["name"], by_id[i]["stats"]["bytes_used"], by_id[i]["stats"]["max_avail"])
        for i in [m["metadata_pool"], *m["data_pools"]]]


def test_fs_clients_equal_session_ls(fsbox: Sandbox, fs_clients: list[Any]) -> None:
    c = CephClient(ConnectionSpec(conffile=str(fsbox.conf))).connect()
    try:
        def ours() -> Any:
            return read_clients(c, read_fs_status(c), FS)

        theirs, mine = same_moment(fsbox, ("tell", f"mds.{FS}:0", "session", "ls"), ours,
                                   "`session ls` twice alike around ours", session_key)
    finally:
        c.close()
    assert not mine.problems
    assert len(mine.sessions) == len(theirs) == 2
    for s, t in zip(mine.sessions, theirs):
        meta = t["client_metadata"]
        assert (s.id, s.inst, s.state, s.num_caps, s.requests_in_flight) == \
            (t["id"], t["inst"], t["state"], t["num_caps"], t["requests_in_flight"])
        assert (s.hostname, s.root, s.entity_id, s.pid) == (meta["hostname"], meta["root"], meta["entity_id"],
                                                            meta["pid"])
        assert s.kind == "libcephfs" and meta["ceph_version"].startswith(f"ceph version {s.version} ")
    pids = {str(p.pid) for p in fs_clients}
    assert {s.pid for s in mine.sessions} == pids  # our two clients, and not cephtui itself
    res = cephtui(fsbox, "fs", "clients", "--json")
    assert res.returncode == 0, res.stderr
    assert {s["client_metadata"]["pid"] for s in json.loads(res.stdout)} == pids


def test_an_mds_that_stops_answering_is_a_state_not_a_freeze(fsbox: Sandbox, fs_clients: list[Any]) -> None:
    """mds.a stopped (SIGSTOP) for less than its beacon grace: the clients' read gives up at the op timeout with
    the reason, the next one is not even sent (no pile of commands at a hung MDS), and once it runs again the
    clients are read again."""
    c = CephClient(ConnectionSpec(conffile=str(fsbox.conf), op_timeout=3)).connect()
    status = read_fs_status(c)
    rank0 = status.get(FS).active[0]  # type: ignore[union-attr]
    pid = int(json.loads((fsbox.dir / "pids" / f"mds.{rank0.name}.json").read_text())["pid"])
    try:
        assert not read_clients(c, status, FS).problems
        stop_process(pid)
        try:
            t0 = time.monotonic()
            first = read_clients(c, status, FS)
            took = time.monotonic() - t0
            assert 2.5 <= took < 6, (took, first.problems)
            assert first.problems and "no answer from mds.cephfs:0 within 3s" in first.problems[0], first.problems
            t0 = time.monotonic()
            second = read_clients(c, status, FS)
            assert time.monotonic() - t0 < 1
            assert "no answer from mds.cephfs:0 within 3s (an earlier command still waits" in second.problems[0], \
                second.problems
        finally:
            os.kill(pid, signal.SIGCONT)
        wait_until(lambda: not read_clients(c, status, FS).problems, 30, "the clients read again")
        assert fsbox.ceph("fs", "dump")["filesystems"][0]["mdsmap"]["up"][f"mds_{rank0.rank}"] == rank0.gid
    finally:
        os.kill(pid, signal.SIGCONT)
        c.close()


async def test_the_file_systems_tab_while_an_mds_stops_answering(fsbox: Sandbox, fs_clients: list[Any]) -> None:
    """The File systems tab on the sandbox: its clients are `session ls`'s; with rank 0's MDS stopped (SIGSTOP,
    shorter than its beacon grace) the polls go on, the clients box says which MDS did not answer and keeps the
    clients it last read, said to be as of then; once it runs again they are current again."""
    from cephtui.ui.panes.filesystems import FileSystemsPane
    from tests.ui.helpers import app_factory, wait_for

    ids = sorted(s["id"] for s in cli(fsbox, "tell", f"mds.{FS}:0", "session", "ls"))
    dump = fsbox.ceph("fs", "dump")["filesystems"][0]["mdsmap"]
    rank0 = dump["info"][f"gid_{dump['up']['mds_0']}"]["name"]
    pid = int(json.loads((fsbox.dir / "pids" / f"mds.{rank0}.json").read_text())["pid"])
    with app_factory(fsbox.conf, op_timeout=3) as make:
        app = make()
        async with app.run_test(size=(160, 48)) as pilot:
            await wait_for(pilot, lambda: app.snapshot is not None, 20, "a first snapshot")
            await pilot.press(":", "f", "s", "enter")
            pane = app.query_one(FileSystemsPane)
            box = app.query_one("#fs-clients-box")
            await wait_for(pilot, lambda: sorted(s.id for s in pane.vtable.rows) == ids, 30, "session ls's clients")
            stop_process(pid)
            try:
                try:
                    await wait_for(pilot, lambda: f"no answer from mds.{FS}:0 within 3s" in str(box.border_subtitle),
                                   15, "the MDS named as not answering")
                except AssertionError as e:
                    raise AssertionError(f"{e}; the clients box said {box.border_title!r} / "
                                         f"{box.border_subtitle!r}, the status bar {app.statusbar.connected}") from None
                stopped_at = app.snapshot.taken_at  # type: ignore[union-attr]
                await wait_for(pilot, lambda: app.snapshot.taken_at > stopped_at + 1, 10,  # type: ignore[union-attr]
                               "polls going on while the MDS is stopped")
                assert sorted(s.id for s in pane.vtable.rows) == ids  # kept, not blanked
                assert "rank 0's clients as read at" in str(box.border_subtitle)
                assert app.statusbar.connected is True
            finally:
                os.kill(pid, signal.SIGCONT)
            await wait_for(pilot, lambda: "⚠" not in str(box.border_subtitle), 30, "the clients current again")
            assert sorted(s.id for s in pane.vtable.rows) == ids


async def test_evict_a_client_from_the_tab(fsbox: Sandbox, fs_clients: list[Any], tmp_path: Any,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A client of its own, evicted through the tab as an admin would: `E` on its row, the confirmation shows the
    exact tell and that it is blocklisted, its name typed; then it is gone from `session ls`, its address is in
    `osd blocklist ls`, its next write fails, and the audit log has the command. The other clients stay."""
    from cephtui.ui.panes.filesystems import FileSystemsPane
    from cephtui.ui.screens.blocklist import BlocklistScreen
    from cephtui.ui.screens.confirm import ConfirmScreen
    from tests.ui.helpers import app_factory, click, text_of, wait_for

    victim = subprocess.Popen(["/usr/bin/python3", str(ROOT / "scripts" / "cephfs_client.py"), str(fsbox.conf),
                               "io", "/victim.bin", "--size", "65536"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    audit = tmp_path / "audit.log"
    try:
        assert victim.stdout is not None and victim.stdout.readline().strip() == "ready"
        sessions = cli(fsbox, "tell", f"mds.{FS}:0", "session", "ls")
        [mine] = [s for s in sessions if s["client_metadata"].get("pid") == str(victim.pid)]
        others = sorted(s["id"] for s in sessions if s["id"] != mine["id"])
        addr = mine["inst"].split(" ", 1)[1]
        monkeypatch.setenv("CEPHTUI_AUDIT_LOG", str(audit))
        with app_factory(fsbox.conf) as make:
            app = make()
            async with app.run_test(size=(160, 48)) as pilot:
                await wait_for(pilot, lambda: app.snapshot is not None, 20, "a first snapshot")
                await pilot.press(":", "f", "s", "enter")
                pane = app.query_one(FileSystemsPane)
                await wait_for(pilot, lambda: any(s.id == mine["id"] for s in pane.vtable.rows), 30, "its row")
                pane.vtable.focus()
                row = next(i for i, s in enumerate(pane.vtable.rows) if s.id == mine["id"])
                await pilot.press("home", *["down"] * row)
                assert pane.selected_client().id == mine["id"]  # type: ignore[union-attr]
                await pilot.press("E")
                await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the confirmation")
                confirm = app.screen
                assert isinstance(confirm, ConfirmScreen)
                shown = text_of(app, "#confirm-commands")
                assert f"$ ceph tell mds.{FS}:0 client evict id={mine['id']}" in shown, shown
                impact = " ".join(text_of(app, "#confirm-impact").split())
                assert f"blocklists its address {addr} for 1 h" in impact, impact
                await pilot.press(*f"client.{mine['id']}", "enter")
                await wait_for(pilot, lambda: confirm.state == "done", 30, "the eviction's answer")
                assert confirm.outcome.ok, text_of(app, "#confirm-result")
                await click(pilot, "#confirm-run")  # the dialog's Close
                await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "the dialog closed")
                # The blocklist: its address, named as the client it was; D removes the entry.
                await pilot.press("b")
                await wait_for(pilot, lambda: isinstance(app.screen, BlocklistScreen)
                               and any(e.addr == addr for e in app.screen.entries), 15, "its blocklist entry")
                board = app.screen
                assert isinstance(board, BlocklistScreen)
                table = board.query_one("#blocklist-table")
                row = next(i for i, e in enumerate(board.entries) if e.addr == addr)
                assert f"client.{mine['id']}" in str(table.get_row_at(row)[2])  # type: ignore[attr-defined]
                table.focus()
                await pilot.press("home", *["down"] * row)
                assert board.selected().addr == addr  # type: ignore[union-attr]
                blocked = blocklisted(fsbox)
                assert addr in blocked
                await pilot.press("D")
                await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the removal's confirmation")
                assert f"$ ceph osd blocklist rm {addr}" in text_of(app, "#confirm-commands")
                removal = app.screen
                await click(pilot, "#confirm-run")
                await wait_for(pilot, lambda: removal.state == "done", 30, "the removal's answer")  # type: ignore[attr-defined]
                assert removal.outcome.ok  # type: ignore[attr-defined]
        assert mine["id"] not in [s["id"] for s in cli(fsbox, "tell", f"mds.{FS}:0", "session", "ls")]
        assert sorted(s["id"] for s in cli(fsbox, "tell", f"mds.{FS}:0", "session", "ls")) == others
        assert addr not in blocklisted(fsbox)  # removed through the dialog
        lines = [json.loads(x) for x in audit.read_text().splitlines()]
        assert [(x["cli"], x["ok"]) for x in lines[-2:]] == [
            (f"ceph tell mds.{FS}:0 client evict id={mine['id']}", True), (f"ceph osd blocklist rm {addr}", True)]
        # The client itself: blocklisted (and evicted: lifting the blocklist does not give it its session back),
        # its next write or fsync fails and it ends.
        wait_until(lambda: victim.poll() is not None, 60, "the evicted client's I/O failing")
    finally:
        victim.kill()
        victim.wait()
        subprocess.run(["ceph", "-c", str(fsbox.conf), "osd", "blocklist", "clear"], capture_output=True, timeout=60)



def blocklisted(box: Sandbox) -> str:
    """`ceph osd blocklist ls` as the CLI prints it (the addresses, on stdout or stderr by release)."""
    res = subprocess.run(["ceph", "-c", str(box.conf), "osd", "blocklist", "ls"], capture_output=True, text=True,
                         timeout=60)
    return res.stdout + res.stderr


def perf_bytes(box: Sandbox, client_id: int) -> int | None:
    """The client's cumulative bytes written, as `ceph fs perf stats` gives them (None: not in the answer)."""
    answer = cli(box, "fs", "perf", "stats")
    counters = answer["global_counters"]
    values = answer["global_metrics"].get(FS, {}).get(f"client.{client_id}")
    return int(values[counters.index("write_io_sizes")][1]) if values else None


async def test_client_io_from_the_tab_enabling_the_stats_module(
        fsbox: Sandbox, fs_clients: list[Any], tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """`i` on the tab with the stats module off (its default) says so; `M` enables it through the confirmation
    (the exact command); then the writing client's row shows its bytes written, between two reads of `ceph fs perf
    stats`, and a write rate. Where the mon refuses the module (Debian's Reef: no PyO3 module runs), the mon's
    own words are shown and the view still says the module is off."""
    from cephtui.ui.panes.filesystems import FileSystemsPane
    from cephtui.ui.screens.confirm import ConfirmScreen
    from tests.ui.helpers import app_factory, click, text_of, wait_for

    subprocess.run(["ceph", "-c", str(fsbox.conf), "mgr", "module", "disable", "stats"], capture_output=True,
                   timeout=60)
    writer = fs_clients[1].pid
    [wid] = [s["id"] for s in cli(fsbox, "tell", f"mds.{FS}:0", "session", "ls")
             if s["client_metadata"].get("pid") == str(writer)]
    reef = "reef" in cli(fsbox, "version")["version"]
    audit = tmp_path / "audit.log"
    monkeypatch.setenv("CEPHTUI_AUDIT_LOG", str(audit))
    try:
        with app_factory(fsbox.conf) as make:
            app = make()
            async with app.run_test(size=(160, 48)) as pilot:
                await wait_for(pilot, lambda: app.snapshot is not None, 20, "a first snapshot")
                await pilot.press(":", "f", "s", "enter")
                pane = app.query_one(FileSystemsPane)
                await wait_for(pilot, lambda: pane.clients is not None and pane.selected_fs == FS, 30, "the clients")
                await pilot.press("i")
                io = pane.io_table
                await wait_for(pilot, lambda: io.stats_off, 30, "the view saying the stats module is off")
                assert "M enables it" in text_of(app, "#fs-summary")
                await pilot.press("M")
                await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, "the confirmation")
                confirm = app.screen
                assert isinstance(confirm, ConfirmScreen)
                assert "$ ceph mgr module enable stats" in text_of(app, "#confirm-commands")
                await click(pilot, "#confirm-run")
                await wait_for(pilot, lambda: confirm.state == "done", 30, "the mon's answer")
                if reef:
                    assert not confirm.outcome.ok
                    assert "cannot run on the active manager daemon" in text_of(app, "#confirm-result")
                    await click(pilot, "#confirm-run")
                    await wait_for(pilot, lambda: io.stats_off and not isinstance(app.screen, ConfirmScreen), 30,
                                   "the view still saying the module is off")
                    return
                assert confirm.outcome.ok, text_of(app, "#confirm-result")
                await click(pilot, "#confirm-run")
                await wait_until_async(pilot, lambda: perf_bytes(fsbox, wid), "the writer in fs perf stats")
                before = perf_bytes(fsbox, wid) or 0

                def shown() -> Any:
                    return next((c for c, r in io.rows if c.client_id == wid), None)

                await wait_for(pilot, lambda: (shown() is not None and (shown().write_bytes or 0) >= before
                                               and any(r.write_bps for c, r in io.rows if c.client_id == wid)),
                               60, "the writer's row, as of fs perf stats or later, with a write rate")
                mine = shown()
                assert mine is not None and mine.write_bytes is not None
                assert before <= mine.write_bytes <= (perf_bytes(fsbox, wid) or 0)  # between two CLI reads
        lines = [json.loads(x) for x in audit.read_text().splitlines()]
        assert [(x["cli"], x["ok"]) for x in lines] == [("ceph mgr module enable stats", not reef)]
    finally:
        subprocess.run(["ceph", "-c", str(fsbox.conf), "mgr", "module", "disable", "stats"], capture_output=True,
                       timeout=60)


async def wait_until_async(pilot: Any, cond: Any, what: str, timeout: float = 60) -> None:
    """A condition that asks the CLI (seconds per look), the app running meanwhile."""
    from tests.ui.helpers import wait_for

    await wait_for(pilot, cond, timeout, what, interval=1.0)


def mdsmap(box: Sandbox) -> dict[str, Any]:
    return cli(box, "fs", "dump")["filesystems"][0]["mdsmap"]


def holders(box: Sandbox) -> dict[str, str]:
    """rank ("0") or "0-s" (its standby-replay follower) -> the daemon, as `ceph fs dump` says."""
    m = mdsmap(box)
    out = {}
    for d in m["info"].values():
        if d["state"] == "up:active":
            out[str(d["rank"])] = d["name"]
        elif d["state"] == "up:standby-replay":
            out[f"{d['rank']}-s"] = d["name"]
    return out


async def test_ranks_from_the_tab_max_mds_standby_replay_and_failing_a_rank(
        fsbox: Sandbox, fs_clients: list[Any], tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """As an admin would with two MDS daemons: `m` raises max_mds to 2 (the standby becomes rank 1); `F` then
    refuses to fail a rank nobody would take; `m` back to 1 (the typed name; rank 1 stops, its daemon a standby
    again); `R` allows standby-replay (the standby follows rank 0); `F` fails rank 0 (its follower named, the role
    typed) and the follower holds it; `J` twice; `R` off. Each state checked against `ceph fs dump`, every command
    in the audit log with the mon's answer."""
    from cephtui.ceph.cephfs.model import FLAG_NOT_JOINABLE
    from cephtui.ui.panes.filesystems import FileSystemsPane
    from cephtui.ui.screens.confirm import ConfirmScreen
    from cephtui.ui.screens.wizards.form import FormScreen
    from tests.ui.helpers import app_factory, click, text_of, wait_for

    audit = tmp_path / "audit.log"
    monkeypatch.setenv("CEPHTUI_AUDIT_LOG", str(audit))
    assert mdsmap(fsbox)["max_mds"] == 1 and len(holders(fsbox)) == 1
    try:
        with app_factory(fsbox.conf) as make:
            app = make()
            async with app.run_test(size=(160, 48)) as pilot:
                await wait_for(pilot, lambda: app.snapshot is not None, 20, "a first snapshot")
                await pilot.press(":", "f", "s", "enter")
                pane = app.query_one(FileSystemsPane)

                async def confirmed(command: str, effect: str, typed: str = "") -> None:
                    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), 15, f"`{command}`")
                    confirm = app.screen
                    assert isinstance(confirm, ConfirmScreen)
                    assert f"$ {command}" in text_of(app, "#confirm-commands")
                    impact = " ".join(text_of(app, "#confirm-impact").split())
                    assert effect in impact, impact
                    if typed:
                        await pilot.press(*typed, "enter")
                    else:
                        await click(pilot, "#confirm-run")
                    await wait_for(pilot, lambda: confirm.state == "done", 30, f"the mon's answer to {command}")
                    assert confirm.outcome.ok, text_of(app, "#confirm-result")
                    await click(pilot, "#confirm-run")
                    await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "the dialog closed")

                async def until(cond: Any, what: str) -> None:  # the map, as the CLI and the tab see it
                    await wait_for(pilot, lambda: cond(holders(fsbox)) and pane.fs is not None
                                   and pane.fs.epoch >= mdsmap(fsbox)["epoch"], 90, what, interval=1.0)

                async def form(key: str, field: str = "", value: str = "") -> None:
                    await pilot.press(key)
                    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), 15, f"the form of {key}")
                    if field:
                        box = app.screen.query_one(f"#field-{field}")
                        box.focus()
                        await wait_for(pilot, lambda: app.focused is box, 5, f"the focus in {field}")
                        await pilot.press("ctrl+u", *value)
                    await click(pilot, "#form-ok")

                await wait_for(pilot, lambda: pane.fs is not None and pane.status is not None, 30, "the map")
                standby = pane.status.standbys[0]  # type: ignore[union-attr]
                await form("m", "max_mds", "2")
                await confirmed(f"ceph fs set {FS} max_mds 2", "becomes active rank 1; 0 standby left")
                await until(lambda h: h.get("1") == standby, f"mds.{standby} holding rank 1")

                # No standby left: failing a rank is refused in the form, nothing sent.
                await form("F")
                await wait_for(pilot, lambda: "nobody would take rank 0: there is no standby daemon"
                               in text_of(app, "#form-status"), 10, "the refusal")
                await pilot.press("escape")

                await form("m", "max_mds", "1")
                await confirmed(f"ceph fs set {FS} max_mds 1", f"rank 1 (mds.{standby}) stop", typed=FS)
                await until(lambda h: "1" not in h and standby in pane.status.standbys,  # type: ignore[union-attr]
                            "rank 1 stopped, its daemon a standby")

                await pilot.press("R")
                await confirmed(f"ceph fs set {FS} allow_standby_replay true", "every rank gets one")
                await until(lambda h: h.get("0-s") == standby, f"mds.{standby} following rank 0")
                await form("F")
                await confirmed(f"ceph mds fail {FS}:0", f"mds.{standby}, which follows it (standby-replay), takes "
                                "it over at once", typed=f"{FS}:0")
                await until(lambda h: h.get("0") == standby, f"mds.{standby} holding rank 0")

                await pilot.press("J")
                await confirmed(f"ceph fs set {FS} joinable false", "one that fails stays failed", typed=FS)
                await until(lambda h: mdsmap(fsbox)["flags"] & FLAG_NOT_JOINABLE, "the map: not joinable")
                await wait_for(pilot, lambda: pane.fs is not None and not pane.fs.joinable, 30, "the tab: not joinable")
                await pilot.press("J")
                await confirmed(f"ceph fs set {FS} joinable true", "take a failed or empty rank again")
                await wait_for(pilot, lambda: pane.fs is not None and pane.fs.joinable, 30, "the tab: joinable")
                await pilot.press("R")
                await confirmed(f"ceph fs set {FS} allow_standby_replay false", "stop and come back as plain")
                await until(lambda h: "0-s" not in h, "no follower")
        sent = [(x["cli"], x["ok"]) for x in (json.loads(line) for line in audit.read_text().splitlines())]
        assert sent == [(f"ceph fs set {FS} max_mds 2", True), (f"ceph fs set {FS} max_mds 1", True),
                        (f"ceph fs set {FS} allow_standby_replay true", True), (f"ceph mds fail {FS}:0", True),
                        (f"ceph fs set {FS} joinable false", True), (f"ceph fs set {FS} joinable true", True),
                        (f"ceph fs set {FS} allow_standby_replay false", True)]
    finally:  # the sandbox as it was: one active rank, joinable, no standby-replay
        for args in (("max_mds", "1"), ("joinable", "true"), ("allow_standby_replay", "false")):
            subprocess.run(["ceph", "-c", str(fsbox.conf), "fs", "set", FS, *args], capture_output=True, timeout=60)
