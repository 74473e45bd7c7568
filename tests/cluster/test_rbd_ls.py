"""`cephtui rbd ls` as a process on a real cluster, held against the `rbd` CLI image by image: `rbd info`,
`rbd snap ls`, `rbd status`, `rbd du` (all --format json) and `rbd ls -l`'s sizes.

The images live in a pool of this module's own (rbdls, with the rbd application), made with the `rbd` CLI:
one with data, a snapshot and a protected snapshot with a clone; one without fast-diff (`--image-feature
layering`), whose used size only `--du scan` measures; one in a namespace. A watched image is held open
read-write by python3-rbd in a process of the test's own, ended by its pid."""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster.test_cli import run
from tests.conftest import Sandbox, wait_until

pytest.importorskip("rbd", reason="python3-rbd is not installed")
POOL, NS = "rbdls", "ns1"
IMAGES = ("base", "clone", "nofd", f"{NS}/inns", "plain", "watched")  # under POOL


def rbd_cli(sandbox: Sandbox, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(["rbd", "-c", str(sandbox.conf), *args], capture_output=True, text=True, timeout=120)
    if check and res.returncode != 0:
        raise AssertionError(f"rbd {' '.join(args)}: {res.stderr.strip()}")
    return res


def rbd_json(sandbox: Sandbox, *args: str) -> Any:
    return json.loads(rbd_cli(sandbox, *args, "--format", "json").stdout)


@pytest.fixture(scope="module")
def pool(sandbox: Sandbox) -> Iterator[str]:
    sandbox.ceph("osd", "pool", "create", POOL, "8")
    try:
        rbd_cli(sandbox, "pool", "init", POOL)
        rbd_cli(sandbox, "namespace", "create", f"{POOL}/{NS}")
        w = ("bench", "--io-type", "write", "--io-size", "4M", "--io-threads", "1")
        rbd_cli(sandbox, "create", "--size", "64M", f"{POOL}/base")
        rbd_cli(sandbox, *w, "--io-total", "12M", f"{POOL}/base")  # 3 objects, then a snapshot of them
        rbd_cli(sandbox, "snap", "create", f"{POOL}/base@first")
        rbd_cli(sandbox, *w, "--io-total", "4M", f"{POOL}/base")  # 1 object changed since
        rbd_cli(sandbox, "snap", "create", f"{POOL}/base@gold")
        rbd_cli(sandbox, "snap", "protect", f"{POOL}/base@gold")
        rbd_cli(sandbox, *w, "--io-total", "8M", f"{POOL}/base")  # the head: 2 objects past gold
        rbd_cli(sandbox, "clone", f"{POOL}/base@gold", f"{POOL}/clone")
        rbd_cli(sandbox, "create", "--size", "32M", "--image-feature", "layering", f"{POOL}/nofd")
        rbd_cli(sandbox, *w, "--io-total", "8M", f"{POOL}/nofd")
        rbd_cli(sandbox, "create", "--size", "16M", "--object-size", "1M", f"{POOL}/{NS}/inns")
        rbd_cli(sandbox, "create", "--size", "1536M", f"{POOL}/plain")  # rbd ls -l: 1.5 GiB
        rbd_cli(sandbox, "create", "--size", "10000K", f"{POOL}/watched")  # 9.8 MiB
        yield POOL
    finally:
        sandbox.ceph("osd", "pool", "delete", POOL, POOL, "--yes-i-really-really-mean-it")


def ls(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    res, _ = run("-c", str(sandbox.conf), "rbd", "ls", *args, timeout=120)
    assert "Traceback" not in res.stderr, res.stderr
    return res


def ls_json(sandbox: Sandbox, *args: str) -> dict[str, dict[str, Any]]:
    """`cephtui rbd ls --json ARGS` by image spec."""
    res = ls(sandbox, "--json", *args)
    assert res.returncode == 0, res.stderr
    out: dict[str, dict[str, Any]] = {}
    for entry in json.loads(res.stdout):
        place = f"{entry['pool']}/{entry['namespace']}" if entry["namespace"] else entry["pool"]
        out[f"{place}/{entry['name']}"] = entry
    return out


def parent_spec(p: dict[str, Any]) -> str:
    ns = f"{p['pool_namespace']}/" if p.get("pool_namespace") else ""
    return f"{p['pool']}/{ns}{p['image']}@{p['snapshot']}"


def rbd_time(text: str) -> dt.datetime:
    """`rbd snap ls`'s timestamp ("Sat Nov 28 23:02:19 2026", local time) as naive UTC, as librbd gives it."""
    local = dt.datetime.strptime(text, "%a %b %d %H:%M:%S %Y").astimezone()
    return local.astimezone(dt.timezone.utc).replace(tzinfo=None)


def assert_as_rbd_says(sandbox: Sandbox, spec: str, entry: dict[str, Any], scanned: bool = False) -> None:
    info = rbd_json(sandbox, "info", spec)
    du = rbd_json(sandbox, "du", spec)["images"]
    snaps = rbd_json(sandbox, "snap", "ls", spec)
    status = rbd_json(sandbox, "status", spec)
    what = f"{spec}: {entry}"
    assert entry["id"] == info["id"], what
    assert entry["provisioned_size"] == info["size"], what
    assert entry["object_size"] == info["object_size"], what
    assert entry["features"] == info["features"], what
    assert entry["parent"] == (parent_spec(info["parent"]) if "parent" in info else None), what
    (head,) = [d for d in du if "snapshot" not in d]
    assert entry["provisioned_size"] == head["provisioned_size"], what
    if "fast-diff" in info["features"] or scanned:
        assert entry["used_size"] == head["used_size"], what
    else:  # not measured: no fast-diff, and --du scan not given
        assert entry["used_size"] is None and entry["used_size_exact"] is False, what
    assert [s["name"] for s in entry["snapshots"]] == [s["name"] for s in snaps], what
    assert [s["id"] for s in entry["snapshots"]] == [s["id"] for s in snaps], what
    assert [s["size"] for s in entry["snapshots"]] == [s["size"] for s in snaps], what
    assert [s["protected"] for s in entry["snapshots"]] == [s["protected"] == "true" for s in snaps], what
    assert [dt.datetime.fromisoformat(s["timestamp"]) for s in entry["snapshots"]] == [
        rbd_time(s["timestamp"]) for s in snaps], what
    if "fast-diff" in info["features"] or scanned:
        by_snap = {d["snapshot"]: d["used_size"] for d in du if "snapshot" in d}
        assert {s["name"]: s["used_size"] for s in entry["snapshots"]} == by_snap, what
    assert [(w["address"], w["id"]) for w in entry["watchers"]] == [
        (w["address"], w["client"]) for w in status["watchers"]], what
    assert entry["problem"] is None, what


def test_json_is_what_rbd_says_of_every_image(sandbox: Sandbox, pool: str) -> None:
    got = ls_json(sandbox, "--pool", pool)
    assert sorted(got) == [f"{pool}/{n}" for n in rbd_json(sandbox, "ls", pool)]
    assert sorted(got) == [f"{pool}/{n}" for n in ("base", "clone", "nofd", "plain", "watched")]
    for spec, entry in got.items():
        assert (entry["pool"], entry["namespace"]) == (pool, "")
        assert_as_rbd_says(sandbox, spec, entry)
    base = got[f"{pool}/base"]
    # the data is there: 3 objects in `first`, 1 more in `gold`, 2 in the head (rbd du counts whole objects)
    assert [s["used_size"] for s in base["snapshots"]] == [12 << 20, 4 << 20] and base["used_size"] == 8 << 20
    assert [s["protected"] for s in base["snapshots"]] == [False, True]
    assert base["children"] == [f"{pool}/clone"]
    assert got[f"{pool}/clone"]["parent"] == f"{pool}/base@gold"
    assert [c["image"] for c in rbd_json(sandbox, "children", f"{pool}/base@gold")] == ["clone"]
    assert got[f"{pool}/nofd"]["used_size"] is None  # no fast-diff: not measured without --du scan
    assert got[f"{pool}/plain"]["used_size"] == 0 and got[f"{pool}/plain"]["provisioned_size"] == 1536 << 20


def test_du_scan_measures_an_image_without_fast_diff(sandbox: Sandbox, pool: str) -> None:
    got = ls_json(sandbox, "--pool", pool, "--du", "scan")
    nofd = got[f"{pool}/nofd"]
    assert nofd["features"] == ["layering"] and nofd["used_size"] == 8 << 20 and nofd["used_size_exact"] is False
    assert_as_rbd_says(sandbox, f"{pool}/nofd", nofd, scanned=True)
    none = ls_json(sandbox, "--pool", pool, "--du", "none")
    assert all(e["used_size"] is None for e in none.values())
    assert [s["name"] for s in none[f"{pool}/base"]["snapshots"]] == ["first", "gold"]


def test_a_namespace(sandbox: Sandbox, pool: str) -> None:
    got = ls_json(sandbox, "--pool", f"{pool}/{NS}")
    assert list(got) == [f"{pool}/{NS}/inns"] == [f"{pool}/{NS}/{n}" for n in rbd_json(sandbox, "ls", f"{pool}/{NS}")]
    entry = got[f"{pool}/{NS}/inns"]
    assert (entry["pool"], entry["namespace"], entry["name"]) == (pool, NS, "inns")
    assert entry["object_size"] == 1 << 20
    assert_as_rbd_says(sandbox, f"{pool}/{NS}/inns", entry)


def test_without_pool_every_rbd_pool_and_namespace(sandbox: Sandbox, pool: str) -> None:
    got = ls_json(sandbox)
    rbd_pools = [p["pool_name"] for p in sandbox.ceph("osd", "pool", "ls", "detail")
                 if "rbd" in p.get("application_metadata", {})]
    assert pool in rbd_pools
    expected = []
    for p in rbd_pools:
        for place in [p] + [f"{p}/{n['name']}" for n in rbd_json(sandbox, "namespace", "ls", p)]:
            expected += [f"{place}/{n}" for n in rbd_json(sandbox, "ls", place)]
    assert sorted(got) == sorted(expected)
    assert f"{pool}/{NS}/inns" in got and f"{pool}/base" in got
    res = ls(sandbox)  # the plain table names each image with its place
    names = [line.split()[0] for line in res.stdout.splitlines()[1:] if line.strip()]
    assert f"{pool}/{NS}/inns" in names and f"{pool}/base" in names


def columns(text: str) -> list[dict[str, str]]:
    """The plain table's rows, cut where the header's columns start (two spaces or more apart; a cell may be
    empty); up to the blank line before the notes."""
    lines = text.splitlines()
    header = lines[0]
    starts = [0] + [m.end() for m in re.finditer(r" {2,}", header)]
    cuts = list(zip(starts, starts[1:] + [len(max(lines, key=len)) + 1]))
    names = [header[a:b].strip() for a, b in cuts]
    rows = []
    for line in lines[1:]:
        if not line.strip():
            break
        rows.append({n: line[a:b].strip() for n, (a, b) in zip(names, cuts)})
    return rows


def test_plain_table_as_rbd_ls_l_prints_sizes(sandbox: Sandbox, pool: str) -> None:
    res = ls(sandbox, "--pool", pool)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    rows = {r["NAME"]: r for r in columns(res.stdout)}
    assert list(rows) == ["base", "clone", "nofd", "plain", "watched"]
    native = {}  # `rbd ls -l`: NAME SIZE PARENT FMT PROT LOCK, the images' own rows (not name@snap)
    for line in rbd_cli(sandbox, "ls", "-l", pool).stdout.splitlines()[1:]:
        name, size, unit = line.split()[:3]
        if "@" not in name:
            native[name] = f"{size} {unit}"
    assert {n: r["SIZE"] for n, r in rows.items()} == native
    assert (native["plain"], native["watched"]) == ("1.5 GiB", "9.8 MiB")  # fractions, as rbd rounds them
    assert rows["base"]["USED"] == "8 MiB" and rows["plain"]["USED"] == "0 B"
    assert rows["nofd"]["USED"] == "?" and "? not measured: 1 image(s) without a valid fast-diff map" in res.stdout
    assert rows["base"]["SNAPS"] == "2" and rows["base"]["PROT"] == "1" and rows["base"]["CHILDREN"] == "1"
    assert rows["base"]["NEWEST"].endswith("s") and rows["clone"]["PARENT"] == f"{pool}/base@gold"
    assert rows["base"]["FEATURES"] == "layering,exclusive-lock,object-map,fast-diff,deep-flatten"
    assert rows["nofd"]["FEATURES"] == "layering" and rows["base"]["OBJECT"] == "4 MiB"
    scanned = {r["NAME"]: r for r in columns(ls(sandbox, "--pool", pool, "--du", "scan").stdout)}
    assert scanned["nofd"]["USED"] == "8 MiB"


HOLDER = """
import rados, rbd, signal, sys
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
r = rados.Rados(conffile=sys.argv[1], conf={"log_to_stderr": "false"})
r.connect(timeout=10)
try:
    with r.open_ioctx(sys.argv[2]) as io, rbd.Image(io, sys.argv[3]) as image:  # read-write: a watch
        print("open", flush=True)
        signal.pause()
finally:
    r.shutdown()
"""


def test_a_watched_image_shows_its_watcher(sandbox: Sandbox, pool: str) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(sandbox.conf), pool, "watched"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open", holder.stderr
        watchers = wait_until(lambda: rbd_json(sandbox, "status", f"{pool}/watched")["watchers"], 30,
                              "the holder's watch in rbd status")
        got = ls_json(sandbox, "--pool", pool)[f"{pool}/watched"]
        assert len(watchers) == 1 and len(got["watchers"]) == 1
        assert got["watchers"][0]["address"] == watchers[0]["address"]
        assert got["watchers"][0]["id"] == watchers[0]["client"]
        # 127.0.0.1 is where the sandbox's OSDs run: the host is theirs, from `osd metadata`
        osd_hosts = {m["hostname"] for m in sandbox.ceph("osd", "metadata")}
        assert got["watchers"][0]["host"] in osd_hosts
        assert_as_rbd_says(sandbox, f"{pool}/watched", got)
        rows = {r["NAME"]: r for r in columns(ls(sandbox, "--pool", pool).stdout)}
        assert rows["watched"]["WATCHERS"] == f"{watchers[0]['address']} ({got['watchers'][0]['host']})"
        assert rows["base"]["WATCHERS"] == ""
    finally:
        os.kill(holder.pid, signal.SIGTERM)  # it closes the image: its watch goes with it
        holder.wait(timeout=30)
    assert holder.returncode == 0, holder.stderr.read() if holder.stderr else ""
    wait_until(lambda: not rbd_json(sandbox, "status", f"{pool}/watched")["watchers"], 30, "the watch gone")


@pytest.mark.parametrize("where, code, expect", [
    ("nosuchpool", 1, "cephtui rbd ls: pool 'nosuchpool' does not exist (`ceph osd pool ls` lists the pools)"),
    (f"{POOL}/nosuchns", 1, f"cephtui rbd ls: namespace 'nosuchns' does not exist in pool '{POOL}'"),
    (f"{POOL}/a/b", 2, f"cephtui rbd ls: --pool '{POOL}/a/b': a pool, or pool/namespace"),
])
def test_a_missing_pool_or_namespace_is_one_clear_line(sandbox: Sandbox, pool: str, where: str, code: int,
                                                      expect: str) -> None:
    for extra in ((), ("--json",)):
        res = ls(sandbox, "--pool", where, *extra)
        assert res.returncode == code and res.stdout == "", res
        assert res.stderr.startswith(expect) and res.stderr.count("\n") == 1, res.stderr


def test_help_says_what_it_costs() -> None:
    res, _ = run("rbd", "--help")
    assert res.returncode == 0
    text = " ".join(res.stdout.split())
    assert "one open of each image" in text and "--du {fast,scan,none}" in text and "Exit status" in text
