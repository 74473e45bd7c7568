"""Fail-slow: which disk (or host) is slow. A few OSDs with abnormally high latency, not slow enough to be
marked down, slow every client: a write waits for its slowest replica.

An OSD is compared with its peers of the same device class (an HDD next to NVMe is not "slow"), frame by
frame, over a window of `osd perf` frames (commit and apply latency, ms, as the mgr reports them every
mgr_stats_period): the judgement and its rules are in failslow_judge.py, its sentences in failslow_words.py.
This module holds the shapes they share and reads what the cluster says.

Other sources agree or not, each optional: SLOW_OPS (which OSDs have ops blocked), OSD_SLOW_PING_TIME_BACK /
FRONT (heartbeat round trips over the mgr's threshold, 1 s by default, with both ends named),
BLUESTORE_SLOW_OP_ALERT and BLOCK/DB/WAL_DEVICE_STALLED_READ_ALERT (Reef 18.2.5+, Squid 19.2.1+, Tentacle 20;
said absent on older ones), and the heartbeat ping times themselves: `ceph tell mgr dump_osd_network MS` (the
mgr daemon's own command, over every OSD's reports, on Pacific, Reef and Tentacle) lists the OSD pairs whose
pings averaged at least MS. A ping is timed through both ends' messengers, so a slow OSD makes every pair it
is in slow and its peers one pair each: the OSD the slow pairs share is named (heartbeat_odd), a pair on its
own is a link. None of these makes a suspect on its own here (their own Doctor findings cover the checks);
they are named beside the suspects they agree with; heartbeats around an OSD that is not a suspect are a note
that says what its own latency does (failslow_words.heartbeat_note): only beside a normal latency do they point
at its host's network.

Measured on the 6-OSD sandbox (Pacific 16.2.15, bluestore on sparse files, 4 writer threads of 4 KiB
in-place writes; tests/fixtures/history/failslow_pacific.json): healthy, every OSD 1 ms in every frame;
osd.2's process in a cgroup with 2 ms CPU per 100 ms (tests/cluster/slowing.py), osd.2 57-99 ms in every
5 s frame from the first one the mgr reported after the throttle, its peers 1 ms; both OSDs of one host
throttled, 32-81 ms against 1 ms. (With 64 KiB whole-object rewrites instead, healthy OSDs said 2-6 ms and
the throttled one 54-86 ms: the same contrast.)

Standard library only; pure (the caller fetches): tested on frames recorded from real runs.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from statistics import median
from typing import Any

from cephtui.ceph.history.model import OsdFrame

MAD_SCALE = 1.4826  # MAD * this estimates the standard deviation of normal noise
# A heartbeat's 1-minute average this slow is odd. Measured (tests/fixtures/history/heartbeat_pacific.json): a
# healthy sandbox under load 0.6-1.6 ms, 2.4 ms at most under a rados bench; a throttled OSD's pairs 10-77 ms.
PING_SLOW_MS = 10.0
PING_MIN_PARTNERS = 2  # an OSD is odd when its pings are slow with at least this many peers


@dataclass(frozen=True)
class Place:
    """Where an OSD sits: its CRUSH host and device class ("" when the tree says none)."""
    host: str = ""
    device_class: str = ""


@dataclass(frozen=True)
class Window:
    """The frames judged: how long, how many, and where they came from (said with the result)."""
    seconds: float
    frames: int
    source: str  # "recorded history (…/history/<fsid>.sqlite)" / "sampled osd perf"

    def describe(self) -> str:
        span = f"{self.seconds / 60:.0f} min" if self.seconds >= 120 else f"{self.seconds:.0f} s"
        if self.source.startswith("sampled"):
            return f"sampled osd perf for {span}, {self.frames} frames (no recorded history)"
        return f"from {self.source}, last {span}, {self.frames} frames"


@dataclass(frozen=True)
class HeartbeatOdd:
    """An OSD at one end of slow heartbeat pings with several peers: `partners` OSDs, `median_ms` the median of
    those pairs' 1-minute averages."""
    partners: int
    median_ms: float

    def describe(self) -> str:
        return f"heartbeat pings ({self.median_ms:.0f} ms with {self.partners} peers)"


