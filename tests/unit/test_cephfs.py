"""The file systems and their clients, read from each release's real captures (scripts/capture_fs_fixtures.py):
a sandbox with `cephfs` (mds.a active, mds.b standby) and two libcephfs clients, then standby-replay allowed."""
from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.cephfs.model import FLAG_ALLOW_STANDBY_REPLAY, FLAG_NOT_JOINABLE
from cephtui.ceph.cephfs.parse import client_kind, filesystems_from_dump, ranks_of, sessions_from
from cephtui.ceph.cephfs.reader import read_clients, read_fs_status
from cephtui.ceph.recording import ReplayClient, command_key
from cephtui.cli.fs import fs_command
from tests.releases import release_params

pytestmark = pytest.mark.unit


def replay(path: Path) -> ReplayClient:
    return ReplayClient.load(path)


def recorded(path: Path, target: str, prefix: str, **args: Any) -> Any:
    """A recorded answer as JSON, or None when the cluster refused it (recorded with its errno)."""
    rec = json.loads(path.read_text())["commands"][command_key(target, prefix, {"format": "json", **args})]
    return json.loads(rec["out"]) if "out" in rec else None


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_the_map_and_the_mgrs_numbers(path: Path) -> None:
    st = read_fs_status(replay(path))
    [fs] = st.filesystems
    assert (fs.name, fs.state_words, fs.max_mds, fs.joinable, fs.allow_standby_replay) == \
        ("cephfs", "healthy", 1, True, False)
    [rank] = fs.ranks
    dump = recorded(path, "mon", "fs dump")["filesystems"][0]["mdsmap"]
    gid = dump["up"]["mds_0"]
    assert (rank.rank, rank.state, rank.name, rank.gid) == (0, "active", dump["info"][f"gid_{gid}"]["name"], gid)
    assert st.standbys == tuple(sorted(s["name"] for s in recorded(path, "mon", "fs dump")["standbys"]))
    assert [p.name for p in fs.pools] == ["cephfs_metadata", "cephfs_data"]
    status = recorded(path, "mgr", "fs status", fs="cephfs")
    if status is None:  # Debian's Reef: the mgr runs no module; the map stays, the counters are said missing
        assert rank.dns is None and fs.clients is None
        assert st.notes and "the mgr's `fs status`" in st.notes[0]
        df = {p["id"]: p["stats"] for p in recorded(path, "mon", "df", detail="detail")["pools"]}
        assert [(p.used, p.avail) for p in fs.pools] == [(df[p.id]["bytes_used"], df[p.id]["max_avail"])
                                                         for p in fs.pools]
        assert st.versions and "ceph version" in st.versions[0][0]
        return
    [row] = [e for e in status["mdsmap"] if e["state"] == "active"]
    assert rank.to_json() == row  # every number as `ceph fs status -f json` gives it
    assert [p.to_json() for p in fs.pools] == status["pools"]
    assert fs.clients == status["clients"][0]["clients"] == 2
    assert not st.notes
    assert st.versions[0][0].startswith("ceph version")


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_the_clients_of_rank_0(path: Path) -> None:
    client = replay(path)
    clients = read_clients(client, read_fs_status(client), "cephfs")
    raw = recorded(path, "mds:cephfs:0", "session ls")
    assert not clients.problems
    assert [s.id for s in clients.sessions] == [s["id"] for s in raw]
    version = re.search(r"ceph version (\S+)", json.loads(path.read_text())["meta"]["ceph_version"]).group(1)
    for s, r in zip(clients.sessions, raw):
        assert (s.kind, s.version, s.fs, s.rank, s.state) == ("libcephfs", version, "cephfs", 0, "open")
        assert (s.num_caps, s.hostname, s.root, s.pid) == (r["num_caps"], r["client_metadata"]["hostname"],
                                                           r["client_metadata"]["root"], r["client_metadata"]["pid"])
        assert s.entity == f"client.{r['id']}" and s.addr == r["inst"].split(" ", 1)[1]
    assert sum(s.num_caps for s in clients.sessions) > 0


