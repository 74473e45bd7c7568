"""Who set a flag and when: the osdmap-history search and the command matching (workflows/flag_origin)."""
from __future__ import annotations

import pytest

from cephtui.ceph.workflows import flag_origin as fo

KEY = ("noout", "")


class Maps(fo.OsdmapHistory):
    """Epochs `first`..`last` kept, each made at 1000 + epoch; the flag set in the epochs of `on`."""

    def __init__(self, first: int, last: int, on: set[int]) -> None:
        super().__init__(None)
        self.first, self.last, self.on, self.asked = first, last, on, 0

    def at(self, epoch: int):  # type: ignore[no-untyped-def]
        self.asked += 1
        if not self.first <= epoch <= self.last:
            return None
        return (frozenset({KEY}) if epoch in self.on else frozenset()), 1000.0 + epoch


@pytest.mark.parametrize("first,last,on,expect", [
    (1, 500, set(range(420, 501)), (1420.0, None)),  # set at 420
    (1, 500, {500}, (1500.0, None)),  # set by the newest epoch
    (1, 500, set(range(1, 501)), (None, 1001.0)),  # since epoch 1
    (300, 800, set(range(100, 801)), (None, 1300.0)),  # older than every epoch kept: before the oldest
    (300, 800, set(range(200, 250)) | set(range(700, 801)), (1700.0, None)),  # set, unset, set again
    (1, 500, {493} | set(range(497, 501)), (1497.0, None)),  # unset for 3 epochs: a gallop skipped them
    (1, 500, set(range(100, 200)), (None, None)),  # not set in the epoch asked about: no time, not 200's
])
def test_set_since_finds_the_first_epoch_of_the_current_run(first: int, last: int, on: set[int],
                                                           expect: tuple[float | None, float | None]) -> None:
    maps = Maps(first, last, on)
    assert maps.set_since(KEY, last) == expect
    assert maps.asked <= 40  # galloping and halving, not a walk over hundreds of maps


def test_which_commands_set_or_unset_a_flag() -> None:
    assert fo.effect({"prefix": "osd set", "key": "noout"}, ("noout", "")) is True
    assert fo.effect({"prefix": "osd unset", "key": "pause"}, ("pauserd", "")) is False
    assert fo.effect({"prefix": "osd set", "key": "pause"}, ("pause", "")) is True
    assert fo.effect({"prefix": "osd set", "key": "noout"}, ("noout", "osd.1")) is None
    assert fo.effect({"prefix": "osd set-group", "flags": "noout,noin", "who": ["node2"]}, ("noout", "node2")) is True
    assert fo.effect({"prefix": "osd unset-group", "flags": "noout", "who": ["ssd"]}, ("noout", "class ssd")) is False
    assert fo.effect({"prefix": "osd add-noout", "ids": ["1"]}, ("noout", "osd.1")) is True
    assert fo.effect({"prefix": "osd rm-noout", "ids": ["osd.1"]}, ("noout", "osd.1")) is False
    assert fo.effect({"prefix": "osd out", "ids": ["1"]}, ("noout", "osd.1")) is None


def test_the_setter_is_the_entry_nearest_the_epoch_and_never_one_undone_later() -> None:
    e = [fo.AuditEntry(100.0, "a", {"prefix": "osd set", "key": "noout"}),
         fo.AuditEntry(200.0, "b", {"prefix": "osd unset", "key": "noout"}),
         fo.AuditEntry(300.0, "c", {"prefix": "osd set", "key": "noout"})]
    assert fo.setter(e, KEY, 301.0).who == "c"
    assert fo.setter(e, KEY, 101.0).who == "a"
    assert fo.setter(e, KEY, 1000.0) is None  # nothing near the epoch that set it: unknown, not a guess
    assert fo.setter(e, KEY, None).who == "c"
    assert fo.setter(e[:2], KEY, None) is None


def test_what_is_said_when_the_setter_is_older_than_what_the_mons_keep() -> None:
    o = fo.FlagOrigin(before=fo.stamp("2026-11-27T18:40:00+0000"), why_unknown="the mons' audit log keeps only since"
                      " 19:10")
    assert o.when_text().startswith("before ") and "the oldest osdmap the mons keep" in o.describe()
    assert "setter unknown" in o.describe()
    t = fo.stamp("2026-11-27T19:10:00+0000")
    assert fo.FlagOrigin(since=t, why_unknown="…", audit_from=t).who_text(now=t) == \
        f"unknown (audit kept ≥{fo.clock_time(t, t)})"
    assert fo.FlagOrigin(since=t, who="bob@mon2 (cephtui)").who_text() == "bob@mon2 (cephtui)"


