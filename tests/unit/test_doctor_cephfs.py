"""The Doctor's CephFS checks: every entry is a code Ceph really raises, each resolves to its own entry (not the
MDS_*/FS_* family), the options named are Ceph's, and the detail lines the monitors write name the MDS daemon,
the client and the file system."""
from __future__ import annotations

import re

import pytest

from cephtui.ceph.doctor.catalog import CATALOG, FAMILIES, MODULES, cephfs, lookup
from cephtui.ceph.doctor.entities import extract
from cephtui.ceph.doctor.model import Explanation
from cephtui.ceph.librados_options import LibradosOptions
from cephtui.ceph.snapshot.models import HealthCheck
from tests.unit.test_doctor_catalog import OPTION

pytestmark = pytest.mark.unit

# The CephFS codes `ceph health` raises, read in Ceph's source (not the MDS_HEALTH_* enum names that
# doc/cephfs/health-messages.rst uses as headings):
REAL_CODES = frozenset({
    # src/mds/MDSMap.cc, MDSMap::get_health_checks
    "MDS_DAMAGE", "FS_DEGRADED", "MDS_UP_LESS_THAN_MAX", "MDS_ALL_DOWN", "FS_INLINE_DATA_DEPRECATED",
    # src/mds/FSMap.cc, FSMap::get_health_checks
    "FS_WITH_FAILED_MDS", "MDS_INSUFFICIENT_STANDBY",
    # src/messages/MMDSBeacon.h, mds_metric_name: what src/mds/Beacon.cc reports, raised by src/mon/MDSMonitor.cc
    "MDS_TRIM", "MDS_CLIENT_RECALL", "MDS_CLIENT_LATE_RELEASE", "MDS_CLIENT_RECALL_MANY",
    "MDS_CLIENT_LATE_RELEASE_MANY", "MDS_CLIENT_OLDEST_TID", "MDS_CLIENT_OLDEST_TID_MANY", "MDS_READ_ONLY",
    "MDS_SLOW_REQUEST", "MDS_CACHE_OVERSIZED", "MDS_SLOW_METADATA_IO", "MDS_CLIENTS_LAGGY",
    # Tentacle 20: ceph/ceph pull request 55616 ("mds: emit warning with estimated replay time"), documented in
    # doc/cephfs/troubleshooting.rst
    "MDS_ESTIMATED_REPLAY_TIME",
})

# Names that look like codes but are never raised: the enum names the documentation's headings use
# (MDS_HEALTH_READ_ONLY is raised as MDS_READ_ONLY, MDS_HEALTH_TRIM as MDS_TRIM).
NOT_CODES = ("MDS_HEALTH_READ_ONLY", "MDS_HEALTH_TRIM", "MDS_HEALTH_CLIENT_LATE_RELEASE", "MDS_HEALTH_DAMAGE")

# Settings of one file system (`ceph fs set <fs> <name> <value>`), not config options
FS_SETTINGS = ("session_timeout", "max_mds", "standby_count_wanted", "joinable", "inline_data",
               "allow_standby_replay")

# The checks whose detail names one client by client_id: the File systems tab marks that client
NAMES_A_CLIENT = ("MDS_CLIENT_LATE_RELEASE", "MDS_CLIENT_RECALL", "MDS_CLIENT_OLDEST_TID")

ENTRIES: tuple[Explanation, ...] = cephfs.ENTRIES


def check(code: str, *detail: str) -> HealthCheck:
    return HealthCheck(code=code, severity="HEALTH_WARN", summary="", detail=detail)


# --- the catalog ---------------------------------------------------------------------------------------------

def test_every_entry_is_a_real_code_and_every_real_code_has_one() -> None:
    codes = [e.code for e in ENTRIES]
    assert len(codes) == len(set(codes))
    assert set(codes) == REAL_CODES


def test_the_module_is_registered() -> None:
    assert cephfs in MODULES
    assert all(CATALOG[e.code] is e for e in ENTRIES)


@pytest.mark.parametrize("code", sorted(REAL_CODES))
def test_each_code_resolves_to_its_own_entry_not_the_family(code: str) -> None:
    found = lookup(code)
    assert found is not None and found.code == code
    assert found not in FAMILIES


