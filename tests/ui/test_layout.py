"""The layout at 80x24 (ssh into a mon node, a default terminal) and at 200x60, on the real sandbox.

What an admin must see is asserted as text on the screen, exactly as the terminal shows it: the
compositor's full render (what App.export_screenshot draws), converted to plain text. A widget that
exists but is pushed below the last row, or cut at the right edge, fails here.
"""
from __future__ import annotations

import io
import json
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widget import Widget

from cephtui.ceph.workflows.removal import Removal
from cephtui.ceph.workflows.removal_engine import RemovalEngine
from cephtui.ceph.workflows.store import WorkflowStore
from cephtui.ui.app import TABS, CephTUI
from cephtui.ui.compat import screen_frame
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.removal import RemovalScreen, ResumeScreen
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.tabs import NUMBER_KEYS, number_key
from cephtui.ui.tabs import TABS as REGISTRY
from tests.conftest import Sandbox
from tests.ui.helpers import click

SMALL = (80, 24)
BIG = (200, 60)
TAB_KEYS = {key: number_key(i) for i, (key, _) in enumerate(TABS, 1) if i <= NUMBER_KEYS}
PG_ROW = re.compile(r"│\s+\d+\.[0-9a-f]+\s+(?:[\w.-]+\s+)?active\+clean")  # a pool column on wide screens


def screen_lines(app: CephTUI) -> list[str]:
    """The screen as the terminal shows it, one string per row (dialogs over the screen below)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system=None,
                      record=True, legacy_windows=False, safe_box=False)
    console.print(screen_frame(app))
    lines = console.export_text(styles=False).split("\n")[:height]
    assert all(len(line) <= width for line in lines)
    return lines + [""] * (height - len(lines))  # rows not painted yet (just after a resize)


def screen_text(app: CephTUI) -> str:
    return "\n".join(screen_lines(app))


async def until(pilot: Pilot, app: CephTUI, cond: Callable[[str], object], what: str, timeout: float = 20) -> str:
    """Wait until the screen text satisfies cond; on a timeout, fail with the screen in the message."""
    deadline = time.monotonic() + timeout
    while True:
        text = screen_text(app)
        if cond(text):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"{app.size.width}x{app.size.height}: no {what} on screen within {timeout:.0f}s:\n"
                                 + text)
        await pilot.pause(0.25)


def on_screen(app: CephTUI, widget: Widget) -> bool:
    """The whole widget is inside the terminal (not below the last row, not past the right edge)."""
    r, screen = widget.region, app.screen.region
    return r.width > 0 and r.height > 0 and r.x >= 0 and r.y >= 0 and r.right <= screen.right \
        and r.bottom <= screen.bottom


def first_key(app: CephTUI, tab: str) -> str:
    """The description of the tab's first key shown in the footer (whatever the key is now)."""
    pane = next(p for p in app.panes if p.parent is not None and p.parent.id == tab)
    # `/` is the app's own priority binding now (keys typed while the filter opens go to it), so the
    # pane's `/` entry is not what the footer shows for the pane.
    shown = [b for b in pane.BINDINGS if isinstance(b, Binding) and b.show and b.key != "slash"]
    return shown[0].description if shown else ""


@pytest.fixture
def noout(sandbox: Sandbox) -> Iterator[Sandbox]:
    """A cluster-wide noout: HEALTH_WARN with one check, and a flag row set, for the screens to show."""
    sandbox.ceph("osd", "set", "noout")
    try:
        yield sandbox
    finally:
        sandbox.ceph("osd", "unset", "noout")


def audit_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


