"""The Doctor's catalog of health checks: every code the research names is found, lookup prefers exact codes
to families, and every entry is complete, original and points at real commands and options."""
from __future__ import annotations

import re
from collections import defaultdict

import pytest

from cephtui.ceph.doctor.catalog import CATALOG, FAMILIES, MODULES, build, lookup
from cephtui.ceph.doctor.model import Explanation

# The contract: every code with an entry in the issue 19 research (health-checks.md), written out once.
# Pattern-named entries there (OSD_<TYPE>_DOWN, CEPHADM_*, MDS_*/FS_*, NVMEOF_*, MGR_INFLUX_*, MGR_ZABBIX_*)
# are checked through examples below. The CephFS codes came later (catalog/cephfs.py; verified against Ceph's
# source in test_doctor_cephfs.py).
RESEARCHED = (
    # monitor
    "DAEMON_OLD_VERSION", "MON_DOWN", "MON_CLOCK_SKEW", "MON_MSGR2_NOT_ENABLED", "MON_DISK_LOW", "MON_DISK_CRIT",
    "MON_DISK_BIG", "MON_NETSPLIT", "AUTH_INSECURE_GLOBAL_ID_RECLAIM", "AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED",
    "OSD_NO_DOWN_OUT_INTERVAL", "AUTH_BAD_CAPS", "DEGRADED_STRETCH_MODE", "RECOVERING_STRETCH_MODE",
    "INCORRECT_NUM_BUCKETS_STRETCH_MODE", "UNEVEN_WEIGHTS_STRETCH_MODE", "NONEXISTENT_MON_CRUSH_LOC_STRETCH_MODE",
    # manager
    "MGR_DOWN", "MGR_MODULE_DEPENDENCY", "MGR_MODULE_ERROR",
    # OSDs
    "OSD_DOWN", "OSD_ORPHAN", "OSD_OUT_OF_ORDER_FULL", "OSD_FULL", "OSD_BACKFILLFULL", "OSD_NEARFULL",
    "OSDMAP_FLAGS", "OSD_FLAGS", "OLD_CRUSH_TUNABLES", "OLD_CRUSH_STRAW_CALC_VERSION", "CACHE_POOL_NO_HIT_SET",
    "OSD_NO_SORTBITWISE", "OSD_UPGRADE_FINISHED", "OSD_FILESTORE", "OSD_UNREACHABLE",
    # pools
    "POOL_FULL", "POOL_NEARFULL", "POOL_NEAR_FULL", "POOL_BACKFILLFULL", "POOL_PG_NUM_NOT_POWER_OF_TWO",
    "POOL_NO_REDUNDANCY", "POOL_SCRUB_FLAGS", "TOO_FEW_OSDS", "OSD_SLOW_PING_TIME_BACK", "OSD_SLOW_PING_TIME_FRONT",
    # data health
    "PG_AVAILABILITY", "PG_DEGRADED", "PG_RECOVERY_FULL", "PG_BACKFILL_FULL", "PG_DEGRADED_FULL", "PG_DAMAGED",
    "OSD_SCRUB_ERRORS", "OSD_TOO_MANY_REPAIRS", "LARGE_OMAP_OBJECTS", "CACHE_POOL_NEAR_FULL", "TOO_FEW_PGS",
    "TOO_MANY_PGS", "SMALLER_PGP_NUM", "MANY_OBJECTS_PER_PG", "OBJECT_MISPLACED", "OBJECT_UNFOUND",
    "PG_NOT_SCRUBBED", "PG_NOT_DEEP_SCRUBBED", "POOL_APP_NOT_ENABLED", "PG_SLOW_SNAP_TRIMMING", "REQUEST_SLOW",
    "REQUEST_STUCK",
    # daemon health metrics
    "SLOW_OPS", "PENDING_CREATING_PGS", "HIGH_DEBUG_LEVEL",
    # BlueStore
    "BLUEFS_SPILLOVER", "BLUESTORE_NO_COMPRESSION", "BLUESTORE_LEGACY_STATFS", "BLUESTORE_NO_PER_POOL_OMAP",
    "BLUESTORE_NO_PER_PG_OMAP", "BLUESTORE_DISK_SIZE_MISMATCH", "BLUESTORE_SPURIOUS_READ_ERRORS",
    "BLUESTORE_SLOW_OP_ALERT", "BLOCK_DEVICE_STALLED_READ_ALERT", "DB_DEVICE_STALLED_READ_ALERT",
    "WAL_DEVICE_STALLED_READ_ALERT", "BLUESTORE_FREE_FRAGMENTATION", "BLUEFS_AVAILABLE_SPACE", "BLUEFS_LOW_SPACE",
    "BLUESTORE_FRAGMENTATION",
    # manager modules
    "RECENT_CRASH", "RECENT_MGR_MODULE_CRASH", "DEVICE_HEALTH", "DEVICE_HEALTH_IN_USE", "DEVICE_HEALTH_TOOMANY",
    "POOL_TOO_FEW_PGS", "POOL_TOO_MANY_PGS", "POOL_TARGET_SIZE_BYTES_OVERCOMMITTED",
    "POOL_HAS_TARGET_SIZE_BYTES_AND_RATIO", "TELEMETRY_CHANGED", "DASHBOARD_DEBUG", "ALERTS_SMTP_ERROR",
    "BLAUM_ROTH_W_IS_NOT_PRIME",
    # CephFS: the file system map (mon) and the MDS daemons' own reports
    "FS_DEGRADED", "FS_WITH_FAILED_MDS", "MDS_ALL_DOWN", "MDS_UP_LESS_THAN_MAX", "MDS_INSUFFICIENT_STANDBY",
    "FS_INLINE_DATA_DEPRECATED", "MDS_DAMAGE", "MDS_READ_ONLY", "MDS_SLOW_REQUEST", "MDS_SLOW_METADATA_IO",
    "MDS_TRIM", "MDS_CACHE_OVERSIZED", "MDS_CLIENT_LATE_RELEASE", "MDS_CLIENT_LATE_RELEASE_MANY",
    "MDS_CLIENT_RECALL", "MDS_CLIENT_RECALL_MANY", "MDS_CLIENT_OLDEST_TID", "MDS_CLIENT_OLDEST_TID_MANY",
    "MDS_CLIENTS_LAGGY", "MDS_ESTIMATED_REPLAY_TIME",
    # cephtui's own findings (issue 32: the fail-slow ranking), not raised by Ceph
    "CEPHTUI_SLOW_OSD", "CEPHTUI_SLOW_HOST", "CEPHTUI_MGR_UNREACHABLE",
)

