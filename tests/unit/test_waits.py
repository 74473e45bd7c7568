"""The tests' own wait helper: a state still forming is "not yet"; an assertion inside fails at once."""
from __future__ import annotations

import pytest

from tests.conftest import wait_until


def test_a_transient_lookup_is_not_yet() -> None:
    looks = iter([{}, {"addrvec": []}, {"addrvec": [{"addr": "127.0.0.1:6800"}]}])

    def port() -> int:
        (v2,) = next(looks)["addrvec"]  # KeyError, then ValueError, then the address
        return int(v2["addr"].rsplit(":", 1)[1])
    assert wait_until(port, 10, "the address", interval=0) == 6800


def test_the_timeout_names_the_last_transient_error() -> None:
    with pytest.raises(AssertionError, match="waiting for the address .*KeyError"):
        wait_until(lambda: {}["active_addrs"], 0.05, "the address", interval=0.01)


def test_an_assertion_in_the_condition_fails_at_once() -> None:
    calls = []

    def never() -> bool:
        calls.append(1)
        raise AssertionError("SLOW_OPS raised")
    with pytest.raises(AssertionError, match="SLOW_OPS"):
        wait_until(never, 10, "quiet")
    assert calls == [1]