@pytest.mark.parametrize("path", release_params("cephfs_standby_replay"))
def test_a_standby_replay_daemon_follows_its_rank(path: Path) -> None:
    st = read_fs_status(replay(path))
    [fs] = st.filesystems
    assert fs.allow_standby_replay
    assert len(fs.standby_replay) == 1 and fs.standby_replay[0][1] == 0
    assert fs.standby_replay[0][0] not in st.standbys and fs.standby_replay[0][0] != fs.ranks[0].name
    out = io.StringIO()
    assert fs_command(replay(path), argparse.Namespace(action="status", fs=None, json=False), out, io.StringIO()) \
        in (0, 3)
    assert re.search(rf"0-s\s+standby-replay\s+{fs.standby_replay[0][0]}", out.getvalue()), out.getvalue()
    assert "standby-replay allowed" in out.getvalue()


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_a_rank_without_a_daemon_is_failed_and_the_fs_offline(path: Path) -> None:
    """The captured map with rank 0's daemon taken out of `up` (as the mon's map is after `mds fail` with no
    standby): the rank is failed, the file system offline, and no MDS is asked for clients."""
    dump = recorded(path, "mon", "fs dump")
    mdsmap = dump["filesystems"][0]["mdsmap"]
    mdsmap["up"] = {}
    [fs], _ = filesystems_from_dump(dump)
    assert [(r.rank, r.state, r.name) for r in fs.ranks] == [(0, "failed", "")]
    assert fs.state_words == "offline" and not fs.active
    mdsmap["damaged"] = [0]
    mdsmap["in"] = []
    ranks, _ = ranks_of(mdsmap)
    assert [(r.rank, r.state) for r in ranks] == [(0, "damaged")]


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_the_flags_from_flags_state_or_the_bits(path: Path) -> None:
    dump = recorded(path, "mon", "fs dump")
    mdsmap = dump["filesystems"][0]["mdsmap"]
    mdsmap.pop("flags_state", None)  # as Pacific has it: the bits only
    mdsmap["flags"] = FLAG_NOT_JOINABLE | FLAG_ALLOW_STANDBY_REPLAY
    [fs], _ = filesystems_from_dump(dump)
    assert (fs.joinable, fs.allow_standby_replay, fs.state_words) == (False, True, "not joinable")


def test_the_kind_of_client_by_what_it_says_of_itself() -> None:
    assert client_kind({"kernel_version": "6.1.0", "hostname": "h"}) == "kernel"
    assert client_kind({"ceph_version": "ceph version 16.2.15 (x) pacific (stable)", "mount_point": "/mnt/fs"}) == \
        "ceph-fuse"
    assert client_kind({"ceph_version": "ceph version 16.2.15 (x) pacific (stable)"}) == "libcephfs"
    assert client_kind({"mount_point": "N/A", "ceph_version": "ceph version 18.2.7 (y) reef (stable)"}) == "libcephfs"
    assert client_kind({}) == ""
    [s] = sessions_from([{"id": 7, "inst": "client.7 1.2.3.4:0/5", "state": "open", "num_caps": 3,
                          "client_metadata": {"kernel_version": "6.1.0-13-amd64", "hostname": "node1",
                                              "root": "/vol"}}], rank=1, fs="x")
    assert (s.kind, s.version, s.hostname, s.root, s.rank, s.addr) == \
        ("kernel", "6.1.0-13-amd64", "node1", "/vol", 1, "1.2.3.4:0/5")


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_cli_text_json_and_a_wrong_name(path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    rc = fs_command(replay(path), argparse.Namespace(action="clients", fs="cephfs", json=True), out, err)
    assert rc == 0, err.getvalue()
    assert [s["id"] for s in json.loads(out.getvalue())] == [s["id"] for s in recorded(path, "mds:cephfs:0",
                                                                                        "session ls")]
    out, err = io.StringIO(), io.StringIO()
    assert fs_command(replay(path), argparse.Namespace(action="clients", fs=None, json=False), out, err) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].split()[:4] == ["ID", "FS", "RANK", "HOST"] and len(lines) == 3
    out, err = io.StringIO(), io.StringIO()
    assert fs_command(replay(path), argparse.Namespace(action="status", fs="nope", json=False), out, err) == 1
    assert err.getvalue().strip() == ("cephtui fs status: no file system is called 'nope' (the file systems: cephfs)")
    assert out.getvalue() == ""


# ---------------------------------------------------------------- the File systems tab's rules, and the poll's part
def test_the_checks_that_name_a_client_mark_it_and_it_comes_first() -> None:
    from cephtui.ceph.cephfs.model import Session
    from cephtui.ceph.snapshot.models import HealthCheck
    from cephtui.ui.panes.fs_clients import client_rows, fs_checks, named_clients

    # The detail lines as the mon words them (MDSMonitor: "mds.NAME(mds.RANK): " + the MDS's message and metadata)
    late = HealthCheck("MDS_CLIENT_LATE_RELEASE", "HEALTH_WARN", "1 clients failing to respond to capability release",
                       1, ("mds.a(mds.0): Client vm:admin failing to respond to capability release client_id: 4118",))
    other = HealthCheck("OSDMAP_FLAGS", "HEALTH_WARN", "noout flag(s) set")
    degraded = HealthCheck("FS_DEGRADED", "HEALTH_WARN", "1 filesystem is degraded")
    assert fs_checks([late, other, degraded]) == [late, degraded]
    named = named_clients([late, other, degraded])
    assert named == {4118: ["MDS_CLIENT_LATE_RELEASE"]}
    busy = Session(id=5000, rank=0, inst="client.5000 v1:10.0.0.5:0/1", state="open", num_caps=90_000,
                   hostname="hv1")
    stuck = Session(id=4118, rank=0, inst="client.4118 127.0.0.1:0/2", state="open", num_caps=3, hostname="vm")
    idle = Session(id=4200, rank=0, inst="client.4200 127.0.0.1:0/3", state="open", num_caps=3, hostname="vm")
    assert client_rows([idle, busy, stuck], "", named) == [stuck, busy, idle]  # named, then most caps
    assert client_rows([idle, busy, stuck], "hv1", named) == [busy]
    assert client_rows([idle, busy, stuck], "vm 4200", named) == [idle]  # every word must match


