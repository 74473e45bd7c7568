"""Who set each flag, and when, on the session sandbox: from the osdmap history (when), this host's cephtui
audit log, the mons' audit channel (`log last`) and their audit log file (who); the same answer from a fresh
lookup, as after a restart, once `log last` has forgotten."""
from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephtui.ceph import ops
from cephtui.ceph.client import CephClient
from cephtui.ceph.workflows import cluster_log_file
from cephtui.ceph.workflows import flag_origin as fo
from cephtui.paths import login
from tests.conftest import Sandbox, wait_until


@pytest.fixture
def unset_after(sandbox: Sandbox) -> Iterator[None]:
    yield
    for flag in ("noscrub", "nodeep-scrub"):
        sandbox.ceph("osd", "unset", flag)
    sandbox.ceph("osd", "unset-group", "noout", "osd.1")


def until_log_last_forgets(sandbox: Sandbox, prefix: str) -> None:
    """Read until the mons' `log last` no longer holds a `prefix` command (it keeps 50 entries on Pacific's
    defaults): what a busy cluster, or minutes of a running cephtui, does to the setter of an older flag.
    "Holds" is judged as cephtui reads the tail (fo.mon_audit: each entry's command parsed from its JSON) and
    as the raw text says it, so that the helper and the code under test cannot disagree on one entry."""
    def held(kept: object) -> bool:
        entries, _ = fo.mon_audit(kept)
        raw = any(f'"prefix": "{prefix}"' in str(e.get("message", "")) for e in fo.as_list(kept)
                  if isinstance(e, dict))
        return raw or any(str(e.command.get("prefix", "")) == prefix for e in entries)

    def gone() -> bool:
        for _ in range(20):
            sandbox.ceph("osd", "dump")
        return not held(sandbox.ceph("log", "last", str(fo.AUDIT_TAIL), "debug", "audit"))
    wait_until(gone, 30, f"`log last` to forget the {prefix} commands", interval=0.0)


def test_setters_and_times_of_flags_set_by_cephtui_and_by_the_cli(sandbox: Sandbox, client: CephClient,
                                                                   tmp_path: Path, unset_after: None) -> None:
    audit = ops.AuditLog(tmp_path / "audit.log", cluster=client.fsid())
    t0 = time.time()
    ops.run(client, ops.flag_set("nodeep-scrub", True), audit)  # this host's cephtui
    sandbox.ceph("osd", "set", "noscrub")  # the ceph CLI's way (its argparse, its own connection)
    sandbox.ceph("osd", "set-group", "noout", "osd.1")
    keys = [("nodeep-scrub", ""), ("noscrub", ""), ("noout", "osd.1")]
    # An answer may come before the osdmap that holds it is committed (a CI run's `osd set-group` was answered,
    # and the next `osd dump` still showed the epoch before): the flags are set once the osdmap says so.
    wait_until(lambda: set(keys) <= fo.flag_keys(client.mon("osd dump")), 15, "the three flags in the osdmap")
    t1 = time.time()

    # At once, from `log last` alone (the file left out): the mons commit their audit entries a moment after
    # the command's answer, so a setter not found yet is "not yet". Deterministic on a quiet cluster: each
    # look costs two entries of the 50 kept (the osdmaps it reads are cached in `history`).
    history = fo.OsdmapHistory(client)
    first = wait_until(lambda: (o := fo.origins(client, keys, audit.path, client.fsid(), history,
                                                read_cluster_log=False)) and all(v.who for v in o.values()) and o,
                       15, "the three setters in this host's cephtui audit log and `log last`")
    mine = first[("nodeep-scrub", "")]
    assert mine.who == f"{login()}@{socket.gethostname()} (cephtui)" and t0 - 1 <= mine.since <= t1 + 1, mine
    for key in keys[1:]:
        o = first[key]
        assert o.who == "client.admin at 127.0.0.1" and o.via.startswith("from the mons' audit log:"), (key, o)
        assert o.since is not None and t0 - 1 <= o.since <= t1 + 1 and o.before is None, (key, o)
    # The time is the osdmap's: the epoch that set noscrub is exactly when the mons made it.
    epoch = next(e for e in range(client.mon("osd dump")["epoch"], 0, -1)
                 if "noscrub" not in client.mon("osd dump", epoch=e - 1)["flags"])
    assert first[("noscrub", "")].since == fo.stamp(client.mon("osd dump", epoch=epoch)["modified"])

    # Later (`log last` has forgotten), and in a restarted cephtui (nothing in memory): the CLI's setters are
    # named from the mons' audit log file on this host, read around the epochs that set the flags.
    until_log_last_forgets(sandbox, "osd set-group")

    def forgotten() -> dict[fo.FlagKey, fo.FlagOrigin] | None:  # as cephtui itself reads `log last`
        o = fo.origins(client, keys, audit.path, client.fsid(), read_cluster_log=False)
        if any(o[key].who for key in keys[1:]):
            for _ in range(20):  # still kept: more traffic, as a running cephtui makes
                sandbox.ceph("osd", "dump")
            return None
        return o
    without_file = wait_until(forgotten, 30, "cephtui's reading of `log last` to forget the CLI's setters",
                              interval=0.0)
    assert without_file[("nodeep-scrub", "")] == mine  # this host's cephtui audit log still has ours
    for key in keys[1:]:
        assert "keeps only since" in without_file[key].why_unknown, without_file[key]
    later = fo.origins(client, keys, audit.path, client.fsid(), fo.OsdmapHistory(client))
    path = cluster_log_file.locate(client)[0]
    assert path is not None and later[("nodeep-scrub", "")] == mine
    for key in keys[1:]:
        assert later[key].who == "client.admin at 127.0.0.1" and str(path) in later[key].via, later[key]
        assert later[key].since == first[key].since
    # Without this host's cephtui audit log, the file names the client that sent our own command too.
    other = fo.origins(client, keys[:1], tmp_path / "none.log", client.fsid())[("nodeep-scrub", "")]
    assert other.who == "client.admin at 127.0.0.1" and other.since == mine.since and str(path) in other.via


def test_an_unreadable_audit_log_file_is_said(sandbox: Sandbox, client: CephClient, tmp_path: Path,
                                              unset_after: None, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox.ceph("osd", "set", "noscrub")
    until_log_last_forgets(sandbox, "osd set")
    monkeypatch.setattr(cluster_log_file, "DEFAULT_SETTING", str(tmp_path / "absent.$channel.log"))
    monkeypatch.setattr(cluster_log_file, "_config_get", lambda *a: "" if a[-1] == "mon_cluster_log_file" else "true")
    o = fo.origins(client, [("noscrub", "")], tmp_path / "none.log", client.fsid())[("noscrub", "")]
    assert not o.who and f"no readable {tmp_path}/absent.audit.log on this host" in o.describe(), o
    assert o.who_text().startswith("unknown (audit kept ≥")  # `log last` is then what reaches back furthest


def test_mons_keep_a_short_audit_tail(client: CephClient) -> None:
    """What the `who` rests on: asked for 1,000, Pacific's mons return at most mon_log_max_summary (50 by default)
    entries of the audit channel, every read command included; the oldest one's time is what we say."""
    kept = client.mon("log last", num=fo.AUDIT_TAIL, level="debug", channel="audit")
    _, oldest = fo.mon_audit(kept)
    assert 0 < len(kept) <= 50 and oldest is not None and oldest <= time.time()
