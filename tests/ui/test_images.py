"""The Images tab through Pilot on a real sandbox: every change made through the tab's keys and checked
against the `rbd` CLI (`rbd info`, `rbd snap ls`, `rbd du`, `rbd status`, `rbd trash ls`,
`rbd perf image iostat`)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rbd
from textual.pilot import Pilot

from cephtui.ceph.images.model import ImageRef
from cephtui.ui.app import CephTUI
from cephtui.ui.panes.images import ImagesPane
from cephtui.ui.screens.confirm import ConfirmScreen
from cephtui.ui.screens.image_detail import ImageDetailScreen
from cephtui.ui.screens.wizards.form import FormScreen
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, click, plain, show_tab, text_of, wait_for, wait_screen

MiB = 1024 * 1024


def rbd_cli(sandbox: Sandbox, *args: str, env: dict[str, str] | None = None) -> Any:
    """`rbd ARGS --format json` as an admin types it, parsed."""
    out = subprocess.run(["rbd", "-c", str(sandbox.conf), *args, "--format", "json"], capture_output=True,
                         text=True, timeout=120, check=True, env=env).stdout
    return json.loads(out) if out.strip() else None


def rbd_plain(sandbox: Sandbox, *args: str) -> None:
    subprocess.run(["rbd", "-c", str(sandbox.conf), *args], capture_output=True, text=True, timeout=300, check=True)


def remove_images(sandbox: Sandbox, *names: str) -> None:
    """Take away what a test made, whatever state it got to (snapshots protected, in the trash)."""
    for name in names:
        for cmd in (["snap", "unprotect", f"rbd/{name}@s1"], ["snap", "purge", f"rbd/{name}"], ["rm", f"rbd/{name}"]):
            subprocess.run(["rbd", "-c", str(sandbox.conf), *cmd], capture_output=True, timeout=120)
    for e in rbd_cli(sandbox, "trash", "ls", "rbd") or []:
        if e["name"] in names:
            subprocess.run(["rbd", "-c", str(sandbox.conf), "trash", "rm", f"rbd/{e['id']}"], capture_output=True,
                           timeout=120)


@pytest.fixture
def images(sandbox: Sandbox) -> Iterator[list[str]]:
    made: list[str] = []
    yield made
    remove_images(sandbox, *reversed(made))


def notes(app: CephTUI) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


async def open_images(app: CephTUI, pilot: Pilot, *names: str) -> ImagesPane:
    """`:images`, as the tab has no number key; then wait for these images' rows and details."""
    await wait_for(pilot, lambda: app.snapshot is not None, 15, "a first snapshot")
    await show_tab(pilot, "", "images")
    pane = app.query_one(ImagesPane)
    await wait_for(pilot, lambda: pane.place is not None and all(n in pane.names for n in names), 20,
                   f"the images {names} listed")
    return pane


async def select(pane: ImagesPane, pilot: Pilot, name: str) -> ImageRef:
    """The cursor onto the image's row, as a person would; once its details are read."""
    await wait_for(pilot, lambda: any(r.name == name for r in pane.vtable.rows), 10, f"{name}'s row")
    target = next(i for i, r in enumerate(pane.vtable.rows) if r.name == name)
    pane.vtable.focus()
    await pilot.press("home", *["down"] * target)
    ref = pane.selected()
    assert ref is not None and ref.name == name
    await wait_for(pilot, lambda: ref in pane.details, 20, f"{name}'s details")
    return ref


async def fill_form(app: CephTUI, pilot: Pilot, values: dict[str, str]) -> FormScreen:
    form = await wait_screen(pilot, FormScreen, what="the form")
    for key, value in values.items():
        field = form.query_one(f"#field-{key}")
        field.focus()
        await wait_for(pilot, lambda f=field: app.focused is f, 5, f"the focus in {key}")
        await pilot.press("ctrl+u", *value) if value else await pilot.press("ctrl+u")
    await wait_for(pilot, lambda: "✖" not in text_of(app, "#form-status"), 5, "the form accepting the values")
    await click(pilot, "#form-ok")
    return form


