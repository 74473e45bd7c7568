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


def test_a_busy_file_is_read_around_the_time_sought(tmp_path: Path) -> None:
    """Three sandboxes' mons once wrote 3.9 MiB to one audit file in the 30 s before the `osd set` sought (a flood
    of `osd dump`s), and a read of WINDOW_BYTES from the span's start ended before it. A file as busy: 400 lines a
    second for 240 s, the setter at 120 s; the span asked (±60 s) holds more than the limit, and the bytes read are
    those around the flag's epoch, so its setter is found."""
    from cephtui.ceph.workflows import flag_origin as fo

    first = clf.line_time(PACIFIC_LINES[4].encode())
    assert first is not None
    base = float(int(first))
    noise, setter = PACIFIC_LINES[4].split(" ", 1)[1], PACIFIC_LINES[1].split(" ", 1)[1]
    path = tmp_path / "ceph.audit.log"
    stamps = [base + i / 400 for i in range(96000)]
    at = 48000  # 120 s in
    path.write_text("".join(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{round(t * 1e6) % 1000000:06d}"
                            "+0000 " + (setter if i == at else noise) + "\n" for i, t in enumerate(stamps)))
    since = stamps[at] + 0.004  # the epoch that set the flag, just after the command finished
    span = (since - fo.MATCH_WINDOW, since + fo.MATCH_WINDOW)
    assert (fo.MATCH_WINDOW * 2 + clf.SKEW) * 400 * (len(noise) + 33) > clf.WINDOW_BYTES  # more than one read holds
    with path.open("rb") as f:  # what a read from the span's start reaches: not the setter
        start = clf._offset_before(f, f.seek(0, 2), span[0] - clf.SKEW)
        assert not any(b"noscrub" in line for line in clf._lines_from(f, start, clf.WINDOW_BYTES))
    got = fo.file_audit(clf.window(path, *span, around=since), path)
    found = fo.setter(got, ("noscrub", ""), since)
    assert found is not None and found.time == pytest.approx(stamps[at], abs=1e-5)