@pytest.mark.parametrize("name", NOT_CODES)
def test_enum_names_are_not_entries(name: str) -> None:
    assert name not in CATALOG
    found = lookup(name)
    assert found is not None and found.code == "MDS_*"  # only the family answers for them


def test_raised_by_says_who_raises_it() -> None:
    """The map checks are the monitors'; the others come in the MDS beacons and are tuned on the MDS."""
    mon = {"FS_DEGRADED", "FS_WITH_FAILED_MDS", "MDS_ALL_DOWN", "MDS_UP_LESS_THAN_MAX", "MDS_INSUFFICIENT_STANDBY",
           "FS_INLINE_DATA_DEPRECATED"}
    for e in ENTRIES:
        assert e.raised_by == ("mon" if e.code in mon else "mds"), e.code


# --- options -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_options_are_option_shaped_and_not_fs_settings(entry: Explanation) -> None:
    for option in entry.options:
        assert OPTION.match(option), option
        assert option not in FS_SETTINGS, option
    assert "mds_revoke_cap_timeout" not in entry.options  # gone since Mimic: session_timeout replaced it


def test_options_are_in_cephs_option_table() -> None:
    """Checked against the local librados' own option table (the same one the command line and the config file
    use), which holds every daemon's options, the MDS's too."""
    lib = LibradosOptions()
    try:
        if not lib.available:
            pytest.skip("no rados module: Ceph's option table cannot be asked")
        if lib.kind("mon_osd_blocklist_default_expire") is None:
            # Pacific renamed blacklist to blocklist; an older librados (bullseye's Nautilus, where the Python 3.9
            # leg runs) is not a release cephtui supports and lacks options added since
            pytest.skip("the local librados predates Pacific: its option table is not one cephtui supports")
        named = {o for e in ENTRIES for o in e.options}
        named |= {"mds_session_blocklist_on_evict"}  # the eviction warning names it
        assert {o for o in named if lib.kind(o) is None} == set()
        assert lib.kind("mds_revoke_cap_timeout") is None  # not an option any more
    finally:
        lib.close()


def test_fs_settings_are_set_with_fs_set() -> None:
    """session_timeout and friends appear in actions only as `ceph fs set <fs> <setting>`."""
    for e in ENTRIES:
        for action in e.actions:
            for span in re.findall(r"`([^`]*)`", action):
                for setting in FS_SETTINGS:
                    if re.search(rf"\b{setting}\b", span):
                        assert span.startswith(f"ceph fs set <fs> {setting} "), (e.code, span)


# --- actions -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("code", NAMES_A_CLIENT)
def test_client_checks_point_at_the_file_systems_tab(code: str) -> None:
    assert any("(:fs)" in a and "mark" in a for a in CATALOG[code].actions), code


def test_the_tab_marks_the_clients_these_checks_name() -> None:
    from cephtui.ui.panes.fs_clients import CLIENT_CHECKS

    assert set(NAMES_A_CLIENT) <= set(CLIENT_CHECKS)
    assert all(code in CATALOG for code in CLIENT_CHECKS)


def test_eviction_always_comes_with_its_cost() -> None:
    """An evicted client is blocklisted by default and must remount: every action that evicts says so."""
    evicting = [(e.code, a) for e in ENTRIES for a in e.actions if "client evict" in a]
    assert evicting
    for code, action in evicting:
        assert "`ceph tell mds.<name> client evict id=<id>`" in action, code
        assert "blocklist" in action and "remount" in action, code


def test_the_family_no_longer_disowns_cephfs() -> None:
    for pattern in ("MDS_*", "FS_*"):
        family = next(f for f in FAMILIES if f.code == pattern)
        text = " ".join((family.meaning, family.why, *family.causes, *family.actions))
        assert "does not manage" not in text
        assert "(:fs)" in text


# --- entities ------------------------------------------------------------------------------------------------

def test_a_client_check_names_the_mds_and_the_client() -> None:
    a = extract(check("MDS_CLIENT_LATE_RELEASE",
                      "mds.a(mds.0): Client vm:admin failing to respond to capability release client_id: 4118",
                      "mds.a(mds.0): Client 4120 failing to respond to capability release client_id: 4120"))
    assert a.daemons == ("mds.a",)
    assert a.other == ("client.4118", "client.4120")
    assert a.unparsed == ()