async def run_confirm(app: CephTUI, pilot: Pilot, cli: str, typed: str = "") -> str:
    screen = await wait_screen(pilot, ConfirmScreen, what=f"the confirmation of {cli}")
    assert f"$ {cli}" in text_of(app, "#confirm-commands"), text_of(app, "#confirm-commands")
    if typed:
        await pilot.press(*typed)
    await click(pilot, "#confirm-run")
    await wait_for(pilot, lambda: screen.state == "done", 60, f"{cli} answered")
    result = text_of(app, "#confirm-result")
    assert screen.outcome.ok, result
    await click(pilot, "#confirm-run")
    await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), 5, "the dialog closing")
    return result


def librbd_info(sandbox: Sandbox, name: str) -> dict[str, Any]:
    """Read by librbd in the test (a condition polled often; the `rbd` CLI checks the end state)."""
    import rados
    with rados.Rados(conffile=str(sandbox.conf)) as r, r.open_ioctx("rbd") as io:
        try:
            with rbd.Image(io, name, read_only=True) as im:
                try:
                    parent = im.get_parent_image_spec()["image_name"]
                except rbd.ImageNotFound:
                    parent = ""
                return {"size": im.size(), "parent": parent}
        except rbd.ImageNotFound:
            return {}


@pytest.mark.tier
async def test_create_snapshot_protect_clone_flatten_trash_restore_through_the_tab(
        make_app, sandbox: Sandbox, images: list[str], audit_log: Path) -> None:
    images += ["cti-a", "cti-c"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_images(app, pilot)

        # Create: the form, the exact command, the confirmation; then as `rbd info` says.
        await pilot.press("c")
        await fill_form(app, pilot, {"name": "cti-a", "size": "64M"})
        await run_confirm(app, pilot, "rbd create --size 64M rbd/cti-a")
        info = rbd_cli(sandbox, "info", "rbd/cti-a")
        assert info["size"] == 64 * MiB
        rbd_plain(sandbox, "bench", "--io-type", "write", "--io-total", "12M", "--io-size", "4M", "rbd/cti-a")
        await wait_for(pilot, lambda: "cti-a" in pane.names, 20, "cti-a listed")

        # Its row: the sizes `rbd du` gives, once `r` has read again what the bench (not cephtui) changed.
        ref = await select(pane, pilot, "cti-a")
        await pilot.press("r")
        du = {(i["name"], i.get("snapshot")): i for i in rbd_cli(sandbox, "du", "rbd/cti-a")["images"]}
        await wait_for(pilot, lambda: pane.details[ref].used == du[("cti-a", None)]["used_size"], 20,
                       f"the used size of rbd du ({du})")
        assert pane.details[ref].size == du[("cti-a", None)]["provisioned_size"]
        row = pane.vtable.get_row_at(pane.vtable.cursor)
        assert row[1] == "64.0 MiB" and row[2] == "12.0 MiB", row

        # A snapshot, from the tab.
        await pilot.press("s")
        await fill_form(app, pilot, {"snap": "s1"})
        await run_confirm(app, pilot, "rbd snap create rbd/cti-a@s1")
        assert [s["name"] for s in rbd_cli(sandbox, "snap", "ls", "rbd/cti-a")] == ["s1"]

        # Protect and clone in the image's own screen, with its snapshot table.
        await wait_for(pilot, lambda: pane.details.get(ref) is not None and pane.details[ref].snaps, 20,
                       "the snapshot in the row")
        await pilot.press("enter")
        detail = await wait_screen(pilot, ImageDetailScreen, what="the image's screen")
        await wait_for(pilot, lambda: detail.info is not None and detail.info.snaps, 20, "the snapshot table")
        await pilot.press("p")
        await run_confirm(app, pilot, "rbd snap protect rbd/cti-a@s1")
        assert rbd_cli(sandbox, "snap", "ls", "rbd/cti-a")[0]["protected"] == "true"
        await wait_for(pilot, lambda: detail.info is not None and detail.info.snaps[0].protected, 20,
                       "the snapshot shown protected")
        await pilot.press("l")
        await fill_form(app, pilot, {"target": "rbd/cti-c"})
        await run_confirm(app, pilot, "rbd clone rbd/cti-a@s1 rbd/cti-c")
        assert rbd_cli(sandbox, "info", "rbd/cti-c")["parent"]["image"] == "cti-a"
        await wait_for(pilot, lambda: detail.info is not None and detail.info.children == ("rbd/cti-c",), 20,
                       "the clone among the children")

        # Unprotect is refused while the clone exists, and names it; nothing is sent.
        sent = len(audit_log.read_text().splitlines())
        await pilot.press("u")
        await wait_for(pilot, lambda: "cannot be unprotected while it has clones: rbd/cti-c" in notes(app), 10,
                       "the refusal naming the clone")
        assert not isinstance(app.screen, ConfirmScreen)
        assert len(audit_log.read_text().splitlines()) == sent
        assert rbd_cli(sandbox, "snap", "ls", "rbd/cti-a")[0]["protected"] == "true"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ImageDetailScreen), 5, "the screen closed")

        # Flatten: an mgr task, followed until `rbd info` shows no parent.
        await wait_for(pilot, lambda: "cti-c" in pane.names, 20, "cti-c listed")
        child = await select(pane, pilot, "cti-c")
        assert pane.details[child].parent == "rbd/cti-a@s1"
        # Where the mgr cannot run rbd_support (Debian's Reef: MGR_MODULE_DEPENDENCY), librbd flattens it here.
        flatten = "ceph rbd task add flatten rbd/cti-c" if pane.mgr_tasks else "rbd flatten rbd/cti-c"
        assert pane.mgr_tasks == (app.client.commands().get("rbd task add flatten") is not None)
        await pilot.press("f")
        await run_confirm(app, pilot, flatten)
        await wait_for(pilot, lambda: librbd_info(sandbox, "cti-c").get("parent") == "", 60, "the flatten done")
        assert "parent" not in rbd_cli(sandbox, "info", "rbd/cti-c")

        # To the trash and back.
        await wait_for(pilot, lambda: child in pane.details and not pane.details[child].parent, 30,
                       "the row without its parent")
        await pilot.press("T")
        await run_confirm(app, pilot, "rbd trash mv rbd/cti-c")
        trash = {e["name"]: e["id"] for e in rbd_cli(sandbox, "trash", "ls", "rbd")}
        assert "cti-c" in trash and "cti-c" not in rbd_cli(sandbox, "ls", "rbd")
        await pilot.press("t")
        trash_table = pane.query_one("#images-trash")
        await wait_for(pilot, lambda: any(e.name == "cti-c" for e in pane.trash), 20, "cti-c in the trash view")
        target = next(i for i, e in enumerate(pane.trash) if e.name == "cti-c")
        trash_table.focus()
        await pilot.press("home", *["down"] * target)
        await pilot.press("u")
        await fill_form(app, pilot, {})
        await run_confirm(app, pilot, f"rbd trash restore rbd/{trash['cti-c']}")
        assert "cti-c" in rbd_cli(sandbox, "ls", "rbd")
        assert "cti-c" not in {e["name"] for e in rbd_cli(sandbox, "trash", "ls", "rbd")}

    audited = [json.loads(x)["cli"] for x in audit_log.read_text().splitlines()]
    for cli in ("rbd create --size 64M rbd/cti-a", "rbd snap create rbd/cti-a@s1", "rbd snap protect rbd/cti-a@s1",
                "rbd clone rbd/cti-a@s1 rbd/cti-c", flatten, "rbd trash mv rbd/cti-c"):
        assert cli in audited, (cli, audited)