# Lines of /var/log/ceph/ceph.audit.log as Pacific's mons wrote them (copied from the real file).
PACIFIC_LINES = [
    "2026-11-27T20:37:38.087397+0000 mon.a (mon.0) 283 : audit [INF] from='client.? 127.0.0.1:0/728412866' "
    "entity='client.admin' cmd=[{\"prefix\": \"osd set\", \"key\": \"noscrub\"}]: dispatch",
    "2026-11-27T20:37:38.127858+0000 mon.a (mon.0) 285 : audit [INF] from='client.? 127.0.0.1:0/728412866' "
    "entity='client.admin' cmd='[{\"prefix\": \"osd set\", \"key\": \"noscrub\"}]': finished",
    "2026-11-27T20:36:40.012679+0000 mon.a (mon.0) 234 : audit [INF] from='client.? 127.0.0.1:0/140791542' "
    "entity='client.admin' cmd=[{\"prefix\": \"osd set-group\", \"flags\": \"noout\", \"who\": [\"osd.1\"]}]: dispatch",
    "2026-11-27T21:02:29.699123+0000 mon.a (mon.0) 6452 : audit [INF] from='client.? 127.0.0.1:0/2991370054' "
    "entity='client.admin' cmd=[{\"prefix\": \"osd add-noout\", \"ids\": [\"0\", \"1\"]}]: dispatch",
    "2026-11-27T20:31:00.135931+0000 mgr.x (mgr.4100) 6 : audit [DBG] from='client.4105 -' entity='client.admin' "
    "cmd=[{\"prefix\": \"pg stat\", \"format\": \"json\"}]: dispatch",
]


# The same commands in the file of Reef's mons (Debian trixie) and Tentacle's (forky): Tentacle writes a
# dispatched command without its list, `cmd={...} : dispatch`.
NEWER_LINES = [
    "2026-11-27T21:23:47.087170+0000 mon.a (mon.0) 761 : audit [INF] from='client.? 127.0.0.1:0/1220199624' "
    "entity='client.admin' cmd=[{\"prefix\": \"osd set\", \"key\": \"noscrub\"}]: dispatch",
    "2026-11-27T21:23:48.140719+0000 mon.a (mon.0) 767 : audit [INF] from='client.? 127.0.0.1:0/2953505582' "
    "entity='client.admin' cmd='[{\"prefix\": \"osd set-group\", \"flags\": \"noout\", \"who\": [\"osd.0\"]}]': "
    "finished",
    "2026-11-27T21:25:39.488259+0000 mon.a (mon.0) 628 : audit [INF] from='client.? 127.0.0.1:0/2674459454' "
    "entity='client.admin' cmd={\"prefix\": \"osd set\", \"key\": \"noscrub\"} : dispatch",
    "2026-11-27T21:25:40.471920+0000 mon.a (mon.0) 638 : audit [INF] from='client.? 127.0.0.1:0/628104248' "
    "entity='client.admin' cmd={\"prefix\": \"osd set-group\", \"flags\": \"noout\", \"who\": [\"osd.0\"]} : dispatch",
    "2026-11-27T21:25:41.144237+0000 mon.a (mon.0) 643 : audit [INF] from='client.? 127.0.0.1:0/628104248' "
    "entity='client.admin' cmd='[{\"prefix\": \"osd set-group\", \"flags\": \"noout\", \"who\": [\"osd.0\"]}]': "
    "finished",
]


def test_reef_and_tentacle_audit_log_file_lines() -> None:
    got = fo.file_audit(NEWER_LINES, fo.Path("/var/log/ceph/ceph.audit.log"))
    assert len(got) == len(NEWER_LINES) and all(e.who == "client.admin at 127.0.0.1" for e in got)
    assert [fo.effect(e.command, ("noscrub", "")) for e in got] == [True, None, True, None, None]
    assert [fo.effect(e.command, ("noout", "osd.0")) for e in got] == [None, True, None, True, True]
    assert got[2].time == fo.stamp("2026-11-27T21:25:39.488259+0000")


def test_the_mons_audit_log_file_lines_are_read_as_log_last_entries() -> None:
    path = fo.Path("/var/log/ceph/ceph.audit.log")
    got = fo.file_audit(PACIFIC_LINES + ["", "garbage", PACIFIC_LINES[0][:90]], path)
    assert [e.command.get("prefix") for e in got] == ["osd set", "osd set", "osd set-group", "osd add-noout"]
    first = got[0]
    assert first.time == fo.stamp("2026-11-27T20:37:38.087397+0000") and first.who == "client.admin at 127.0.0.1"
    assert str(path) in first.via
    assert fo.effect(got[1].command, ("noscrub", "")) is True  # the `finished` form (quoted) too
    assert fo.effect(got[2].command, ("noout", "osd.1")) is True
    assert fo.effect(got[3].command, ("noout", "osd.1")) is True
    # The setter is the entry nearest the epoch that set the flag, as for `log last`.
    assert fo.setter(got, ("noscrub", ""), fo.stamp("2026-11-27T20:37:38.130000+0000")) == got[1]
    assert fo.setter(got, ("noscrub", ""), fo.stamp("2026-11-27T20:57:38+0000")) is None