def test_the_version_line_is_short() -> None:
    from cephtui.ui.panes.fs_clients import short_version

    assert short_version("ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)") == \
        "16.2.15 pacific"
    assert short_version("something else") == "something else"


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_a_mgr_the_poll_found_silent_is_not_asked_for_fs_status(path: Path) -> None:
    """The poll passes why the mgr is silent: `fs status` is not sent (it would wait at the mon for a mgr that is
    down); the pools' usage comes from `ceph df` and a note says why the counters are missing."""
    from cephtui.ceph.recording import ReplayClient

    sent: list[str] = []

    class Counting(ReplayClient):
        def raw(self, target: str, prefix: str, args: dict[str, Any]) -> bytes:
            sent.append(prefix)
            return super().raw(target, prefix, args)

    client = Counting(json.loads(path.read_text())["commands"])
    st = read_fs_status(client, mgr_down="mgr down: no active mgr")
    assert "fs status" not in sent and "df" in sent
    [fs] = st.filesystems
    assert fs.ranks[0].dns is None and all(p.used is not None for p in fs.pools)
    assert st.notes == ("dentries, inodes, caps and request rates not shown: the mgr's `fs status`: "
                        "mgr down: no active mgr",)


def test_fs_clients_says_when_nobody_has_it_mounted() -> None:
    from cephtui.cli.fs import print_clients

    out = io.StringIO()
    print_clients([], out, ["cephfs"])
    assert out.getvalue() == "no client session on cephfs\n"


def test_an_eviction_says_what_it_does_by_the_clusters_setting() -> None:
    from cephtui.ceph.cephfs.model import Session
    from cephtui.ceph.cephfs.ops import blocklist_from, build_evict, build_unblock
    from cephtui.ceph.ops.core import DESTROYS

    s = Session(id=4118, rank=1, inst="client.4118 10.0.0.7:0/2315612345", state="open", num_caps=1234,
                hostname="pve2", root="/volumes/vm", mount_point="/mnt/pve/cephfs")
    op = build_evict("cephfs", s, blocklists=True, expire=7200)
    assert op.cli == "ceph tell mds.cephfs:1 client evict id=4118"
    assert op.command == {"prefix": "client evict", "filters": ("id=4118",)}
    assert (op.impact, op.confirm_text) == (DESTROYS, "client.4118")
    assert "blocklists its address 10.0.0.7:0/2315612345 for 2 h" in op.effect
    assert "on pve2" in op.effect and "/volumes/vm (mounted at /mnt/pve/cephfs)" in op.effect
    assert "1,234 caps" in op.effect
    off = build_evict("cephfs", s, blocklists=False).effect
    assert "reconnects at once" in off and "blocklist" not in off.replace("mds_session_blocklist_on_evict", "")
    unknown = build_evict("cephfs", s, blocklists=None).effect
    assert "for 1 h (mds_session_blocklist_on_evict could not be read; true by default)" in unknown
    [entry] = blocklist_from([{"addr": "10.0.0.7:0/2315612345", "until": "2026-12-07T09:00:00.000000+0000"}])
    assert build_unblock(entry).cli == "ceph osd blocklist rm 10.0.0.7:0/2315612345"
    assert build_unblock(entry).command == {"prefix": "osd blocklist", "blocklistop": "rm",
                                            "addr": "10.0.0.7:0/2315612345"}


def test_the_blocklist_as_pacifics_mon_writes_it() -> None:
    """Pacific 16.2.15's `osd blocklist ls -f json` (read from a sandbox after an eviction) is two JSON arrays in a
    row, the addresses then the ranges: each is read."""
    from cephtui.ceph.cephfs.ops import blocklist_from_raw

    raw = b'[{"addr":"127.0.0.1:0/2324385980","until":"2026-12-07T08:13:55.708843+0000"}][]'
    [entry] = blocklist_from_raw(raw)
    assert (entry.addr, entry.until) == ("127.0.0.1:0/2324385980", "2026-12-07T08:13:55.708843+0000")
    assert blocklist_from_raw(b"[]") == [] and blocklist_from_raw(b"") == []
