"""The fail-slow ranking as Doctor findings (CEPHTUI_SLOW_OSD, CEPHTUI_SLOW_HOST), and where its window comes
from: the recorded history when a recorder has been writing it, else `osd perf` sampled here for a short window.

Read-only: `osd perf` (a mgr command), `osd tree`, the mgr's `dump_osd_network` (heartbeat ping times, when the
caller gives a reader), and the health checks of a snapshot the caller has. The
next step it offers is measuring (the per-OSD bench, the latency history), never `osd out`: a slow host's
disks are usually fine, and a wrongly outed disk moves data onto the peers that were keeping up.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cephtui.ceph.bench.osdbench import cli as osd_bench_cli
from cephtui.ceph.cluster import Commands
from cephtui.ceph.doctor.model import Affected, Explanation, Finding, FixOffer
from cephtui.ceph.errors import CephError, CephMgrDown
from cephtui.ceph.history.failslow import (
    PING_SLOW_MS,
    FailSlowReport,
    Signals,
    Window,
    frame_from_perf,
    places_from_tree,
    signals_from_checks,
    with_heartbeats,
)
from cephtui.ceph.history.failslow_judge import rank
from cephtui.ceph.history.failslow_words import compared_with, score_line
from cephtui.ceph.history.model import INTERVAL, OsdFrame
from cephtui.ceph.snapshot.models import HealthCheck

SAMPLE_SECONDS = 30.0  # `cephtui doctor`'s own window when there is no recorded history (--window)
HISTORY_SECONDS = 900.0  # how much recorded history is judged when a recorder has been running
# A recorder writes every INTERVAL and the store keys a sample by the start of its interval (t // 5 * 5): a
# store whose last key is more than two intervals behind the end of that interval has no recorder now.
FRESH = 3 * INTERVAL
PEERS_TO_BENCH = 2  # healthy peers of the same class benched beside the suspects, for a yardstick


@dataclass(frozen=True)
class Gathered:
    report: FailSlowReport | None  # None: nothing could be judged (mgr down …): `note` says why
    note: str  # one line for the notes: where the window came from, or why there is none


def recorded_frames(data_dir: Path, fsid: str, want: float, now: float) -> tuple[list[OsdFrame], str, str]:
    """(frames, label, why-not) from the local history store, if a recorder wrote it within FRESH seconds and
    it covers at least `want` seconds; else ([], "", why)."""
    try:
        from cephtui.ceph.history.store import HistoryStore
    except ImportError:  # the store is not in this build yet
        return [], "", "no history store in this build"
    store = HistoryStore.open_existing(data_dir, fsid)
    if store is None:
        return [], "", "no recorded history"
    try:
        last = store.last_sample_at("osd")  # per-OSD values: a recorder with the mgr down writes none
        if last is None or now - last > FRESH:
            age = "never written" if last is None else f"last sample {now - last:.0f} s ago"
            return [], "", f"recorded history is not current ({age})"
        frames = store.osd_frames(now - max(HISTORY_SECONDS, want), now)
        label = f"recorded history ({getattr(store, 'path', data_dir)})"
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()
    if not frames or frames[-1].t - frames[0].t < want:
        return [], "", f"recorded history covers less than {want:.0f} s"
    return frames, label, ""


def sample_frames(client: Commands, seconds: float, sleep: Callable[[float], None] = time.sleep,
                  clock: Callable[[], float] = time.time) -> list[OsdFrame]:
    """`osd perf` every INTERVAL (the mgr's stats period: asking faster reads the same numbers again) for
    `seconds`, first frame at once. Raises CephError (CephMgrDown when the mgr is down)."""
    frames = [frame_from_perf(clock(), client.mgr("osd perf"))]
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        sleep(min(INTERVAL, max(0.0, seconds - (time.monotonic() - start))))
        frames.append(frame_from_perf(clock(), client.mgr("osd perf")))
    return frames


def gather(client: Commands, fsid: str, checks: Iterable[HealthCheck], version: str, data_dir: Path,
           seconds: float = SAMPLE_SECONDS, pings: Callable[[], Any] | None = None) -> Gathered:
    """The ranking over recorded history when there is current history, else over `seconds` sampled here.
    `pings`: the mgr's `dump_osd_network` (heartbeat_reader), read after the frames, so its 1-minute averages
    cover the end of the window."""
    now = time.time()
    frames, label, why_not = recorded_frames(data_dir, fsid, seconds, now)
    try:
        tree = client.mon("osd tree")
        if not frames:
            frames = sample_frames(client, seconds)
            label = "sampled osd perf"
    except CephMgrDown:
        # The snapshot's own notes already say how the mgr is down: one line here, not the same text twice.
        return Gathered(None, "fail-slow: not judged: osd perf is a mgr command and the mgr is down")
    except CephError as e:
        return Gathered(None, f"fail-slow: not judged: {e.message.strip() or f'errno {e.errno}'}")
    span = frames[-1].t - frames[0].t if frames else 0.0
    window = Window(seconds=span, frames=len(frames), source=label)
    report = rank(frames, places_from_tree(tree), window, heartbeat_signals(signals_from_checks(checks, version),
                                                                            pings))
    note = f"fail-slow: {window.describe()}"
    if label.startswith("sampled") and why_not:
        note = f"fail-slow: sampled osd perf for {span:.0f} s, {len(frames)} frames ({why_not})"
    return Gathered(report, note)


def heartbeat_reader(client: Any) -> Callable[[], Any]:
    """`ceph tell mgr dump_osd_network PING_SLOW_MS`: the pairs the mgr has seen at least that slow (the
    threshold keeps the answer small on a big cluster, where every pair would be hundreds of thousands of
    entries). A command of the mgr daemon itself, sent to it by name on the client's mgr line after the mon's
    `mgr stat` names an active one (CephClient.tell_mgr): a dead mgr is a note, never a wait at the mon.
    Everything happens when called (a recording cannot tell: said then)."""
    return lambda: client.tell_mgr("dump_osd_network", value=int(PING_SLOW_MS))


def heartbeat_signals(signals: Signals, pings: Callable[[], Any] | None) -> Signals:
    """The signals with the heartbeats' word, or a note saying why there is none."""
    if pings is None:
        return signals
    try:
        network = pings()
    except Exception as e:  # no active mgr, an old release, a refusal: the ranking stands without it
        why = (getattr(e, "message", "") or str(e) or type(e).__name__).strip().splitlines()[0]
        why = why.split(";")[0][:120]  # the first clause: "no answer from the mgr within 5s", "mgr down: …"
        return replace(signals, notes=(*signals.notes, f"heartbeat pings: not read ({why})"))
    return with_heartbeats(signals, network)


# ------------------------------------------------------------------ findings

def _lookup(code: str) -> Explanation | None:
    from cephtui.ceph.doctor.catalog import lookup
    return lookup(code)


def _bench_offers(suspects: Sequence[int], report: FailSlowReport) -> tuple[FixOffer, ...]:
    """The per-OSD bench on the suspects and a couple of healthy peers of their class (a yardstick measured
    the same way, one at a time), and the latency history: the next step before anyone marks an OSD out."""
    classes = {s.device_class for s in report.scores if s.osd in suspects}
    peers = [s.osd for s in reversed(report.scores) if not s.suspect and s.device_class in classes]
    targets = [*suspects, *peers[:PEERS_TO_BENCH]]
    bench = "; ".join(osd_bench_cli(o) for o in targets)
    names = ", ".join(f"osd.{o}" for o in targets)
    return (FixOffer("osd_bench", f"Bench {names} one at a time (the Bench tab's per-OSD bench), before any "
                                  "`osd out`", bench, tuple(str(o) for o in targets)),
            FixOffer("osd_perf_history", "Watch the latency: osd perf now, and its recorded history",
                     "ceph osd perf", tuple(str(o) for o in suspects)))


def findings(report: FailSlowReport, lookup: Callable[[str], Explanation | None] = _lookup) -> list[Finding]:
    out: list[Finding] = []
    window = f"window: {report.window.describe()}"
    for host in report.hosts:
        scores = [s for s in report.suspects if s.osd in host.osds]
        check = HealthCheck(code="CEPHTUI_SLOW_HOST", severity="HEALTH_WARN",
                            summary=f"host {host.host}: all {len(host.osds)} OSDs far slower than "
                                    f"{compared_with(scores)} (look at its network, controller and CPU before "
                                    "its disks)",
                            count=len(host.osds))
        out.append(Finding(check=check, explanation=lookup(check.code),
                           affected=Affected(osds=host.osds, hosts=(host.host,)),
                           context=(*(score_line(s) for s in scores), window),
                           fixes=_bench_offers(host.osds, report)))
    lone = report.lone_suspects
    if lone:
        ids = tuple(s.osd for s in lone)
        names = ", ".join(f"osd.{i}" for i in ids[:10]) + (" …" if len(ids) > 10 else "")
        check = HealthCheck(code="CEPHTUI_SLOW_OSD", severity="HEALTH_WARN",
                            summary=f"{len(ids)} OSD{'s' if len(ids) > 1 else ''} far slower than "
                                    f"{compared_with(lone)}: {names}",
                            count=len(ids))
        hosts = tuple(dict.fromkeys(s.host for s in lone if s.host))
        out.append(Finding(check=check, explanation=lookup(check.code), affected=Affected(osds=ids, hosts=hosts),
                           context=(*(score_line(s) for s in lone), window), fixes=_bench_offers(ids, report)))
    return out