async def test_80x24_every_tab_and_the_dialogs(make_app, noout: Sandbox, audit_log: Path, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        assert app.screen.has_class("-narrow", "-short")
        text = await until(pilot, app, lambda t: "WARN" in t.splitlines()[0], "WARN badge in the header")
        header, tabs = text.splitlines()[:2]
        # The header keeps what matters at 80 columns: the badge, the connection, the age of the data.
        assert re.search(r" WARN .*● connected.*data \d+s old", header), header
        # Every tab label (the short titles under 100 columns), none scrolled away.
        for i, tab in enumerate(REGISTRY, 1):
            assert tab.label(i, narrow=True) in tabs, tabs

        # Health: the badge, the check with its detail line, services, capacity and the pool row, the log.
        # Every part in one frame: a frame drawn between a content update and its layout pass (seen under
        # load) shows the boxes at their old heights; the next one is whole. Never whole: the test fails.
        health = ("HEALTH_WARN", "1 check raised", "3 osds: 3 up, 3 in", "Capacity", "Cluster log")
        await until(pilot, app, lambda t: "OSDMAP_FLAGS  noout flag(s)" in t and all(e in t for e in health)
                    and re.search(r"│\s+rbd\s+\S+ \S+\s+\S+ \S+\s+\d+\.\d%", t),
                    "the health check, services, capacity with the pool row and its %used, and the log")

        async def tab(key: str, cond: Callable[[str], object], what: str) -> str:
            await pilot.press(TAB_KEYS[key])
            # The footer follows the focus a frame after the tab's content: wait for both in one frame.
            text = await until(pilot, app, lambda t: cond(t) and first_key(app, key) in t.splitlines()[-1],
                               f"{what}, and the tab's keys in the footer")
            footer = text.splitlines()[-1]
            # The footer shows the tab's own keys (the first of them at least) and the way to all of them.
            assert "Help" in footer and first_key(app, key) in footer, footer
            return text

        # PGs: the summaries and, below them, PG rows of the table (33 PGs on Pacific: rbd's 32 and the mgr's
        # pool; Debian's Reef mgr makes no pool of its own).
        num_pgs = noout.ceph("pg", "stat")["pg_summary"]["num_pgs"]
        pgs = ("PGs by state", "Recovery", "Stuck PGs", "All PGs", f"of {num_pgs} PGs")
        text = await tab("pgs", lambda t: len(PG_ROW.findall(t)) >= 3 and all(e in t for e in pgs),
                         "the PG summaries and three PG rows")
        small_pg_rows = len(PG_ROW.findall(text))

        # OSDs: every OSD with its state, %use and PG count side by side, in the first 80 columns.
        osd_row = r"osd\.{}\s+up in\s+\d+\.\d\s+\d+\s"
        text = await tab("osds", lambda t: all(re.search(osd_row.format(i), t) for i in range(3)), "the OSD rows")
        assert re.search(r"name\s+status\s+%use\s+pgs", text), text

        await tab("crush", lambda t: "default" in t and "osd.2" in t and "replicated_rule" in t, "the CRUSH map")
        await tab("pools", lambda t: re.search(r"│\s+1\s+rbd\s+replicated", t) and "Selected pool" in t, "pool rbd")
        await tab("users", lambda t: "client.admin" in t and "allow *" in t, "client.admin")
        await tab("maintenance", lambda t: re.search(r"noout\s+set\s+(client\.admin|unknown)", t),
                  "the noout flag row, set by whom")
        await tab("bench", lambda t: "Live" in t and "This host" in t and "History" in t and "idle" in t,
                  "the bench pane")
        await tab("activity", lambda t: "This session's commands" in t, "the activity pane")

        # Images, the eleventh tab (`:images`): an image's row with its size, used size and snapshots, in the
        # first 80 columns, the selected image below, the tab's keys in the footer.
        subprocess.run(["rbd", "-c", str(noout.conf), "create", "--size", "16M", "rbd/ctl-img"], check=True,
                       capture_output=True, timeout=120)
        try:
            await pilot.press("colon", *"images", "enter")
            await until(pilot, app, lambda t: "ctl-img" in t, "the image listed")
            await pilot.press("slash", *"ctl-img", "enter")  # the filter (one line at 80x24), Enter: the table
            text = await until(pilot, app, lambda t: re.search(r"ctl-img\s+16\.0 MiB\s+0 B\s+-", t)
                               and "rbd/ctl-img" in t and first_key(app, "images") in t.splitlines()[-1],
                               "the image's row and detail, and the tab's keys in the footer")
            assert re.search(r"image\s+size\s+used \+snaps\s+snaps\s+watchers", text), text
        finally:
            subprocess.run(["rbd", "-c", str(noout.conf), "rm", "rbd/ctl-img"], capture_output=True, timeout=120)

        # Dialogs: a confirm dialog with a CRUSH-map preview keeps its buttons on screen.
        await pilot.press(TAB_KEYS["osds"])
        await until(pilot, app, lambda t: re.search(osd_row.format(0), t), "osd.0")
        table = app.pane(OSDsPane).vtable
        target = next(i for i, r in enumerate(table.rows) if r.is_osd and r.node.id == 0)
        await pilot.press("home", *["down"] * target)
        sent = len(audit_lines(audit_log))
        await pilot.press("o")
        await until(pilot, app, lambda t: "ceph osd out 0" in t, "the confirm dialog")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        await until(pilot, app, lambda t: screen.preview_state != "running" and "Run" in t, "the preview",
                    timeout=40)
        for button in ("#confirm-cancel", "#confirm-run"):
            assert on_screen(app, screen.query_one(button)), screen_text(app)
        await click(pilot, "#confirm-cancel")  # clicking proves it is reachable: off screen, click fails
        await until(pilot, app, lambda t: not isinstance(app.screen, ConfirmScreen), "the dialog closed")
        assert len(audit_lines(audit_log)) == sent, "cancel sent something"

        # A form, then the removal wizard's plan (every step listed, typed confirmation, buttons).
        await pilot.press("w")
        await until(pilot, app, lambda t: "Reweight osd.0" in t and "Next" in t, "the reweight form")
        assert on_screen(app, app.screen.query_one("#form-ok"))
        await pilot.press("escape")
        await pilot.press("X")
        await until(pilot, app, lambda t: "Remove or replace osd.0" in t, "the removal form")
        assert isinstance(app.screen, FormScreen)
        await click(pilot, "#form-ok")
        text = await until(pilot, app, lambda t: "type osd.0 to start" in t, "the removal plan")
        assert "Preflight" in text and "Start" in text, text  # the preflight first, the commands below
        for button in ("#plan-cancel", "#plan-start", "#plan-typed"):
            assert on_screen(app, app.screen.query_one(button)), text
        await click(pilot, "#plan-cancel")
        await until(pilot, app, lambda t: "type osd.0 to start" not in t, "the plan closed")
        assert len(audit_lines(audit_log)) == sent

        # The OSD detail and the help fit in 80 columns and scroll.
        await pilot.press("enter")
        await until(pilot, app, lambda t: "osd.0 (escape closes)" in t and "Metadata" in t, "the OSD detail")
        assert app.screen.query_one("VerticalScroll").region.right <= SMALL[0]
        await pilot.press("escape")
        await pilot.press("question_mark")
        await until(pilot, app, lambda t: "OSDs tab" in t and "filter: osd.3" in t, "the OSDs tab's help")
        await pilot.press("escape")

        # A replacement half-way (shown, never run: its engine is not the app's): "Now" and the log of
        # commands stay on screen; the offer to resume an interrupted one keeps its buttons.
        state = Removal(osds=[0], replace=True, step="replace", waiting_for="put in the new disk(s) and run on "
                        "the host: ceph-volume lvm create --osd-id 0 --data /dev/DEVICE",
                        checks=[{"name": "ok-to-stop", "level": "ok", "detail": "stopping them now would leave every "
                                 "PG available"}] * 5,
                        log=[{"time": time.time(), "cli": f"ceph osd out {i}", "text": "marked out"} for i in range(4)])
        app.push_screen(RemovalScreen(RemovalEngine(app.client, state, WorkflowStore(tmp_path))))
        text = await until(pilot, app, lambda t: "RUNNING · step replace" in t and "ceph osd out 3" in t,
                           "the removal screen's status and log")
        assert "ceph-volume lvm create" in text, text
        await pilot.press("escape")
        app.push_screen(ResumeScreen(state))
        await until(pilot, app, lambda t: "An interrupted workflow" in t, "the resume offer")
        for button in ("#resume-later", "#resume-go"):
            assert on_screen(app, app.screen.query_one(button)), screen_text(app)
        await click(pilot, "#resume-later")
    assert 3 <= small_pg_rows <= 8