@dataclass(frozen=True)
class Signals:
    """What the health checks say per OSD, each source optional; `absent`: sources this release lacks."""
    slow_ops: frozenset[int] = frozenset()
    slow_ping: Mapping[int, float] = field(default_factory=dict)  # osd -> the longest ms it appears in
    bluestore_slow: frozenset[int] = frozenset()
    stalled_read: frozenset[int] = frozenset()
    absent: tuple[str, ...] = ()  # "BLUESTORE_SLOW_OP_ALERT (not before Reef 18.2.5 …)"
    heartbeat: Mapping[int, HeartbeatOdd] = field(default_factory=dict)  # from dump_osd_network, when read
    notes: tuple[str, ...] = ()  # what the heartbeats say beyond the suspects, or why they were not read

    def agreeing(self, osd: int) -> tuple[str, ...]:
        out = []
        if osd in self.slow_ops:
            out.append("SLOW_OPS")
        if osd in self.slow_ping:
            out.append("OSD_SLOW_PING_TIME")
        if osd in self.bluestore_slow:
            out.append("BLUESTORE_SLOW_OP_ALERT")
        if osd in self.stalled_read:
            out.append("STALLED_READ_ALERT")
        if osd in self.heartbeat:
            out.append(self.heartbeat[osd].describe())
        return tuple(out)


# How an OSD was judged (failslow_judge.py): against the other OSDs of its class, against only two of them,
# or against its own recorded past when its class has no more than one other OSD.
PEERS, FEW_PEERS, OWN_PAST = "peers", "few peers", "own past"


@dataclass(frozen=True)
class Episode:
    """A stretch in which an OSD was elevated: from its first elevated frame (`since`) to its last one
    (`last`), `until` the first normal frame after it (None: still elevated at the window's end). The medians
    are over its frames: the OSD's own latency and its yardstick's (the peers' median, or its own past)."""
    since: float
    last: float
    until: float | None
    median_ms: float
    yardstick_ms: float
    frames: int
    share: float  # elevated share of its frames
    z: float = 0.0  # the median of its frames' robust z

    @property
    def seconds(self) -> float:
        return self.last - self.since


@dataclass(frozen=True)
class OsdScore:
    """One OSD over the window. `suspect`: named (see failslow_judge.py); `state` says the same in a word:
    "suspect", "elevated" (elevated now, not yet for long enough), "cleared" (it was a suspect, and has been
    normal for CLEAR_SECONDS since), "normal"."""
    osd: int
    host: str
    device_class: str
    median_ms: float  # its own median latency over the judged frames
    peer_median_ms: float  # the median over those frames of its yardstick (peers' per-frame median, own past)
    z: float  # the median of its per-frame robust z
    elevated: float  # share of judged frames in which it was elevated, 0..1
    frames: int  # frames judged
    suspect: bool
    sources: tuple[str, ...] = ()  # "osd perf" and the health checks that name it too
    state: str = "normal"
    yardstick: str = PEERS  # PEERS, FEW_PEERS or OWN_PAST
    peers: int = 0  # peers of its class it was compared with (the median count over its frames)
    episode: Episode | None = None  # the latest stretch of elevated frames, if any
    window_rule: bool = False  # elevated in most of the whole window
    recent_rule: bool = False  # its latest episode has lasted long enough, whatever came before
    first: float = 0.0  # the time of its first judged frame


@dataclass(frozen=True)
class SlowHost:
    host: str
    osds: tuple[int, ...]
    device_classes: tuple[str, ...]


@dataclass(frozen=True)
class FailSlowReport:
    scores: tuple[OsdScore, ...]  # every judged OSD, suspects first, then by z
    hosts: tuple[SlowHost, ...]  # hosts all of whose OSDs are suspects
    window: Window
    notes: tuple[str, ...] = ()  # classes too small to judge, sources absent on this release …

    @property
    def cleared(self) -> tuple[OsdScore, ...]:
        """OSDs that were suspects in the window and have been normal again for a while."""
        return tuple(s for s in self.scores if s.state == "cleared")

    @property
    def suspects(self) -> tuple[OsdScore, ...]:
        return tuple(s for s in self.scores if s.suspect)

    @property
    def lone_suspects(self) -> tuple[OsdScore, ...]:
        """Suspects not explained by a slow host: the disks to look at themselves."""
        on_hosts = {o for h in self.hosts for o in h.osds}
        return tuple(s for s in self.suspects if s.osd not in on_hosts)


# ------------------------------------------------------------------ parsing what the cluster says