# Codes only a family explains: (raised code, the family pattern that must answer it)
FAMILY_EXAMPLES = (
    ("OSD_HOST_DOWN", "OSD_*_DOWN"), ("OSD_RACK_DOWN", "OSD_*_DOWN"), ("OSD_ROOT_DOWN", "OSD_*_DOWN"),
    ("OSD_DATACENTER_DOWN", "OSD_*_DOWN"),
    ("CEPHADM_STRAY_DAEMON", "CEPHADM_*"), ("CEPHADM_PAUSED", "CEPHADM_*"),
    # CephFS codes without an entry of their own (a newer release's) still find the family
    ("MDS_CLIENTS_BROKEN_ROOTSQUASH", "MDS_*"), ("MDS_SOMETHING_NEW", "MDS_*"), ("FS_SOMETHING_NEW", "FS_*"),
    ("NVMEOF_SINGLE_GATEWAY", "NVMEOF_*"), ("NVMEOF_GATEWAY_DOWN", "NVMEOF_*"),
    ("NVMEOF_GATEWAY_DELETING", "NVMEOF_*"),
    ("MGR_INFLUX_SEND_FAILED", "MGR_INFLUX_*"), ("MGR_ZABBIX_SEND_FAILED", "MGR_ZABBIX_*"),
    ("BLUESTORE_SOMETHING_NEW", "BLUESTORE_*"),
)

FIX_KEYS = {"", "pool_app_enable", "insecure_reclaim_off", "cluster_flags", "osd_flags", "deep_scrub", "scrub",
            "pg_repair", "reweight_by_utilization", "crashes", "slow_ops", "autoscale", "config"}

# The fixes the lead builds, and the codes each one answers (the brief's list, not derived from the catalog)
EXPECTED_FIXES = {
    "POOL_APP_NOT_ENABLED": "pool_app_enable",
    "AUTH_INSECURE_GLOBAL_ID_RECLAIM_ALLOWED": "insecure_reclaim_off",
    "OSDMAP_FLAGS": "cluster_flags",
    "OSD_FLAGS": "osd_flags",
    "PG_NOT_DEEP_SCRUBBED": "deep_scrub",
    "PG_NOT_SCRUBBED": "scrub",
    "OSD_SCRUB_ERRORS": "pg_repair",
    "PG_DAMAGED": "pg_repair",
    "OSD_NEARFULL": "reweight_by_utilization",
    "OSD_BACKFILLFULL": "reweight_by_utilization",
    "RECENT_CRASH": "crashes",
    "RECENT_MGR_MODULE_CRASH": "crashes",
    "SLOW_OPS": "slow_ops",
    "POOL_TOO_FEW_PGS": "autoscale",
    "POOL_TOO_MANY_PGS": "autoscale",
    "OSD_NO_DOWN_OUT_INTERVAL": "config",
}

