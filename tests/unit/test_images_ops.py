"""Image operations (cephtui/ceph/images/ops.py): what each builder refuses and the `rbd` command it shows, on
the details cephtui's reader read of real images (tests/fixtures/images/images.json, captured with
scripts/capture_images_fixture.py alongside the rbd CLI's own JSON of each image)."""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from cephtui.ceph.errors import CephReadOnly
from cephtui.ceph.format import human_bytes
from cephtui.ceph.images import ops
from cephtui.ceph.images.model import ImageInfo, ImageRef, Place, Snap, TrashEntry, Watcher
from cephtui.ceph.ops.core import DESTROYS
from tests.conftest import FIXTURES

CAPTURE = json.loads((FIXTURES / "images" / "images.json").read_text())
NOW = dt.datetime.fromisoformat(CAPTURE["captured_at"])  # naive UTC, as librbd's timestamps


def _time(text: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(text) if text else None


def image(spec: str, du: str = "fast") -> ImageInfo:
    """The captured ImageInfo of `spec`, rebuilt field by field."""
    f: dict[str, Any] = dict(CAPTURE["images"][f"{spec} du={du}"]["fields"])
    f["ref"] = ImageRef(**f["ref"])
    f["features"], f["children"] = tuple(f["features"]), tuple(f["children"])
    f["snaps"] = tuple(Snap(**{**s, "timestamp": _time(s["timestamp"])}) for s in f["snaps"])
    f["watchers"] = tuple(Watcher(**w) for w in f["watchers"])
    f["created"] = _time(f["created"])
    return ImageInfo(**f)


def rbd_says(spec: str) -> dict[str, Any]:
    """The rbd CLI's JSON of that image, captured at the same time: info, du, snap_ls, status."""
    out: dict[str, Any] = CAPTURE["images"][f"{spec} rbd"]
    return out


def trash(name: str) -> TrashEntry:
    (f,) = [dict(e) for e in CAPTURE["trash"] if e["name"] == name]
    return TrashEntry(**{**f, "deleted": _time(f["deleted"]), "deferred_until": _time(f["deferred_until"])})


def children(spec: str) -> tuple[str, ...]:
    return tuple(CAPTURE["snap_children"][spec])


BASE, CLONE, NOFD, PLAIN, WATCHED, INNS = ("rbd/cap-base", "rbd/cap-clone", "rbd/cap-nofd", "rbd/cap-plain",
                                           "rbd/cap-watched", "rbd/capns/cap-inns")


@pytest.mark.parametrize("key", sorted(k for k in CAPTURE["images"] if " du=" in k))
def test_the_rebuilt_details_are_the_captured_ones(key: str) -> None:
    spec, du = key.split(" du=")
    info = image(spec, du)
    assert info.to_json() == CAPTURE["images"][key]["to_json"]
    said = rbd_says(spec)
    assert (info.size, info.id, list(info.features)) == (said["info"]["size"], said["info"]["id"],
                                                         said["info"]["features"])
    assert [s.name for s in info.snaps] == [s["name"] for s in said["snap_ls"]]
    assert [w.address for w in info.watchers] == [w["address"] for w in said["status"]["watchers"]]


# ------------------------------------------------------------------ resize

def test_shrink_needs_the_typed_name_and_says_the_bytes_lost() -> None:
    info = image(BASE)
    (head,) = [d for d in rbd_says(BASE)["du"]["images"] if "snapshot" not in d]
    op = ops.build_resize(info, "16M")
    assert op.cli == "rbd resize --size 16M --allow-shrink rbd/cap-base"
    assert op.impact == DESTROYS and op.confirm_text == "cap-base"
    assert dict(op.args) == {"pool": "rbd", "namespace": "", "image": "cap-base", "size": 16 << 20,
                             "allow_shrink": True}
    lost = min(head["used_size"], head["provisioned_size"] - (16 << 20))  # rbd du's numbers
    assert f"everything past 16.0 MiB is discarded for good: up to {human_bytes(lost)} of written data" in op.effect
    assert op.title == "Shrink rbd/cap-base from 64.0 MiB to 16.0 MiB"


def extents(spec: str) -> tuple[tuple[int, int], ...]:
    """Where the image holds data, as reader.used_extents read it in the capture."""
    return tuple((int(o), int(n)) for o, n in CAPTURE["images"][f"{spec} extents"])


def rbd_diff_past(spec: str, end: int) -> int:
    """Bytes past `end` in the objects `rbd diff --whole-object` lists (the rbd CLI's own answer)."""
    return sum(max(0, d["offset"] + d["length"] - max(d["offset"], end))
               for d in rbd_says(spec)["diff"] if d["exists"] == "true")


@pytest.mark.parametrize("spec", [BASE, NOFD, PLAIN, WATCHED, INNS])
def test_used_extents_are_what_rbd_diff_lists(spec: str) -> None:
    merged: list[tuple[int, int]] = []
    for d in rbd_says(spec)["diff"]:
        if d["exists"] == "true":
            if merged and sum(merged[-1]) == d["offset"]:
                merged[-1] = (merged[-1][0], merged[-1][1] + d["length"])
            else:
                merged.append((d["offset"], d["length"]))
    assert extents(spec) == tuple(merged)


@pytest.mark.parametrize("new", ["4M", "6M", "8M", "16M"])
def test_shrink_with_the_extents_says_exactly_the_bytes_lost(new: str) -> None:
    end = ops.parse_image_size(new)
    op = ops.build_resize(image(BASE), new, extents(BASE))
    assert f"is discarded for good: {human_bytes(rbd_diff_past(BASE, end))} of written data" in op.effect
    assert op.confirm_text == "cap-base" and op.impact == DESTROYS


def test_shrink_of_an_image_whose_used_size_was_not_measured() -> None:
    info = image(NOFD)  # no fast-diff: --du fast left it unmeasured
    assert info.used is None
    op = ops.build_resize(info, "8M")
    assert "an unknown amount of data (used size not measured)" in op.effect and op.confirm_text == "cap-nofd"
    measured = ops.build_resize(image(NOFD, "scan"), "8M")
    (head,) = [d for d in rbd_says(NOFD)["du"]["images"] if "snapshot" not in d]
    assert f"up to {human_bytes(min(head['used_size'], (32 - 8) << 20))} of written data" in measured.effect


def test_shrink_does_not_claim_an_unmeasured_image_holds_nothing() -> None:
    assert "holds 0 B" not in ops.build_resize(image(NOFD), "8M").effect


def test_shrink_does_not_call_the_heads_diff_all_the_image_holds() -> None:
    info = image(BASE)
    total = sum(d["used_size"] for d in rbd_says(BASE)["du"]["images"])  # rbd du's <TOTAL>: snapshots and head
    assert info.snaps and info.used is not None and info.used < total
    assert f"holds {human_bytes(info.used)} in all" not in ops.build_resize(info, "16M").effect


def test_grow_is_safe_and_same_size_is_refused() -> None:
    info = image(INNS)
    op = ops.build_resize(info, "1G")
    assert op.cli == "rbd resize --size 1G rbd/capns/cap-inns" and op.impact != DESTROYS and op.confirm_text is None
    assert dict(op.args)["namespace"] == "capns" and "filesystem inside still needs growing" in op.effect
    with pytest.raises(ValueError, match="rbd/capns/cap-inns is already 16.0 MiB"):
        ops.build_resize(info, "16M")


@pytest.mark.parametrize("text, why", [("", "new size: not a size"), ("0", "new size: not a size"),
                                       ("-1G", "new size: not a size"), ("1.5", "new size: not a size"),
                                       ("lots", "new size: not a size"), ("4.", "new size: '4.' is an incomplete")])
def test_bad_sizes_say_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        ops.build_resize(image(PLAIN), text)


# ------------------------------------------------------------------ snapshots

def test_unprotect_with_clones_names_them() -> None:
    info = image(BASE)
    kids = children("rbd/cap-base@gold")
    assert kids == ("rbd/cap-clone",) == tuple(info.children)
    with pytest.raises(ValueError, match=r"rbd/cap-base@gold cannot be unprotected while it has clones: "
                                         r"rbd/cap-clone \(flatten them, or remove them, first\)"):
        ops.build_protect(info, "gold", False, kids)
    op = ops.build_protect(info, "gold", False, ())  # once the clones are gone
    assert op.cli == "rbd snap unprotect rbd/cap-base@gold" and op.prefix == "rbd snap unprotect"
    with pytest.raises(ValueError, match="rbd/cap-base@gold is already protected"):
        ops.build_protect(info, "gold", True)
    with pytest.raises(ValueError, match="rbd/cap-base@first is not protected"):
        ops.build_protect(info, "first", False, children("rbd/cap-base@first"))
    assert ops.build_protect(info, "first", True).cli == "rbd snap protect rbd/cap-base@first"
    with pytest.raises(ValueError, match="no snapshot 'nope' on rbd/cap-base"):
        ops.build_protect(info, "nope", True)


def test_snapshot_remove_refuses_a_protected_one_and_one_with_clones() -> None:
    info = image(BASE)
    with pytest.raises(ValueError, match="rbd/cap-base@gold is protected: unprotect it first"):
        ops.build_snap_remove(info, "gold", children("rbd/cap-base@gold"))
    op = ops.build_snap_remove(info, "first", children("rbd/cap-base@first"))
    assert op.cli == "rbd snap rm rbd/cap-base@first" and op.impact == DESTROYS and op.confirm_text == "first"
    with pytest.raises(ValueError, match="has clones: rbd/cap-clone"):
        ops.build_snap_remove(info, "first", ("rbd/cap-clone",))


def test_snapshot_create() -> None:
    with pytest.raises(ValueError, match="rbd/cap-base@first already exists"):
        ops.build_snap_create(image(BASE), "first")
    op = ops.build_snap_create(image(BASE), "third")
    assert op.cli == "rbd snap create rbd/cap-base@third" and op.effect == ""
    watched = ops.build_snap_create(image(WATCHED), "s1")
    assert "crash-consistent" in watched.effect
    with pytest.raises(ValueError, match="snapshot name 'a@b': no '/', '@' or spaces"):
        ops.build_snap_create(image(BASE), "a@b")


def test_rollback_of_a_watched_image_is_refused() -> None:
    info = image(WATCHED)
    (w,) = rbd_says(WATCHED)["status"]["watchers"]
    assert [x.address for x in info.watchers] == [w["address"]]
    with pytest.raises(ValueError) as e:
        ops.build_rollback(info, "any")  # no such snapshot: that is said first
    assert "no snapshot 'any'" in str(e.value)
    base = image(BASE)
    op = ops.build_rollback(base, "first")
    assert op.cli == "rbd snap rollback rbd/cap-base@first" and op.impact == DESTROYS
    assert op.confirm_text == "cap-base" and "written since first is lost" in op.effect
    watched = ImageInfo(**{**base.__dict__, "watchers": info.watchers})  # base's snapshots, watched
    with pytest.raises(ValueError, match=f"rbd/cap-base is in use: watched by client.{w['client']} at "
                                         f"{w['address']}"):
        ops.build_rollback(watched, "first")


# ------------------------------------------------------------------ remove, trash

def test_remove_refused_with_watchers() -> None:
    info = image(WATCHED)
    (w,) = rbd_says(WATCHED)["status"]["watchers"]
    host = info.watchers[0].host
    with pytest.raises(ValueError) as e:
        ops.build_remove(info)
    assert str(e.value).startswith(f"rbd/cap-watched is in use: watched by client.{w['client']} at {w['address']}"
                                   + (f" ({host})" if host else ""))
    assert "`rbd status rbd/cap-watched`" in str(e.value) and "stop it first" in str(e.value)
    with pytest.raises(ValueError, match="rbd/cap-watched is in use"):
        ops.build_trash_move(info)


def test_remove_refused_with_snapshots() -> None:
    names = [s["name"] for s in rbd_says(BASE)["snap_ls"]]
    protected = [s["name"] for s in rbd_says(BASE)["snap_ls"] if s["protected"] == "true"]
    with pytest.raises(ValueError) as e:
        ops.build_remove(image(BASE))
    assert str(e.value).startswith(f"rbd/cap-base has {len(names)} snapshot(s) ({', '.join(names)}), "
                                   f"protected: {', '.join(protected)}, and clones: rbd/cap-clone: librbd removes "
                                   "no image with snapshots. Flatten or remove the clones, then remove the snapshots")


def test_remove_of_an_image_without_snapshots_or_watchers() -> None:
    for spec in (PLAIN, CLONE, INNS):
        info = image(spec)
        op = ops.build_remove(info)
        assert op.cli == f"rbd rm {spec}" and op.impact == DESTROYS and op.confirm_text == info.ref.name
        assert f"its {human_bytes(info.used or 0)} is deleted for good" in op.effect
    assert ops.build_remove(image(NOFD)).effect.startswith("its data is deleted for good")  # not measured


@pytest.mark.parametrize("delay, why", [("soon", "delay: whole seconds, not 'soon'"), ("-5", "delay: 0 or more"),
                                        ("1.5", "delay: whole seconds, not '1.5'")])
def test_trash_delay_must_be_whole_seconds(delay: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        ops.build_trash_move(image(PLAIN), delay)


def test_trash_move_and_the_cli_the_capture_ran() -> None:
    assert ops.build_trash_move(image(PLAIN)).cli == "rbd trash mv rbd/cap-plain"
    # scripts/capture_images_fixture.py ran this form: `rbd trash mv --expires-at "now + 3600 seconds" ...`
    op = ops.build_trash_move(image(PLAIN), "3600")
    assert op.cli == "rbd trash mv --expires-at 'now + 3600 seconds' rbd/cap-plain"
    later = trash("cap-trash-later")
    assert later.deleted is not None and later.deferred_until is not None
    assert abs((later.deferred_until - later.deleted).total_seconds() - 3600) <= 1


def test_trash_remove_forces_only_before_the_deferment_ends() -> None:
    now_entry, later = trash("cap-trash-now"), trash("cap-trash-later")
    status = {e["name"]: e["status"] for e in CAPTURE["trash_ls"]}
    assert status["cap-trash-now"].startswith("expired") and status["cap-trash-later"].startswith("protected until")
    assert now_entry.expired(NOW) and not later.expired(NOW)  # as `rbd trash ls --long` said
    op = ops.build_trash_remove(now_entry, NOW)
    assert op.cli == f"rbd trash rm rbd/{now_entry.id}" and op.confirm_text == "cap-trash-now"
    forced = ops.build_trash_remove(later, NOW)
    assert forced.cli == f"rbd trash rm --force rbd/{later.id}" and "--force" in forced.effect
    assert dict(forced.args)["force"] is True


def test_trash_purge_counts_only_what_is_due() -> None:
    entries = (trash("cap-trash-now"), trash("cap-trash-later"))
    op = ops.build_trash_purge(Place("rbd"), entries, NOW)
    assert op.cli == "rbd trash purge rbd" and op.title.startswith("Purge 1 expired image(s)")
    assert op.effect == "removes for good: cap-trash-now" and op.confirm_text == "rbd"
    with pytest.raises(ValueError, match="nothing in rbd's trash has passed its deferment time"):
        ops.build_trash_purge(Place("rbd"), entries[1:], NOW)


def test_trash_restore() -> None:
    entry = trash("cap-trash-now")
    assert ops.build_trash_restore(entry).cli == f"rbd trash restore rbd/{entry.id}"
    assert ops.build_trash_restore(entry, "back").cli == f"rbd trash restore --image back rbd/{entry.id}"
    with pytest.raises(ValueError, match="new name 'a/b'"):
        ops.build_trash_restore(entry, "a/b")


# ------------------------------------------------------------------ clone, flatten, create

def test_flatten_only_a_clone() -> None:
    with pytest.raises(ValueError, match="rbd/cap-base is not a clone: nothing to flatten"):
        ops.build_flatten(image(BASE))
    clone = image(CLONE)
    parent = rbd_says(CLONE)["info"]["parent"]
    assert clone.parent == f"{parent['pool']}/{parent['image']}@{parent['snapshot']}"
    op = ops.build_flatten(clone)
    assert op.cli == "ceph rbd task add flatten rbd/cap-clone" and op.prefix == "rbd task add flatten"
    assert clone.parent in op.effect


def test_clone_targets() -> None:
    base = image(BASE)
    assert ops.build_clone(base, "gold", "vm1").cli == "rbd clone rbd/cap-base@gold rbd/vm1"
    op = ops.build_clone(base, "gold", "rbd/capns/vm2")
    assert op.cli == "rbd clone rbd/cap-base@gold rbd/capns/vm2" and op.effect == ""
    assert dict(op.args)["child_namespace"] == "capns"
    assert "not protected" in ops.build_clone(base, "first", "vm3").effect
    with pytest.raises(ValueError, match="clone name: required"):
        ops.build_clone(base, "gold", "rbd/")
    with pytest.raises(ValueError, match="no snapshot 'nope'"):
        ops.build_clone(base, "nope", "vm4")


def test_create() -> None:
    op = ops.build_create(Place("rbd", "capns"), "new", "1G", "1M", "layering, exclusive-lock")
    assert op.cli == ("rbd create --size 1G --object-size 1M --image-feature layering --image-feature "
                      "exclusive-lock rbd/capns/new")
    assert dict(op.args)["size"] == 1 << 30 and dict(op.args)["object_size"] == 1 << 20
    # object sizes as the capture's images have them (rbd info's object_size)
    inns = rbd_says(INNS)["info"]["object_size"]
    assert ops.build_create(Place("rbd"), "x", "16M", str(inns)).cli == "rbd create --size 16M --object-size 1M rbd/x"


@pytest.mark.parametrize("name, size, obj, features, why", [
    ("", "1G", "", "", "image name: required"),
    ("a/b", "1G", "", "", "image name 'a/b': no '/', '@' or spaces"),
    ("a b", "1G", "", "", "no '/', '@' or spaces"),
    ("ok", "0", "", "", "size: not a size"),
    ("ok", "1G", "3K", "", "object size: a power of two from 4K to 32M"),
    ("ok", "1G", "64M", "", "object size: a power of two from 4K to 32M"),
    ("ok", "1G", "", "layering,turbo", "unknown feature 'turbo'"),
])
def test_create_refusals(name: str, size: str, obj: str, features: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        ops.build_create(Place("rbd"), name, size, obj, features)


def test_execute_in_read_only_mode_sends_nothing() -> None:
    class ReadOnly:
        read_only = True

        @property
        def handle(self) -> Any:
            raise AssertionError("read-only: librbd must not be reached")

    op = ops.build_remove(image(PLAIN))
    with pytest.raises(CephReadOnly, match="read-only mode"):
        ops.execute(ReadOnly(), op)
    assert op.prefix in ops.LIBRBD_PREFIXES and "rbd task add flatten" not in ops.LIBRBD_PREFIXES
    # ops.run takes the same path: the operation carries librbd as what runs it, never a mon command.
    from cephtui.ceph.ops.core import run
    with pytest.raises(CephReadOnly, match="read-only mode"):
        run(ReadOnly(), op)  # type: ignore[arg-type]
    assert op.run_by is ops.execute


def test_librbd_operations_carry_their_runner_and_mgr_ones_do_not() -> None:
    from cephtui.ceph.images.model import Place
    made = [ops.build_create(Place("rbd"), "x", "1G"), ops.build_remove(image(PLAIN)),
            ops.build_flatten(image(CLONE), via_mgr=False)]
    assert all(op.prefix in ops.LIBRBD_PREFIXES and op.run_by is ops.execute for op in made)
    task = ops.build_flatten(image(CLONE))
    assert task.cli == "ceph rbd task add flatten rbd/cap-clone" and task.run_by is None  # the mgr's command
    assert made[-1].cli == "rbd flatten rbd/cap-clone"


def test_a_bare_size_is_mebibytes_as_rbd_reads_it() -> None:
    from cephtui.ceph.images.model import Place
    op = ops.build_create(Place("rbd"), "x", "10", "4096")
    assert op.cli == "rbd create --size 10M --object-size 4K rbd/x"
    assert dict(op.args)["size"] == 10 * 1024**2 and dict(op.args)["object_size"] == 4096