def frame_from_perf(t: float, perf: Any) -> OsdFrame:
    """`osd perf -f json` (Pacific on: {"osdstats": {"osd_perf_infos": […]}}; before: the list at the top)."""
    top = perf if isinstance(perf, dict) else {}
    infos = (top.get("osdstats") or top).get("osd_perf_infos") or []
    commit: dict[int, float] = {}
    apply: dict[int, float] = {}
    for info in infos:
        if not isinstance(info, dict) or not isinstance(info.get("id"), int):
            continue
        stats = info.get("perf_stats") or {}
        if isinstance(stats.get("commit_latency_ms"), (int, float)):
            commit[info["id"]] = float(stats["commit_latency_ms"])
        if isinstance(stats.get("apply_latency_ms"), (int, float)):
            apply[info["id"]] = float(stats["apply_latency_ms"])
    return OsdFrame(t=t, commit_ms=commit, apply_ms=apply)


def places_from_tree(tree: Any) -> dict[int, Place]:
    """`osd tree -f json`: each OSD's host (the host bucket that lists it) and device class."""
    nodes = [n for n in (tree.get("nodes") or [] if isinstance(tree, dict) else []) if isinstance(n, dict)]
    host_of: dict[int, str] = {}
    for n in nodes:
        if n.get("type") == "host":
            for c in n.get("children") or []:
                host_of[c] = str(n.get("name", ""))
    return {n["id"]: Place(host_of.get(n["id"], ""), str(n.get("device_class") or ""))
            for n in nodes if n.get("type") == "osd" and isinstance(n.get("id"), int)}


_OSD = re.compile(r"\bosd\.(\d+)\b")
_PING_MS = re.compile(r"([\d.]+)\s*msec")
STALLED_CODES = ("BLOCK_DEVICE_STALLED_READ_ALERT", "DB_DEVICE_STALLED_READ_ALERT", "WAL_DEVICE_STALLED_READ_ALERT")
PING_CODES = ("OSD_SLOW_PING_TIME_BACK", "OSD_SLOW_PING_TIME_FRONT")
BLUESTORE_ALERTS_SINCE = "Reef 18.2.5, Squid 19.2.1 and Tentacle 20"


def bluestore_alerts_exist(version: str) -> bool | None:
    """Whether a Ceph version raises BLUESTORE_SLOW_OP_ALERT and the STALLED_READ alerts (None: unknown)."""
    try:
        parts = tuple(int(p) for p in version.split("-")[0].split(".")[:3])
    except ValueError:
        return None
    if len(parts) < 3:
        return None
    return parts >= (20, 0, 0) or (19, 2, 1) <= parts or (18, 2, 5) <= parts < (19, 0, 0)


def signals_from_checks(checks: Iterable[Any], version: str = "") -> Signals:
    """The raised health checks (objects with code, summary, detail) as per-OSD signals.

    SLOW_OPS: the summary lists the daemons ("… daemons [osd.0,osd.3] have slow ops."), Reef's detail says
    "osd.3 has slow ops"; both read. The ping checks' detail: "Slow OSD heartbeats on back from osd.0 [...]
    to osd.1 [...] 1118.001 msec": both ends are named (which end is slow is not said), with the time."""
    slow_ops: set[int] = set()
    ping: dict[int, float] = {}
    bluestore: set[int] = set()
    stalled: set[int] = set()
    for c in checks:
        lines = [str(c.summary), *[str(d) for d in c.detail]]
        if c.code == "SLOW_OPS":
            slow_ops.update(int(x) for line in lines for x in _OSD.findall(line))
        elif c.code in PING_CODES:
            for line in c.detail:
                ms = _PING_MS.search(line)
                for x in _OSD.findall(line):
                    ping[int(x)] = max(ping.get(int(x), 0.0), float(ms.group(1)) if ms else 0.0)
        elif c.code == "BLUESTORE_SLOW_OP_ALERT":
            bluestore.update(int(x) for line in c.detail for x in _OSD.findall(line))
        elif c.code in STALLED_CODES:
            stalled.update(int(x) for line in c.detail for x in _OSD.findall(line))
    absent: tuple[str, ...] = ()
    if version and bluestore_alerts_exist(version) is False:
        absent = (f"BLUESTORE_SLOW_OP_ALERT and *_DEVICE_STALLED_READ_ALERT: not raised by Ceph {version} "
                  f"(since {BLUESTORE_ALERTS_SINCE})",)
    return Signals(frozenset(slow_ops), ping, frozenset(bluestore), frozenset(stalled), absent)


