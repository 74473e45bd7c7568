"""MgrLine: a mgr command carried by a thread of its own, bounded by the caller's wait and one per prefix."""
from __future__ import annotations

import threading
from typing import Any

import pytest

from cephtui.ceph.mgrline import Carried, MgrBusy, MgrLine, MgrNoAnswer


class Mgr:
    """A stand-in handle whose mgr_command blocks until `answer` is set, as a dead mgr does without a timeout."""

    def __init__(self) -> None:
        self.answer = threading.Event()
        self.sent: list[str] = []
        self.shut = False

    def mgr_command(self, cmd: str, inbuf: bytes) -> tuple[int, bytes, str]:
        self.sent.append(cmd)
        self.answer.wait(30)
        return 0, b"ok", ""

    def shutdown(self) -> None:
        self.shut = True


def test_the_caller_waits_its_own_time_and_the_late_answer_is_heard() -> None:
    mgr = Mgr()
    late: list[Carried] = []
    heard = threading.Event()
    line = MgrLine(lambda: mgr, on_late=lambda c: (late.append(c), heard.set()))
    with pytest.raises(MgrNoAnswer) as caught:
        line.send("pg stat", '{"prefix": "pg stat"}', b"", 0.05)
    assert [c.prefix for c in line.pending()] == ["pg stat"]
    with pytest.raises(MgrBusy):  # one per prefix: not sent again while the first is carried
        line.send("pg stat", '{"prefix": "pg stat"}', b"", 0.05)
    assert len(mgr.sent) == 1
    mgr.answer.set()
    assert heard.wait(10)
    assert late == [caught.value.carried] and late[0].result == (0, b"ok", "")
    assert line.pending() == []
    assert line.send("pg stat", '{"prefix": "pg stat"}', b"", 5) == (0, b"ok", "")


def test_an_answer_in_time_is_not_late() -> None:
    mgr = Mgr()
    mgr.answer.set()
    late: list[Carried] = []
    line = MgrLine(lambda: mgr, on_late=late.append)
    assert line.send("osd df", "{}", b"", 5) == (0, b"ok", "")
    assert late == [] and line.pending() == []


def test_closing_with_a_command_carried_shuts_down_and_refuses_more() -> None:
    mgr = Mgr()
    line = MgrLine(lambda: mgr)
    with pytest.raises(MgrNoAnswer):
        line.send("pg stat", "{}", b"", 0.05)
    line.close()
    assert mgr.shut  # a handle never shut down can crash librados' teardown at exit
    with pytest.raises(OSError):
        line.send("osd df", "{}", b"", 0.05)
    mgr.answer.set()


def test_closing_idle_shuts_the_handle_down() -> None:
    mgr = Mgr()
    mgr.answer.set()
    line = MgrLine(lambda: mgr)
    line.send("osd df", "{}", b"", 5)
    line.close()
    assert mgr.shut


def test_a_failed_connect_is_the_callers_error() -> None:
    def refuse() -> Any:
        raise OSError(111, "connection refused")
    line = MgrLine(refuse)
    with pytest.raises(OSError, match="refused"):
        line.send("pg stat", "{}", b"", 5)
    assert line.pending() == []
