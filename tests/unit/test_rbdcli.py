"""`cephtui rbd ls` without a cluster: its command line, python3-rbd missing, --pool's forms, the rbd-style sizes
(tests/cluster/test_rbd_ls.py holds them against `rbd ls -l` itself)."""
from __future__ import annotations

import datetime as dt
import io

import pytest

from cephtui.ceph.images import listing
from cephtui.ceph.images.model import ImageRef, Place
from cephtui.cli import dispatch as cli
from cephtui.cli import rbd_ls as rbdcli
from cephtui.cli import table


def test_registered_with_its_options() -> None:
    _, args, _ = cli.parse_command_line(["-c", "x.conf", "rbd", "ls", "--pool", "rbd/ns", "--du", "scan", "--json"])
    assert (args.command, args.action, args.pool, args.du, args.json) == ("rbd", "ls", "rbd/ns", "scan", True)
    _, args, _ = cli.parse_command_line(["rbd", "ls"])
    assert (args.pool, args.du, args.json) == (None, "fast", False)
    assert "rbd" in table.NAMES


def test_without_python3_rbd_one_paragraph_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing, "rbd", None)
    _, args, _ = cli.parse_command_line(["rbd", "ls"])
    out, err = io.StringIO(), io.StringIO()
    assert rbdcli.rbd_command(object(), args, out, err) == 1  # type: ignore[arg-type]  # nothing is asked
    text = err.getvalue()
    assert text.count("\n") == 1 and text.startswith("cephtui rbd ls: `cephtui rbd ls` needs librbd's Python module")
    assert "apt install python3-rbd" in text and "dnf install python3-rbd" in text and out.getvalue() == ""


@pytest.mark.parametrize("text, place", [("rbd", Place("rbd")), ("rbd/ns1", Place("rbd", "ns1")),
                                         (" vms ", Place("vms"))])
def test_pool_and_namespace(text: str, place: Place) -> None:
    assert rbdcli.parse_place(text) == place


@pytest.mark.parametrize("text", ["", "/ns", "rbd/", "rbd/a/b", "rbd@snap", "my pool"])
def test_a_bad_pool_spec_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="a pool, or pool/namespace"):
        rbdcli.parse_place(text)


@pytest.mark.parametrize("n, text", [(0, "0 B"), (1023, "1023 B"), (4 << 20, "4 MiB"), (1536 << 20, "1.5 GiB"),
                                     (10000 << 10, "9.8 MiB"), ((100 << 20) + 1, "100 MiB"), (1 << 40, "1 TiB")])
def test_sizes_as_rbd_prints_them(n: int, text: str) -> None:
    assert rbdcli.rbd_bytes(n) == text


def test_ages_of_utc_timestamps_naive_or_not() -> None:
    now = dt.datetime(2026, 1, 2, 3, 4, 5)
    assert rbdcli.age_words(dt.datetime(2026, 1, 2, 3, 0, 0), now) == "4m05s"
    aware = dt.datetime(2026, 1, 2, 4, 0, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))  # 03:00 UTC
    assert rbdcli.age_words(aware, now) == "4m05s"
    assert rbdcli.age_words(None, now) == "" and rbdcli.age_words(now + dt.timedelta(seconds=3), now) == "0s"


def test_an_unreadable_image_keeps_the_json_keys_and_its_row() -> None:
    row = rbdcli.unreadable(ImageRef("rbd", "vm1", "ns"), "cannot read it: [errno 5] EIO")
    assert {"name", "pool", "namespace", "provisioned_size", "used_size", "snapshots", "watchers"} <= set(row)
    lines = rbdcli.table_lines([row], with_place=True)
    assert lines[1].startswith("rbd/ns/vm1") and "(cannot read it: [errno 5] EIO)" in lines[1]


def test_the_table_of_captured_images() -> None:
    from tests.unit.test_images_ops import BASE, CLONE, NOFD, NOW, WATCHED, image, rbd_says

    rows = [image(BASE), image(CLONE), image(NOFD), image(WATCHED)]
    lines = rbdcli.table_lines(rows, with_place=False, now=NOW)
    header = lines[0].split("  ")
    assert [h.strip() for h in header if h.strip()][:3] == ["NAME", "SIZE", "USED"]
    by_name = {line.split()[0]: line for line in lines[1:5]}
    assert by_name["cap-base"].split()[1:4] == ["64", "MiB", "8"]  # rbd du's 8 MiB written since gold
    assert by_name["cap-nofd"].split()[3] == "?"  # no fast-diff: not measured
    assert "rbd/cap-base@gold" in by_name["cap-clone"]
    (w,) = rbd_says(WATCHED)["status"]["watchers"]
    host = image(WATCHED).watchers[0].host
    assert by_name["cap-watched"].endswith(w["address"] + (f" ({host})" if host else ""))
    assert "? not measured: 1 image(s) without a valid fast-diff map" in "\n".join(lines)
    scanned = rbdcli.table_lines([image(NOFD, "scan")], with_place=True, du="scan", now=NOW)
    assert scanned[1].split()[:4] == ["rbd/cap-nofd", "32", "MiB", "8"] and len(scanned) == 2