def slow_pairs(network: Any, threshold_ms: float = PING_SLOW_MS) -> dict[tuple[int, int], float]:
    """`dump_osd_network` (the mgr's or an OSD's): {(a, b): ms} for every OSD pair, a < b, whose heartbeat's
    1-minute average (else its last ping) is at least `threshold_ms` on either interface or direction; the
    largest one. Stale entries (no report for a while: the OSD is down or gone) are left out."""
    entries = network.get("entries") if isinstance(network, dict) else None
    out: dict[tuple[int, int], float] = {}
    for e in entries or ():
        if not isinstance(e, dict) or e.get("stale") is True:
            continue
        a, b = e.get("from osd"), e.get("to osd")
        if not isinstance(a, int) or not isinstance(b, int) or a == b:
            continue
        avg = e.get("average")
        ms = avg.get("1min") if isinstance(avg, dict) else None
        if not isinstance(ms, (int, float)):
            ms = e.get("last")
        if isinstance(ms, (int, float)) and ms >= threshold_ms:
            key = (min(a, b), max(a, b))
            out[key] = max(out.get(key, 0.0), float(ms))
    return out


def heartbeat_odd(pairs: Mapping[tuple[int, int], float]) -> tuple[dict[int, HeartbeatOdd], list[tuple[int, int]]]:
    """Which OSDs the slow pairs share: ({osd: HeartbeatOdd}, pairs no such OSD explains).

    A ping is timed by both ends' messengers, so a slow OSD (or its host's link) makes every pair it is in slow,
    and its peers each appear in one slow pair only: the OSD in the most slow pairs (with at least
    PING_MIN_PARTNERS peers) is taken, its pairs set aside, and again, until none is left that shares enough.
    What remains is a pair on its own: a link or a switch port between two hosts, not an OSD."""
    left = dict(pairs)
    odd: dict[int, HeartbeatOdd] = {}
    while left:
        partners: dict[int, list[float]] = {}
        for (a, b), ms in left.items():
            partners.setdefault(a, []).append(ms)
            partners.setdefault(b, []).append(ms)
        osd, values = max(partners.items(), key=lambda kv: (len(kv[1]), median(kv[1]), -kv[0]))
        if len(values) < PING_MIN_PARTNERS:
            break
        odd[osd] = HeartbeatOdd(len(values), median(values))
        left = {k: v for k, v in left.items() if osd not in k}
    return odd, sorted(left)


def with_heartbeats(signals: Signals, network: Any, threshold_ms: float = PING_SLOW_MS) -> Signals:
    """The signals with what `dump_osd_network` says (see heartbeat_odd)."""
    odd, lone = heartbeat_odd(slow_pairs(network, threshold_ms))
    notes = [f"heartbeat pings: osd.{a} - osd.{b} slow on their own (a link between them, not an OSD)"
             for a, b in lone[:5]]
    return replace(signals, heartbeat=odd, notes=(*signals.notes, *notes))


def latency(frame: OsdFrame) -> dict[int, float]:
    """The OSD's latency in a frame: the larger of commit and apply (BlueStore reports them equal; FileStore's
    apply is the slower one)."""
    out = dict(frame.commit_ms)
    for osd, ms in frame.apply_ms.items():
        out[osd] = max(out.get(osd, ms), ms)
    return out


def report_json(r: FailSlowReport) -> dict[str, Any]:
    """The report as plain JSON: for `cephtui doctor --json` and the soak script."""
    return {
        "window": {"seconds": round(r.window.seconds, 1), "frames": r.window.frames, "source": r.window.source},
        "suspects": [_score_json(s) for s in r.suspects],
        "hosts": [{"host": h.host, "osds": list(h.osds), "device_classes": list(h.device_classes)} for h in r.hosts],
        "ranking": [_score_json(s) for s in r.scores],
        "cleared": [_score_json(s) for s in r.cleared],
        "notes": list(r.notes),
    }


def _score_json(s: OsdScore) -> dict[str, Any]:
    return {"osd": s.osd, "host": s.host, "device_class": s.device_class, "median_ms": round(s.median_ms, 1),
            "peer_median_ms": round(s.peer_median_ms, 1), "z": round(s.z, 1), "elevated": round(s.elevated, 2),
            "frames": s.frames, "suspect": s.suspect, "sources": list(s.sources), "state": s.state,
            "yardstick": s.yardstick, "peers": s.peers, "window_rule": s.window_rule,
            "recent_rule": s.recent_rule,
            "episode": None if s.episode is None else _episode_json(s.episode)}


def _episode_json(e: Episode) -> dict[str, Any]:
    return {"since": round(e.since, 1), "last": round(e.last, 1),
            "until": None if e.until is None else round(e.until, 1), "seconds": round(e.seconds, 1),
            "median_ms": round(e.median_ms, 1), "yardstick_ms": round(e.yardstick_ms, 1), "frames": e.frames,
            "share": round(e.share, 2), "z": round(e.z, 1)}