def test_recall_and_oldest_tid_lines() -> None:
    a = extract(check("MDS_CLIENT_RECALL",
                      "mds.cephfs.node1.xyzabc(mds.1): Client node2:fsuser failing to respond to cache pressure "
                      "client_id: 24103"))
    assert (a.daemons, a.other) == (("mds.cephfs.node1.xyzabc",), ("client.24103",))
    a = extract(check("MDS_CLIENT_OLDEST_TID",
                      "mds.b(mds.0): Client h:u failing to advance its oldest client/flush tid.  client_id: 7"))
    assert (a.daemons, a.other) == (("mds.b",), ("client.7",))


def test_mds_reports_without_a_client() -> None:
    a = extract(check("MDS_SLOW_REQUEST", "mds.a(mds.0): 1 slow requests are blocked > 30 secs"))
    assert (a.daemons, a.other, a.unparsed) == (("mds.a",), (), ())
    a = extract(check("MDS_TRIM", "mds.a(mds.0): Behind on trimming (300/128) max_segments: 128, num_segments: 300"))
    assert (a.daemons, a.other) == (("mds.a",), ())
    a = extract(check("MDS_CLIENT_RECALL_MANY",
                      "mds.a(mds.0): Many clients (34) failing to respond to cache pressure client_count: 34"))
    assert (a.daemons, a.other) == (("mds.a",), ())  # a count, no client
    a = extract(check("MDS_ESTIMATED_REPLAY_TIME",
                      "mds.a(mds.0): replay: 50.0446% complete - elapsed time: 582s, estimated time remaining: 581s"))
    assert a.daemons == ("mds.a",)


def test_older_releases_without_the_dot() -> None:
    a = extract(check("MDS_CLIENT_LATE_RELEASE",
                      "mdsa(mds.0): Client vm:admin failing to respond to capability release client_id: 4118"))
    assert (a.daemons, a.other) == (("mds.a",), ("client.4118",))


@pytest.mark.parametrize(("code", "line"), [
    ("FS_DEGRADED", "fs cephfs is degraded"),
    ("FS_WITH_FAILED_MDS", "fs cephfs has 1 failed mds"),
    ("FS_WITH_FAILED_MDS", "fs cephfs has 2 failed mdss"),
    ("MDS_UP_LESS_THAN_MAX", "fs cephfs has 1 MDS online, but wants 2"),
    ("MDS_ALL_DOWN", "fs cephfs is offline because no MDS is active for it."),
    ("FS_INLINE_DATA_DEPRECATED", "fs cephfs has deprecated feature inline_data enabled."),
])
def test_file_system_lines_name_the_file_system(code: str, line: str) -> None:
    a = extract(check(code, line))
    assert (a.daemons, a.other, a.unparsed) == ((), ("fs cephfs",), ())


def test_a_damaged_rank_is_a_rank_not_a_daemon() -> None:
    a = extract(check("MDS_DAMAGE", "fs cephfs mds.0 is damaged", "mds.b(mds.1): Metadata damage detected"))
    assert a.daemons == ("mds.b",)
    assert a.other == ("fs cephfs", "rank cephfs:0")


def test_insufficient_standby_detail_is_kept_verbatim() -> None:
    """Its summary is "insufficient standby MDS daemons available"; its one detail line names no entity, so it is
    shown as Ceph wrote it rather than dropped."""
    c = HealthCheck(code="MDS_INSUFFICIENT_STANDBY", severity="HEALTH_WARN",
                    summary="insufficient standby MDS daemons available", detail=("have 0; want 1 more",))
    a = extract(c)
    assert (a.daemons, a.other) == ((), ())
    assert a.unparsed == ("have 0; want 1 more",)


def test_other_checks_are_parsed_as_before() -> None:
    """The CephFS parser takes only MDS_ and FS_ codes."""
    a = extract(check("OSD_DOWN", "osd.3 (root=default,host=n1) is down"))
    assert (a.osds, a.hosts, a.other) == ((3,), ("n1",), ())
    a = extract(check("MON_DOWN", "mon.b (rank 1) addr [v2:10.0.0.2:3300/0] is down (out of quorum)"))
    assert a.daemons == ("mon.b",)