WATCHER = """
import sys, time, rados, rbd
r = rados.Rados(conffile=sys.argv[1]); r.connect()
io = r.open_ioctx("rbd")
image = rbd.Image(io, sys.argv[2])  # read-write: registers a watch, as a VM's librbd does
print("open", flush=True)
sys.stdin.read()  # until the test closes our stdin
image.close(); io.close(); r.shutdown()
"""


@pytest.mark.tier
async def test_a_watched_image_shows_its_watcher_and_refuses_remove_rollback_and_a_bench_write(
        make_app, sandbox: Sandbox, images: list[str], audit_log: Path) -> None:
    images.append("cti-w")
    rbd_plain(sandbox, "create", "--size", "32M", "rbd/cti-w")
    rbd_plain(sandbox, "snap", "create", "rbd/cti-w@s1")
    holder = subprocess.Popen(["/usr/bin/python3", "-c", WATCHER, str(sandbox.conf), "cti-w"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        status = rbd_cli(sandbox, "status", "rbd/cti-w")["watchers"]
        assert len(status) == 1
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_images(app, pilot, "cti-w")
            ref = await select(pane, pilot, "cti-w")
            assert [w.address for w in pane.details[ref].watchers] == [status[0]["address"]]
            assert pane.details[ref].watchers[0].client_id == status[0]["client"]
            await wait_for(pilot, lambda: "in use" in plain(pane.query_one("#images-detail").content), 10,
                           "the detail saying it is in use")

            sent = len(audit_log.read_text().splitlines()) if audit_log.exists() else 0
            await pilot.press("D")
            await wait_for(pilot, lambda: "rbd/cti-w is in use: watched by" in notes(app), 15, "remove refused")
            assert not isinstance(app.screen, ConfirmScreen)
            app.clear_notifications()
            await pilot.press("enter")
            detail = await wait_screen(pilot, ImageDetailScreen, what="the image's screen")
            await wait_for(pilot, lambda: detail.info is not None and detail.info.snaps, 20, "the snapshots")
            await pilot.press("b")
            await wait_for(pilot, lambda: "rbd/cti-w is in use: watched by" in notes(app), 10, "rollback refused")
            assert isinstance(app.screen, ImageDetailScreen)
            assert (len(audit_log.read_text().splitlines()) if audit_log.exists() else 0) == sent

            # b: the Bench tab's block form with this image picked; a write, its name typed, is refused.
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, ImageDetailScreen), 5, "the screen closed")
            await pilot.press("b")
            form = await wait_screen(pilot, FormScreen, what="the block bench form")
            assert app.tabs.active == "bench"
            assert form.values()["target"] == "rbd/cti-w" or form.values()["other"] == "rbd/cti-w", form.values()
            assert form.values()["io_type"] == "write"
            await fill_form(app, pilot, {"confirm": "cti-w"})
            await wait_for(pilot, lambda: "rbd/cti-w is in use: watched by" in text_of(app, "#bench-status"), 30,
                           "the bench write refused")
        assert "cti-w" in rbd_cli(sandbox, "ls", "rbd")

        # The bench's write mode, with the name typed as it asks: refused while the image is watched.
        bench = subprocess.run([sys.executable, "-m", "cephtui", "-c", str(sandbox.conf), "bench", "rbd", "--pool",
                                "rbd", "--image", "cti-w", "--io-type", "write", "--seconds", "2",
                                "--yes-i-really-mean-it", "cti-w", "--no-save"],
                               capture_output=True, text=True, timeout=120, env={**os.environ})
        assert bench.returncode != 0, bench.stdout
        assert "is in use: watched by" in bench.stderr + bench.stdout
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=30)