CODE = re.compile(r"^[A-Z0-9_*]+$")
# A Ceph option, or a mgr module option as `config set mgr` takes it (mgr/crash/warn_recent_interval)
OPTION = re.compile(r"^(?:mgr/[a-z_]+/)?[a-z][a-z0-9_]+$")
COMMAND_PREFIXES = ("ceph ", "rados ", "rbd ", "cephadm ")
# cephtui: its own CEPHTUI_ codes; mds: the checks an MDS reports in its beacon, tuned by the MDS's options
RAISED_BY = re.compile(r"^(?:mon|mgr|osd|mds|mgr module [a-z_]+|cephtui)$")
# Sentences shorter than this are allowed to recur ("Add OSDs.")
SENTENCE_MIN = 25

ALL: tuple[Explanation, ...] = tuple(CATALOG.values()) + FAMILIES


def sentences(text: str) -> list[str]:
    """Split prose into sentences, normalised for comparison; `code` spans may hold dots, so they are kept
    whole."""
    spans = re.split(r"(`[^`]*`)", text)
    flat = "".join(s if s.startswith("`") else re.sub(r"([.?!;]) ", "\\1\n", s) for s in spans)
    return [" ".join(part.lower().split()) for part in flat.split("\n") if part.strip()]


def body(entry: Explanation) -> tuple[object, ...]:
    return (entry.meaning, entry.why, entry.causes, entry.actions)


# --- coverage ------------------------------------------------------------------------------------------------

def test_every_researched_code_is_explained_exactly() -> None:
    missing = [code for code in RESEARCHED if code not in CATALOG]
    assert missing == []
    assert len(set(RESEARCHED)) == len(RESEARCHED)
    assert len(CATALOG) >= 60
    for code in RESEARCHED:
        found = lookup(code)
        assert found is not None and found.code == code


@pytest.mark.parametrize(("code", "pattern"), FAMILY_EXAMPLES)
def test_family_codes_find_their_family(code: str, pattern: str) -> None:
    assert code not in CATALOG
    found = lookup(code)
    assert found is not None
    assert found.code == pattern


def test_catalog_has_nothing_the_contract_does_not_name() -> None:
    """A code added to the catalog must be added to the contract too (and so checked)."""
    assert set(CATALOG) - set(RESEARCHED) == set()


# --- lookup --------------------------------------------------------------------------------------------------

def test_exact_beats_family() -> None:
    assert lookup("BLUESTORE_SLOW_OP_ALERT") is CATALOG["BLUESTORE_SLOW_OP_ALERT"]
    assert lookup("BLUESTORE_SLOW_OP_ALERT") is not None
    family = lookup("BLUESTORE_NOT_YET_KNOWN")
    assert family is not None and family.code == "BLUESTORE_*"


def test_osd_down_is_not_a_bucket_down() -> None:
    osd_down = lookup("OSD_DOWN")
    assert osd_down is CATALOG["OSD_DOWN"]
    host_down = lookup("OSD_HOST_DOWN")
    assert host_down is not None and host_down.code == "OSD_*_DOWN"
    assert host_down is not osd_down


def test_unknown_codes_find_nothing() -> None:
    assert lookup("NOT_A_CEPH_CHECK") is None
    assert lookup("") is None
    assert lookup("osd_down") is None  # codes are upper-case; no guessing
    assert lookup("OSD_DOWN_EXTRA") is None
    assert lookup("MGR_SOMETHING") is None  # MGR_INFLUX_* / MGR_ZABBIX_* do not swallow every MGR_ code


def test_build_refuses_duplicates_and_patterns() -> None:
    entry = CATALOG["OSD_DOWN"]
    with pytest.raises(ValueError, match="twice"):
        build([(entry,), (entry,)])
    with pytest.raises(ValueError, match="pattern"):
        build([(FAMILIES[0],)])


# --- every entry ---------------------------------------------------------------------------------------------

def test_no_code_is_written_twice_across_modules() -> None:
    codes = [entry.code for module in MODULES for entry in module.ENTRIES]
    assert len(codes) == len(set(codes))
    assert len(codes) == len(CATALOG)
    patterns = [family.code for family in FAMILIES]
    assert len(patterns) == len(set(patterns))
    assert all("*" in pattern for pattern in patterns)
    assert not set(codes) & set(patterns)


