"""The File systems tab on each release's look capture (no cluster): what it draws equals what the capture's own
answers say (`fs dump`, the mgr's `fs status`, rank 0's `session ls`), the clients' filter, and the tab asks
nothing that changes the cluster (look_app fails a test that did)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from cephtui.ceph.recording import command_key
from cephtui.ui.panes.filesystems import FileSystemsPane
from tests.look.settle import keys_for, settle
from tests.lookapp import LOOK, RELEASES
from tests.ui.helpers import plain, text_of

pytestmark = pytest.mark.look


def answer(release: str, target: str, prefix: str, **args: Any) -> Any:
    """The capture's answer as JSON, or None where the cluster refused it."""
    rec = json.loads(LOOK[release].read_text())["commands"].get(command_key(target, prefix, {"format": "json", **args}))
    return json.loads(rec["out"]) if rec and "out" in rec else None


@pytest.mark.parametrize("release", RELEASES)
async def test_the_tab_shows_what_fs_status_and_session_ls_say(release: str, look_app: Any) -> None:
    dump = answer(release, "mon", "fs dump")
    if not dump or not dump.get("filesystems"):
        pytest.skip(f"{release}'s look capture has no file system (scripts/capture_look.py)")
    app = look_app(release)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press(*keys_for("fs"))
        await settle(pilot)
        pane = app.query_one(FileSystemsPane)
        assert pane.status is not None and pane.clients is not None
        [fs] = pane.status.filesystems
        detail = text_of(app, "#fs-detail")
        mdsmap = dump["filesystems"][0]["mdsmap"]
        assert fs.name == mdsmap["fs_name"] and f"{fs.name} (ceph fs status {fs.name})" in \
            str(app.query_one("#fs-detail").border_title)
        active = [i for i in mdsmap["info"].values() if i["state"] == "up:active"]
        assert [r.name for r in fs.active] == [i["name"] for i in active]
        status = answer(release, "mgr", "fs status", fs=fs.name)
        if status is not None:  # the mgr's numbers, drawn as it gave them
            [row] = [r for r in status["mdsmap"] if r["state"] == "active"]
            line = next(ln for ln in detail.splitlines() if f" {row['name']} " in ln and "active" in ln)
            assert line.split()[:8] == ["0", "active", row["name"], f"{row['rate']:,}", f"{row['dns']:,}",
                                        f"{row['inos']:,}", f"{row['dirs']:,}", f"{row['caps']:,}"], line
        else:  # Debian's Reef: no mgr modules; the map stays, the summary says what is missing
            assert "the mgr's `fs status`" in text_of(app, "#fs-summary")
        standbys = sorted(s["name"] for s in dump["standbys"])
        assert f"standbys: {', '.join(standbys)}" in detail
        sessions = answer(release, "mds:" + f"{fs.name}:0", "session ls")
        assert sessions, "the capture mounts one client"
        assert [s.id for s in pane.vtable.rows] == [s["id"] for s in sessions]
        table = "\n".join(" ".join(plain(c) for c in pane.vtable.get_row_at(i)) for i in range(pane.vtable.row_count))
        for s in sessions:
            assert f"client.{s['id']}" in table and f"{s['num_caps']:,}" in table
        assert f"{len(sessions)} client session" in str(app.query_one("#fs-clients-box").border_subtitle)
        # The filter: a word no client has leaves none, with the count saying so; escape brings them back.
        await pilot.press("slash", *"nosuchhost", "enter")
        await settle(pilot)
        assert pane.vtable.row_count == 0
        assert str(app.query_one("#fs-clients-box").border_subtitle).startswith(f"0 of {len(sessions)} match")
        await pilot.press("slash", "escape")
        await settle(pilot)
        assert pane.vtable.row_count == len(sessions)
        await pilot.press("f")  # one file system: said, nothing else happens
        await settle(pilot)
        assert pane.selected_fs == fs.name
