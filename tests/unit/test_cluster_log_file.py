"""Where the mons write the audit channel (mon_cluster_log_file), and bounded reads of that file by time."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from cephtui.ceph.workflows import cluster_log_file as clf
from tests.unit.test_flag_origin import PACIFIC_LINES


@pytest.mark.parametrize("setting,expect", [
    (clf.DEFAULT_SETTING, "/var/log/ceph/ceph.audit.log"),  # Ceph's default (what `config get mon.a` answers)
    ("default=/var/log/ceph/ceph.$channel.log cluster=/var/log/ceph/ceph.log", "/var/log/ceph/ceph.audit.log"),
    ("default=/l/$cluster.$channel.log audit=/a/$cluster-audit.log", "/a/prod-audit.log"),
    ("/var/log/ceph/$cluster.all.log", "/var/log/ceph/prod.all.log"),  # one file for every channel
    ("cluster=/var/log/ceph/$cluster.log", ""),  # no file for the audit channel
    ("", ""),
])
def test_the_audit_channel_file(setting: str, expect: str) -> None:
    assert clf.channel_file(setting, "audit", "ceph" if "ceph." in expect else "prod") == expect


def test_a_time_window_is_found_without_reading_the_whole_file(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A log of 20,000 real lines, one a second (their stamps moved): the window reads a few KB, not the file."""
    first = clf.line_time(PACIFIC_LINES[4].encode())
    assert first is not None
    base = float(int(first))  # whole seconds: the stamps below are written with .000000
    body = PACIFIC_LINES[4].split(" ", 1)[1]
    path = tmp_path / "ceph.audit.log"
    stamps = [base + i for i in range(20000)]
    path.write_text("".join(time.strftime("%Y-%m-%dT%H:%M:%S.000000+0000 ", time.gmtime(t)) + body + "\n"
                            for t in stamps))
    read = 0
    real = clf._lines_from

    def counted(f, offset, limit):  # type: ignore[no-untyped-def]
        nonlocal read
        for line in real(f, offset, limit):
            read += len(line) + 1
            yield line
    monkeypatch.setattr(clf, "_lines_from", counted)
    got = clf.window(path, base + 12000, base + 12010)
    assert [clf.line_time(g.encode()) for g in got] == stamps[12000:12011]
    line = len(body) + 32
    assert read <= clf.BISECT_UNTIL + (2 * clf.SKEW + 11 + 40) * line < path.stat().st_size / 10
    assert clf.window(path, base - 100, base - 50) == [] and clf.window(path, base + 30000, base + 30001) == []
    assert len(clf.window(path, base, base + 19999, limit=4096)) < 40  # the byte limit holds
    assert [clf.line_time(g.encode()) for g in clf.tail(path, 1000)] == stamps[-(1000 // (len(body) + 32)):]


def test_a_line_written_out_of_its_time_order_is_found(tmp_path: Path) -> None:
    """Lines in commit order with the senders' stamps: some stamped up to 10 s before lines written ahead of them
    (several mons wrote one file here 8.5 s out of order). The window still finds them, and only them."""
    first = clf.line_time(PACIFIC_LINES[4].encode())
    assert first is not None
    base = float(int(first))
    body = PACIFIC_LINES[4].split(" ", 1)[1]
    stamps = [base + i for i in range(5000)]
    late = {2500: base + 2490.5, 2501: base + 2491.5}  # written at 2500 s, stamped ten seconds earlier
    order = [late.get(i, t) for i, t in enumerate(stamps)]
    path = tmp_path / "ceph.audit.log"
    path.write_text("".join(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1e6) % 1000000:06d}"
                            "+0000 " + body + "\n" for t in order))
    got = [clf.line_time(g.encode()) for g in clf.window(path, base + 2490.2, base + 2491.8)]
    assert sorted(got) == [base + 2490.5, base + 2491, base + 2491.5]  # the two late lines, and the one in order