def test_families_cover_what_the_brief_asks() -> None:
    assert {"OSD_*_DOWN", "CEPHADM_*", "MDS_*", "FS_*", "NVMEOF_*", "MGR_INFLUX_*", "MGR_ZABBIX_*"} <= {
        family.code for family in FAMILIES}


@pytest.mark.parametrize("entry", ALL, ids=lambda e: e.code)
def test_entry_is_complete(entry: Explanation) -> None:
    assert CODE.match(entry.code), entry.code
    assert entry.title.strip() and entry.meaning.strip() and entry.why.strip()
    assert 1 <= len(entry.causes) <= 5
    assert 1 <= len(entry.actions) <= 6
    assert all(cause.strip() for cause in entry.causes)
    assert all(action.strip() for action in entry.actions)
    assert entry.fix in FIX_KEYS
    assert RAISED_BY.match(entry.raised_by), entry.raised_by
    assert len(entry.title) <= 60
    assert len(sentences(entry.meaning)) <= 2  # "1-2 sentences"


@pytest.mark.parametrize("entry", ALL, ids=lambda e: e.code)
def test_backticked_actions_are_commands_or_options(entry: Explanation) -> None:
    for action in entry.actions:
        assert action.count("`") % 2 == 0, action
        for span in re.findall(r"`([^`]*)`", action):
            assert span.startswith(COMMAND_PREFIXES) or OPTION.match(span), span


@pytest.mark.parametrize("entry", ALL, ids=lambda e: e.code)
def test_options_look_like_ceph_options(entry: Explanation) -> None:
    for option in entry.options:
        assert OPTION.match(option), option
    assert len(entry.options) == len(set(entry.options))


def test_fix_keys_go_where_the_fixes_apply() -> None:
    for code, fix in EXPECTED_FIXES.items():
        assert CATALOG[code].fix == fix, code
    # `config` is for checks whose fix is setting an option; every other fix key is used only where expected
    for entry in ALL:
        if entry.fix and entry.fix != "config":
            assert EXPECTED_FIXES.get(entry.code) == entry.fix, entry.code
    assert all(family.fix == "" for family in FAMILIES)
    assert CATALOG["MON_DISK_LOW"].fix == ""


def test_config_fixes_name_the_options_they_set() -> None:
    for entry in ALL:
        if entry.fix == "config":
            assert entry.options, entry.code
            assert any("ceph config " in action for action in entry.actions), entry.code


def test_no_sentence_is_copied_between_entries() -> None:
    """Catches copy-paste: a sentence of any length worth the name appears in one entry only. Deliberate
    aliases (one body under two patterns, MDS_* and FS_*) count as one entry."""
    where: dict[str, set[tuple[object, ...]]] = defaultdict(set)
    names: dict[tuple[object, ...], str] = {}
    for entry in ALL:
        key = body(entry)
        names.setdefault(key, entry.code)
        texts = (entry.meaning, entry.why, *entry.causes, *entry.actions)
        for text in texts:
            for sentence in sentences(text):
                if len(sentence) >= SENTENCE_MIN:
                    where[sentence].add(key)
    copied = {s: sorted(names[k] for k in keys) for s, keys in where.items() if len(keys) > 1}
    assert copied == {}


def test_sentence_splitter_keeps_commands_whole() -> None:
    """The copy check relies on the splitter: commands with dots and colons stay in one piece."""
    assert sentences("Run `ceph tell osd.1 compact`. Then wait: it is slow; really.") == [
        "run `ceph tell osd.1 compact`.", "then wait: it is slow;", "really."]


def test_scrub_checks_say_the_manager_reads_their_options() -> None:
    for code in ("PG_NOT_SCRUBBED", "PG_NOT_DEEP_SCRUBBED"):
        entry = CATALOG[code]
        assert entry.raised_by == "mgr"
        assert any("manager" in action for action in entry.actions), code


def test_releases_mention_a_release_where_set() -> None:
    release = re.compile(r"Pacific|Quincy|Reef|Squid|Tentacle|Nautilus|Octopus|Mimic|mimic|newer|Newest|"
                         r"[Dd]ocument|\d+\.\d")
    for entry in ALL:
        if entry.releases:
            assert release.search(entry.releases), entry.code


def test_destructive_commands_say_what_they_destroy() -> None:
    """auth rm, crash rm and mark_unfound_lost lose something for good: their action says so."""
    words = ("delete", "lose", "for good", "destroy")
    for entry in ALL:
        for action in entry.actions:
            if any(cmd in action for cmd in ("auth rm", "crash rm", "mark_unfound_lost", "osd purge")):
                assert any(word in action.lower() for word in words), (entry.code, action)
