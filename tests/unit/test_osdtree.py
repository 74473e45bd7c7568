"""The OSD table from each release's captured output: join, flags, filter, sort (no cluster needed)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cephtui.ceph.recording import ReplayClient
from cephtui.ceph.snapshot.builder import SnapshotBuilder
from cephtui.ceph.snapshot.osdtree import BucketInfo
from cephtui.ceph.snapshot.osdview import OSDFilter, selected_osds, view
from tests.releases import release_dirs

# Each test runs once per release whose captures are under tests/fixtures/<release>/.
RELEASE = [pytest.param(d, id=d.name) for d in release_dirs() if (d / "healthy.json").is_file()]


def table(rel: Path, name: str, shadow: bool = False):
    snap = SnapshotBuilder(ReplayClient.load(rel / f"{name}.json")).build(osd_tree=True, shadow=shadow)
    assert snap.osd_table is not None
    return snap.osd_table


@pytest.mark.parametrize("rel", RELEASE)
def test_down_osd_and_bucket_counts(rel: Path) -> None:
    t = table(rel, "osd_down")
    o2 = t.osd(2)
    assert o2 is not None and o2.status == "down" and not o2.up
    host = next(r.node for r in t.rows if isinstance(r.node, BucketInfo) and r.node.type_name == "host"
                and not r.node.shadow)
    assert (host.osds_up, host.osds_total) == (2, 3)
    rows = view(t, OSDFilter("down"), "tree")
    assert [r.node.name for r in rows if r.is_osd] == ["osd.2"]
    assert [r.depth for r in rows] == [0, 1, 2]  # the OSD keeps its ancestors
    assert view(t, OSDFilter("up in"), "tree") and all(
        r.node.id != 2 for r in view(t, OSDFilter("up in"), "tree") if r.is_osd)


@pytest.mark.parametrize("rel", RELEASE)
def test_nearfull_and_per_osd_noout(rel: Path) -> None:
    t = table(rel, "nearfull")
    assert all(o.fullness == "nearfull" for o in t.osds)  # the capture set the ratio below every OSD
    assert [o.id for o in t.osds if "noout" in o.flags] == [0]
    assert [r.node.id for r in view(t, OSDFilter("noout"), "util")] == [0]


@pytest.mark.parametrize("rel", RELEASE)
def test_sorts_and_selection(rel: Path) -> None:
    t = table(rel, "healthy", shadow=True)
    by_util = view(t, OSDFilter(""), "util")
    assert [r.node.utilization for r in by_util] == sorted((o.utilization for o in t.osds), reverse=True)
    by_pgs = view(t, OSDFilter(""), "pgs")
    assert [r.node.pgs for r in by_pgs] == sorted((o.pgs for o in t.osds), reverse=True)
    full = view(t, OSDFilter(""), "tree")
    # A bucket row stands for all OSDs beneath it; shadow trees (default~hdd) are listed after the real ones.
    assert selected_osds(full, t, 0) == (0, 1, 2)
    first_shadow = next(i for i, r in enumerate(full) if not r.is_osd and r.node.shadow)
    assert all(not (not r.is_osd and r.node.shadow) for r in full[:first_shadow])
    assert full[first_shadow].node.name.endswith("~hdd")


@pytest.mark.parametrize("rel", RELEASE)
def test_filter_words_all_must_match(rel: Path) -> None:
    t = table(rel, "healthy")
    assert [o.id for o in t.osds if OSDFilter("hdd osd.1").matches(o)] == [1]
    assert [o.id for o in t.osds if OSDFilter("1").matches(o)] == [1]
    host = t.osds[0].host
    assert all(OSDFilter(host).matches(o) for o in t.osds)
    assert not any(OSDFilter("ssd").matches(o) for o in t.osds)


@pytest.mark.parametrize("rel", RELEASE)
def test_collapsed_buckets_hide_what_is_under_them(rel: Path) -> None:
    t = table(rel, "healthy", shadow=True)
    full = view(t, OSDFilter(""), "tree")
    host = next(r for r in full if not r.is_osd and r.node.type_name == "host" and not r.node.shadow)
    folded = view(t, OSDFilter(""), "tree", frozenset({host.key}))
    i = folded.index(host)
    assert i + 1 == len(folded) or folded[i + 1].depth <= host.depth  # nothing left under the host
    # Only the host's own OSDs disappear; the shadow tree keeps its copies.
    assert len(folded) == len(full) - host.node.osds_total
    root = full[0]
    assert view(t, OSDFilter(""), "tree", frozenset({root.key}))[0] == root
    assert len(view(t, OSDFilter(""), "tree", frozenset({root.key}))) == len(full) - 1 - host.node.osds_total
