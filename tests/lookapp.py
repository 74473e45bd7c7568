"""The app on a replayed capture, no cluster: the `look_app` fixture, for tests/look's snapshots and for the
tests/ui modules that only look.

`look_app(release)` makes a CephTUI over a ReplayClient of that release's `look.json` (scripts/capture_look.py:
every command the app sent while its tabs and dialogs were walked on a real sandbox) that keeps every command it
is asked (`app.client.sent`); after each test the fixture fails if one of them is mutating by the cluster's own
command table, captured beside the answers. What would differ from run to run is pinned to the capture: the wall
clock stands at the capture's time (the status bar's "data 0s old", the Health log's "live since"), the poll's
duration is the clock's too, and the Bench tab's host panel shows the capture host's own sample.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from textual.widgets import Input, TextArea

from cephtui.ceph.bench import hoststats
from cephtui.ceph.commands import CommandTable
from cephtui.ceph.recording import ReplayClient
from cephtui.ui.app import CephTUI
from tests.releases import release_dirs

LOOK = {d.name: d / "look.json" for d in release_dirs() if (d / "look.json").is_file()}
RELEASES = sorted(LOOK, key=lambda name: [d.name for d in release_dirs()].index(name))
AUDIT_LOG = "/tmp/cephtui-look/audit.log"


@dataclass
class SentReplay(ReplayClient):
    """A ReplayClient that keeps what it was asked, in order: (target, prefix, args), and counts reaches for a
    librados handle."""

    sent: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    handle_asked: int = 0  # how often something reached for librados (I/O, the cluster log): refused here

    def raw(self, target: str, prefix: str, args: dict[str, Any]) -> bytes:
        self.sent.append((target, prefix, dict(args)))
        return super().raw(target, prefix, args)

    @property
    def handle(self) -> Any:
        self.handle_asked += 1
        return super().handle


def _load(release: str) -> tuple[dict[str, Any], dict[str, Any]]:
    data = json.loads(LOOK[release].read_text())
    return data["commands"], data["meta"]


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[float], None]]:
    """`freeze(t)`: time.time() answers t, and the functions that read the wall clock when given no time
    (localtime, gmtime, strftime) read t too, in UTC; monotonic time still runs (asyncio and Textual need it)."""
    real_localtime, real_gmtime, real_strftime = time.localtime, time.gmtime, time.strftime
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()

    def freeze(t: float) -> None:
        monkeypatch.setattr(time, "time", lambda: t)
        monkeypatch.setattr(time, "localtime", lambda secs=None: real_localtime(t if secs is None else secs))
        monkeypatch.setattr(time, "gmtime", lambda secs=None: real_gmtime(t if secs is None else secs))
        monkeypatch.setattr(time, "strftime", lambda fmt, tt=None: real_strftime(fmt, real_localtime(t)
                                                                                  if tt is None else tt))

    yield freeze
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def look_app(frozen_clock: Callable[[float], None],
             monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., CephTUI]]:
    """`look_app(release, **settings)`: the app on that release's look capture, clock and host pinned."""
    made: list[tuple[SentReplay, CommandTable]] = []

    def make(release: str = "pacific", **settings: Any) -> CephTUI:
        if release not in LOOK:
            pytest.skip(f"no look capture for {release} (scripts/capture_look.py)")
        commands, meta = _load(release)
        # The Activity tab names the audit log: one path for every run (nothing here writes to it).
        monkeypatch.setenv("CEPHTUI_AUDIT_LOG", AUDIT_LOG)
        frozen_clock(meta["taken_at"])
        # The poll's duration (status bar) from a clock that stands still while the snapshot is built.
        from cephtui.ceph.snapshot import builder
        monkeypatch.setattr(builder, "time", _StillMonotonic())
        # The same for the data-movement preview's "computed … in 0.07s" (the CRUSH editor's apply dialog).
        from cephtui.ceph import movement
        monkeypatch.setattr(movement, "time", _StillMonotonic())
        samples = [hoststats.HostSample(**{**s, "nics": tuple(hoststats.NicRate(**n) for n in s["nics"]),
                                           "per_core_percent": tuple(s["per_core_percent"]),
                                           "disks": tuple(s["disks"])}) for s in meta["host_samples"]]
        monkeypatch.setattr(hoststats.HostSampler, "sample", lambda self: samples[-1])
        # A steady text cursor: a blinking one is drawn or not by a half-second timer, so a screen taken on
        # a loaded machine showed it where the baseline had not (three dialog snapshots under load).
        monkeypatch.setattr(Input, "_toggle_cursor", _steady_input_cursor)
        monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
        client = SentReplay(commands, strict=False)
        made.append((client, CommandTable(meta["command_descriptions"])))
        return CephTUI(client, **{"refresh": 3600, "history": False, **settings})

    yield make
    for client, table in made:
        # By what the table says of each: a command this cluster does not know (Debian Reef's mgr runs no
        # Python modules, so `osd pool autoscale-status` is unknown there) was refused, not a write.
        wrote = sorted({prefix for _, prefix, _ in client.sent
                        if (info := table.get(prefix)) is not None and info.mutating})
        assert not wrote, f"a test that only looks sent mutating commands: {wrote}"


def _steady_input_cursor(self: Input) -> None:
    self._cursor_visible = True


class _StillMonotonic:
    """The `time` module as the snapshot builder and the movement preview see it in the look tier: the wall
    clock frozen by frozen_clock, a monotonic clock that stands still (a poll, a preview take 0 ms)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    @staticmethod
    def monotonic() -> float:
        return 0.0
