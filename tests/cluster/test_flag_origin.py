"""Who set each flag, and when, on the session sandbox: from the osdmap history (when), this host's cephtui
audit log and the mons' audit channel (who); the same answer from a fresh lookup, as after a restart."""
from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephtui.ceph import ops
from cephtui.ceph.client import CephClient
from cephtui.ceph.workflows import flag_origin as fo
from cephtui.paths import login
from tests.conftest import Sandbox, wait_until


@pytest.fixture
def unset_after(sandbox: Sandbox) -> Iterator[None]:
    yield
    for flag in ("noscrub", "nodeep-scrub"):
        sandbox.ceph("osd", "unset", flag)
    sandbox.ceph("osd", "unset-group", "noout", "osd.1")


def test_setters_and_times_of_flags_set_by_cephtui_and_by_the_cli(sandbox: Sandbox, client: CephClient,
                                                                   tmp_path: Path, unset_after: None) -> None:
    audit = ops.AuditLog(tmp_path / "audit.log", cluster=client.fsid())
    t0 = time.time()
    ops.run(client, ops.flag_set("nodeep-scrub", True), audit)  # this host's cephtui
    sandbox.ceph("osd", "set", "noscrub")  # the ceph CLI's way (its argparse, its own connection)
    sandbox.ceph("osd", "set-group", "noout", "osd.1")
    t1 = time.time()
    keys = [("nodeep-scrub", ""), ("noscrub", ""), ("noout", "osd.1")]

    # The mons commit their audit entries a moment after the command's answer: a setter not found yet is
    # "not yet" (the Maintenance pane looks again for a young flag), so wait for all three.
    first = wait_until(lambda: (o := fo.origins(client, keys, audit.path, client.fsid())) and all(
        v.who for v in o.values()) and o, 15, "the three setters in the audit logs")
    mine = first[("nodeep-scrub", "")]
    assert mine.who == f"{login()}@{socket.gethostname()} (cephtui)" and t0 - 1 <= mine.since <= t1 + 1, mine
    for key in keys[1:]:
        o = first[key]
        assert o.who == "client.admin at 127.0.0.1" and "ceph CLI" in o.via, (key, o)
        assert o.since is not None and t0 - 1 <= o.since <= t1 + 1 and o.before is None, (key, o)
    # The time is the osdmap's: the epoch that set noscrub is exactly when the mons made it.
    epoch = next(e for e in range(client.mon("osd dump")["epoch"], 0, -1)
                 if "noscrub" not in client.mon("osd dump", epoch=e - 1)["flags"])
    assert first[("noscrub", "")].since == fo.stamp(client.mon("osd dump", epoch=epoch)["modified"])

    # A restarted cephtui (nothing in memory): the same answers.
    assert fo.origins(client, keys, audit.path, client.fsid(), fo.OsdmapHistory(client)) == first
    # Without this host's audit log the mons' own audit channel still names the client.
    other = fo.origins(client, keys[:1], tmp_path / "none.log", client.fsid())[("nodeep-scrub", "")]
    assert other.who.startswith("client.admin at 127.0.0.1") and other.since == mine.since


def test_mons_keep_a_short_audit_tail(client: CephClient) -> None:
    """What the `who` rests on: asked for 1,000, Pacific's mons return at most mon_log_max_summary (50 by default)
    entries of the audit channel, every read command included; the oldest one's time is what we say."""
    kept = client.mon("log last", num=fo.AUDIT_TAIL, level="debug", channel="audit")
    _, oldest = fo.mon_audit(kept)
    assert 0 < len(kept) <= 50 and oldest is not None and oldest <= time.time()