async def test_io_view_ranks_images_as_rbd_perf_image_iostat(make_app, sandbox: Sandbox, images: list[str]) -> None:
    images += ["cti-io1", "cti-io2"]
    for name in images:
        rbd_plain(sandbox, "create", "--size", "256M", f"rbd/{name}")
    env = {**os.environ, "CEPH_ARGS": "--rbd_cache=false"}
    # Two writers, one with 16 ops in flight and one with 1: the first is the busier by far.
    writers = [subprocess.Popen(["rbd", "-c", str(sandbox.conf), "bench", "--io-type", "write", "--io-pattern", "rand",
                                 "--io-size", "4K", "--io-threads", threads, "--io-total", "100G", f"rbd/{name}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
               for name, threads in (("cti-io1", "16"), ("cti-io2", "1"))]
    try:
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            pane = await open_images(app, pilot, "cti-io1", "cti-io2")
            await pilot.press("i")
            await wait_for(pilot, lambda: "waiting for the mgr's first numbers" in text_of(app, "#images-summary")
                           or pane.io_view.io is not None, 10, "the IO view asking the mgr")
            table = pane.query_one("#images-io")

            def both() -> bool:
                return {"rbd/cti-io1", "rbd/cti-io2"} <= {r.spec for r in table.rows}

            await wait_for(pilot, both, 120, "both images in the IO view")
            ours = [r.spec for r in table.rows if r.spec.startswith("rbd/cti-io")]
            native = [f"{i['pool']}/{i['image']}" for i in rbd_cli(sandbox, "perf", "image", "iostat", "--iterations",
                                                                     "1", "rbd")]
            native = [s for s in native if s.startswith("rbd/cti-io")]
            assert ours == native == ["rbd/cti-io1", "rbd/cti-io2"], (ours, native)
            shown = " ".join(table.get_row_at(0))
            assert "/s" in shown and ("ms" in shown or "us" in shown)

            # The mgr dies: "mgr down" and no numbers, never the last ones or zeros; back when it is.
            sandbox.kill("mgr.x")
            await wait_for(pilot, lambda: "mgr down" in pane.io_view.io_problem and "no per-image IO" in
                           text_of(app, "#images-summary"), 60, "the IO view saying mgr down")
            assert table.row_count == 0
            sandbox.revive("mgr.x")
            await wait_for(pilot, lambda: not pane.io_view.io_problem and "no per-image IO" not in
                           text_of(app, "#images-summary"), 90, "the view asking the mgr again")
    finally:
        for w in writers:
            w.terminate()
            w.wait(timeout=30)
        sandbox.heal()


async def test_a_shrink_is_typed_says_what_is_lost_and_keeps_the_data_before_the_new_end(
        make_app, sandbox: Sandbox, images: list[str], audit_log: Path) -> None:
    images.append("cti-s")
    rbd_plain(sandbox, "create", "--size", "64M", "rbd/cti-s")
    import rados
    head = os.urandom(4 * MiB)
    with rados.Rados(conffile=str(sandbox.conf)) as r, r.open_ioctx("rbd") as io, rbd.Image(io, "cti-s") as im:
        im.write(head, 0)
        im.write(os.urandom(4 * MiB), 40 * MiB)  # past the new end: what the shrink discards
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_images(app, pilot, "cti-s")
        await select(pane, pilot, "cti-s")
        await pilot.press("e")
        await fill_form(app, pilot, {"size": "32M"})
        screen = await wait_screen(pilot, ConfirmScreen, what="the confirmation")
        body = text_of(app, "#confirm-commands") + text_of(app, "#confirm-impact")
        assert "$ rbd resize --size 32M --allow-shrink rbd/cti-s" in body
        assert "discarded for good: 4.0 MiB of written data" in body, body  # as diff-iterate finds past 32M
        await pilot.press(*"cti-x")  # a wrong name: nothing sent
        await click(pilot, "#confirm-run")
        await wait_for(pilot, lambda: "Type exactly 'cti-s'" in text_of(app, "#confirm-result"), 5, "the refusal")
        assert rbd_cli(sandbox, "info", "rbd/cti-s")["size"] == 64 * MiB
        field = screen.query_one("#confirm-typed")
        field.focus()
        await pilot.press("ctrl+u", *"cti-s")
        await click(pilot, "#confirm-run")
        await wait_for(pilot, lambda: screen.state == "done", 60, "the resize answered")
        assert screen.outcome.ok, text_of(app, "#confirm-result")
    assert rbd_cli(sandbox, "info", "rbd/cti-s")["size"] == 32 * MiB
    with rados.Rados(conffile=str(sandbox.conf)) as r, r.open_ioctx("rbd") as io, \
            rbd.Image(io, "cti-s", read_only=True) as im:
        assert im.read(0, 4 * MiB) == head
    assert any(json.loads(x)["cli"] == "rbd resize --size 32M --allow-shrink rbd/cti-s"
               for x in audit_log.read_text().splitlines())


async def test_read_only_shows_the_image_and_refuses_every_change_in_its_screen(
        make_app, sandbox: Sandbox, images: list[str], audit_log: Path) -> None:
    images.append("cti-ro")
    rbd_plain(sandbox, "create", "--size", "16M", "rbd/cti-ro")
    rbd_plain(sandbox, "snap", "create", "rbd/cti-ro@s1")
    sent = len(audit_log.read_text().splitlines()) if audit_log.exists() else 0
    app = make_app(read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_images(app, pilot, "cti-ro")
        await select(pane, pilot, "cti-ro")
        await pilot.press("enter")
        detail = await wait_screen(pilot, ImageDetailScreen, what="the image's screen")
        await wait_for(pilot, lambda: detail.info is not None and detail.info.snaps, 20, "the snapshot table")
        for key in ("s", "D", "p", "u", "b", "l"):
            app.clear_notifications()
            await pilot.press(key)
            await wait_for(pilot, lambda: "Read-only mode" in notes(app), 5, f"what {key} says")
            assert app.screen is detail, f"{key} opened {app.screen}"
    assert (len(audit_log.read_text().splitlines()) if audit_log.exists() else 0) == sent
    snaps = rbd_cli(sandbox, "snap", "ls", "rbd/cti-ro")
    assert [(s["name"], s["protected"]) for s in snaps] == [("s1", "false")]


async def test_the_summary_counts_only_images_that_are_still_listed(make_app, sandbox: Sandbox,
                                                                   images: list[str]) -> None:
    """An image removed elsewhere leaves the count: '0 of 4 in use' with 4 images, never '… of 5 read'."""
    images += ["cti-sum-a", "cti-sum-b"]
    for name in images:
        rbd_plain(sandbox, "create", "--size", "8M", f"rbd/{name}")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_images(app, pilot, *images)
        listed = len(pane.names)
        await wait_for(pilot, lambda: f"0 of {listed} in use" in text_of(app, "#images-summary"), 20,
                       "every image read, none in use")
        rbd_plain(sandbox, "rm", "rbd/cti-sum-b")
        await pilot.press("r")
        await wait_for(pilot, lambda: "cti-sum-b" not in pane.names, 20, "the removed image gone from the listing")
        summary = text_of(app, "#images-summary")
        assert f": {listed - 1} images" in summary and f"0 of {listed - 1} in use" in summary, summary


async def test_used_size_counts_what_snapshots_hold(make_app, sandbox: Sandbox, images: list[str]) -> None:
    """An image at 0 B whose snapshot keeps 8 MiB reads '0 B +8.00 MiB' (rbd du's head and snapshot lines),
    and its detail says both and the total; it read '0 B'."""
    import rados
    images.append("cti-du")
    rbd_plain(sandbox, "create", "--size", "16M", "rbd/cti-du")
    rbd_plain(sandbox, "bench", "--io-type", "write", "--io-total", "8M", "--io-size", "4M", "rbd/cti-du")
    rbd_plain(sandbox, "snap", "create", "rbd/cti-du@s1")
    with rados.Rados(conffile=str(sandbox.conf)) as r, r.open_ioctx("rbd") as io, rbd.Image(io, "cti-du") as im:
        im.discard(0, 16 * MiB)  # the head gives its data back; the snapshot keeps it
    du = {i.get("snapshot"): i["used_size"] for i in rbd_cli(sandbox, "du", "rbd/cti-du")["images"]}
    assert du["s1"] > 0, du
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_images(app, pilot, "cti-du")
        ref = await select(pane, pilot, "cti-du")
        info = pane.details[ref]
        assert (info.used, info.snaps_used) == (du[None], du["s1"]), (info, du)
        from cephtui.ceph.format import human_bytes
        row = pane.vtable.get_row_at(pane.vtable.cursor)
        assert row[2] == f"{human_bytes(du[None])} +{human_bytes(du['s1'])}", row
        detail = " ".join(text_of(app, "#images-detail").split())
        assert (f"{human_bytes(du[None])} used by the image itself, {human_bytes(du['s1'])} more by its snapshots "
                f"({human_bytes(du[None] + du['s1'])} in all, as rbd du's total)") in detail, detail
