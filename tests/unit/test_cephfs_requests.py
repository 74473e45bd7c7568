"""Slow MDS requests and who holds them up, on the answers captured from real clusters
(scripts/capture_fs_stuck_fixture.py): a client holding /held.txt stopped (SIGSTOP), another opening the file, then
the holder evicted."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.cephfs.model import FsStatus
from cephtui.ceph.cephfs.parse import filesystems_from_dump
from cephtui.ceph.cephfs.requests import cap_groups, parse_description, read_requests, requests_from, revoking
from cephtui.ceph.recording import ReplayClient
from tests.releases import release_params

pytestmark = pytest.mark.unit


def replay(path: Path) -> tuple[ReplayClient, FsStatus, dict[str, Any]]:
    client = ReplayClient.load(path)
    filesystems, standbys = filesystems_from_dump(client.mon("fs dump"))
    return client, FsStatus(tuple(filesystems), tuple(standbys)), json.loads(path.read_text())["meta"]


def test_caps_being_taken_back_are_issued_minus_pending() -> None:
    """The holder's caps as the MDS dumped them while the other client waited (Pacific's capture)."""
    assert cap_groups("pAsxLsXsxFsxcrwb") == {"p": {""}, "A": {"s", "x"}, "L": {"s"}, "X": {"s", "x"},
                                               "F": {"s", "x", "c", "r", "w", "b"}}
    assert revoking("pAsxLsXsxFsxcrwb", "pAsLsXsxFsxcrwb") == "Ax"
    assert revoking("pAsLsXs", "pAsLsXs") == "" and revoking("-", "-") == ""
    assert revoking("pAsLsXsFscr", "p") == "AsLsXsFscr"  # everything but the pin, in Ceph's order


@pytest.mark.parametrize("path", release_params("cephfs_stuck_early"))
def test_the_request_names_its_client_operation_and_target(path: Path) -> None:
    client, _, meta = replay(path)
    ops = client.mds_tell("cephfs:0", "dump_ops_in_flight")["ops"]
    mine = [o for o in ops if f"client.{meta['waiter']}:" in o["description"]]
    assert mine, ops
    cid, op, targets = parse_description(mine[0]["description"])
    assert cid == meta["waiter"] and op in ("lookup", "open") and targets and targets[0].startswith("#0x")
    [request] = [r for r in requests_from({"ops": mine}, 0) if r.client_id == meta["waiter"]]
    assert request.waiting and request.age == mine[0]["age"] and request.events[0][1] == "initiated"
    assert request.flag_point == mine[0]["type_data"]["flag_point"]


@pytest.mark.parametrize("path", release_params("cephfs_stuck_early") + release_params("cephfs_stuck_slow"))
def test_the_stopped_holder_is_named_as_the_one_the_request_waits_on(path: Path) -> None:
    name = path.stem
    client, status, meta = replay(path)
    got = read_requests(client, status, "cephfs")
    assert not got.problems, got.problems
    [request] = [r for r in got.requests if r.client_id == meta["waiter"]]
    assert got.path(request) == "/held.txt"
    blockers = got.blockers(request)
    assert [b.client_id for b in blockers] == [meta["holder"]], got.holders
    assert blockers[0].revoking and blockers[0].path == "/held.txt"
    # The MDS's own word on whether it is slow: dump_blocked_ops lists it once older than the complaint time.
    assert request.blocked == (name == "cephfs_stuck_slow") and got.complaint_time == 30
    if name == "cephfs_stuck_slow":
        checks = client.mon("health", detail="detail")["checks"]
        assert "MDS_SLOW_REQUEST" in checks or "MDS_CLIENT_LATE_RELEASE" in checks


@pytest.mark.parametrize("path", release_params("cephfs_stuck_evicted"))
def test_after_the_eviction_nothing_waits(path: Path) -> None:
    client, status, meta = replay(path)
    assert meta["waiter_said"] == "wrote"
    got = read_requests(client, status, "cephfs")
    assert not [r for r in got.requests if r.client_id == meta["waiter"]] and not got.problems


@pytest.mark.parametrize("path", release_params("cephfs_stuck_slow"))
def test_the_dialogs_words_agree_with_the_mds(path: Path) -> None:
    """What the slow-requests dialog says of the capture: the counts, the age and the blocker are the MDS's."""
    from rich.console import Console

    from cephtui.ceph.cephfs.parse import sessions_from
    from cephtui.ui.screens.fs_requests import request_detail, summary_text, waits_on

    client, status, meta = replay(path)
    got = read_requests(client, status, "cephfs")
    sessions = {s.id: s for s in sessions_from(client.mds_tell("cephfs:0", "session ls"), 0, "cephfs")}
    holder = sessions[meta["holder"]]
    text = summary_text(got, sessions).plain
    n, slow = len(got.requests), sum(r.blocked for r in got.requests)
    assert text.startswith(f"{n} request{'s' if n != 1 else ''} in flight, {slow} slow (older than 30 s")
    [request] = [r for r in got.requests if r.client_id == meta["waiter"]]
    assert request.blocked and request.age >= 30  # slow by the MDS's own list, and as old as it says
    [blocker] = got.blockers(request)
    assert f"client.{holder.id}" in text and f"not giving back {blocker.revoking} on /held.txt" in text
    assert waits_on(got, request, sessions) == f"client.{holder.id} ({blocker.revoking})"
    console = Console(width=150, record=True, color_system=None)
    console.print(request_detail(got, request, sessions))
    detail = console.export_text()
    assert f"waits on client.{holder.id}" in detail and f"issued {blocker.issued}, pending {blocker.pending}" in detail
    assert f"{holder.num_caps:,} caps" in detail and request.flag_point in detail
