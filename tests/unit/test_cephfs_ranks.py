"""The rank operations built on the maps captured from real clusters (scripts/capture_fs_fixtures.py: mds.a active,
mds.b standby; then mds.b following rank 0)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cephtui.ceph.cephfs import ranks
from cephtui.ceph.cephfs.reader import read_fs_status
from cephtui.ceph.ops.core import DESTROYS, SAFE
from cephtui.ceph.recording import ReplayClient
from tests.releases import release_params

pytestmark = pytest.mark.unit


def status(path: Path):  # type: ignore[no-untyped-def]
    st = read_fs_status(ReplayClient.load(path))
    return st.filesystems[0], st.standbys


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_max_mds_takes_the_standby_or_says_who_is_missing(path: Path) -> None:
    fs, standbys = status(path)
    assert fs.max_mds == 1 and len(standbys) == 1
    up = ranks.build_max_mds(fs, standbys, "2")
    assert up.cli == f"ceph fs set {fs.name} max_mds 2" and up.impact == SAFE
    assert "becomes active rank 1; 0 standby left" in up.effect and f"mds.{standbys[0]}" in up.effect
    short = ranks.build_max_mds(fs, standbys, "3")
    assert "1 rank(s) stay empty (MDS_UP_LESS_THAN_MAX) until 1 more MDS daemon(s) start" in short.effect
    for bad in ("0", "x", "257", "-1", "1"):
        with pytest.raises(ValueError):
            ranks.build_max_mds(fs, standbys, bad)


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_lowering_max_mds_names_the_ranks_that_stop_and_asks_for_the_name(path: Path) -> None:
    fs, standbys = status(path)
    two = dataclasses.replace(fs, max_mds=2)
    down = ranks.build_max_mds(two, standbys, "1")
    assert down.impact == DESTROYS and down.confirm_text == fs.name and "stop" in down.effect


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_failing_a_rank_needs_someone_to_take_it(path: Path) -> None:
    fs, standbys = status(path)
    op = ranks.build_fail_rank(fs, standbys, "0", "no")
    assert op.cli == f"ceph mds fail {fs.name}:0" and op.confirm_text == f"{fs.name}:0"
    assert f"a standby (mds.{standbys[0]}) takes it over" in op.effect
    with pytest.raises(ValueError, match="nobody would take rank 0: there is no standby daemon"):
        ranks.build_fail_rank(fs, (), "0", "no")
    assert "stays failed" in ranks.build_fail_rank(fs, (), "0", "yes").effect
    with pytest.raises(ValueError, match="not joinable"):
        ranks.build_fail_rank(dataclasses.replace(fs, joinable=False), standbys, "0", "no")
    with pytest.raises(ValueError, match="choose an active rank"):
        ranks.build_fail_rank(fs, standbys, "5", "no")


@pytest.mark.parametrize("path", release_params("cephfs_standby_replay"))
def test_failing_a_followed_rank_names_its_follower(path: Path) -> None:
    fs, standbys = status(path)
    [(follower, rank)] = fs.standby_replay
    assert rank == 0
    op = ranks.build_fail_rank(fs, standbys, "0", "no")
    assert f"mds.{follower}, which follows it (standby-replay), takes it over at once" in op.effect
    off = ranks.build_standby_replay(fs, False, standbys)
    assert off.cli == f"ceph fs set {fs.name} allow_standby_replay false" and f"mds.{follower}" in off.effect


@pytest.mark.parametrize("path", release_params("cephfs"))
def test_joinable_off_is_typed_and_on_is_not(path: Path) -> None:
    fs, _ = status(path)
    off, on = ranks.build_joinable(fs, False), ranks.build_joinable(fs, True)
    assert off.cli == f"ceph fs set {fs.name} joinable false" and off.confirm_text == fs.name
    assert on.cli == f"ceph fs set {fs.name} joinable true" and on.confirm_text is None
