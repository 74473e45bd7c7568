"""The fail-slow judgement: which OSDs are far slower than their yardstick, since when, and which have
recovered. The shapes and the parsing of what the cluster says are in failslow.py; the sentences in
failslow_words.py.

Per frame, each OSD's latency x (the larger of commit and apply) is compared with a yardstick:
- PEERS (4 or more OSDs of its device class reported in the frame): the other OSDs' median m and MAD (median
  absolute deviation, scaled by 1.4826 so it estimates a standard deviation under normal noise); the robust
  z = (x - m) / max(1.4826 * MAD, SCALE_FLOOR_MS). The peers leave the OSD out, so one slow OSD cannot pull its
  own yardstick up (classes of more than LOO_MAX OSDs use the whole class's median and MAD: one OSD among
  that many barely moves either, and leaving each out in turn would cost a sort per OSD per frame).
- FEW_PEERS (3 OSDs: the other two): the same, and x must be RATIO_MIN times each of the two, so the two
  agree that it is the odd one (two peers that disagree give a wide MAD and a small z anyway).
- OWN_PAST (1 or 2 OSDs: no majority to ask): the OSD's own recorded values over the window, the quieter half
  of them (their median and MAD): a disk that turned slow is judged against what it was. A disk slow for more
  than half of the window becomes its own yardstick; said in the note beside such a class.
The frame is "elevated" for the OSD when z >= Z_MIN (3.5: Iglewicz and Hoaglin's cut-off for the modified
z-score) AND x >= ABS_FLOOR_MS (5 ms) AND x >= RATIO_MIN (2) times the yardstick. The floors keep a quiet
cluster quiet: there most OSDs say 0 or 1 ms, the MAD is 0, and 2 ms would otherwise be a huge z.

An OSD is named (a suspect) by either rule, both needing its median over the frames judged to be at least
ABS_FLOOR_MS and RATIO_MIN times its yardstick's:
- the recent one: its latest episode (from its last elevated frame back to the earliest elevated frame that
  keeps the stretch elevated in EPISODE_SHARE of its frames) has lasted RECENT_SECONDS, whatever came before:
  a disk that turns slow after a day of recording is named a minute later, not a day later;
- the window's: elevated in SUSTAINED (60 %) of the window's frames, over at least MIN_FRAMES of them (a
  short sampled window, `cephtui doctor --window 30`, is all recent: this is its rule).
One spike (a compaction, a scrub chunk, one flush) is neither. A suspect that has been normal for
CLEAR_SECONDS after its last elevated frame is "cleared", said with when, and no longer named; until then it
stays named (one normal frame in a slow stretch does not clear it).

The method finds a minority: if half a class is slow, the median is slow too. That is a whole-cluster problem,
and `osd perf` then shows every OSD high.

Hosts: when every OSD of a CRUSH host (at least two that reported) is a suspect, the host is reported instead
of its disks: one disk going bad is common, all disks of one host at once much less so than the host's own
network, controller or CPU.

Standard library only; pure (the caller fetches): tested on frames recorded from real runs
(tests/fixtures/history/failslow_*.json, timeline_*.json).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import median

from cephtui.ceph.history.failslow import (
    FEW_PEERS,
    MAD_SCALE,
    OWN_PAST,
    PEERS,
    Episode,
    FailSlowReport,
    OsdScore,
    Place,
    Signals,
    SlowHost,
    Window,
    latency,
)
from cephtui.ceph.history.failslow_words import class_note, cleared_note, heartbeat_note
from cephtui.ceph.history.model import OsdFrame

Z_MIN = 3.5  # modified z-score cut-off (Iglewicz & Hoaglin)
SCALE_FLOOR_MS = 1.0  # least spread: `osd perf` says whole milliseconds, and a quiet class has MAD 0
ABS_FLOOR_MS = 5.0  # below this nobody is slow, whatever the peers say
RATIO_MIN = 2.0  # and at least twice the yardstick
SUSTAINED = 0.6  # the window's rule: elevated in this share of the judged frames
MIN_FRAMES = 3  # judged frames needed before anyone is named (a 15 s window at the 5 s interval)
MIN_PEERS = 3  # peers in a frame for the PEERS yardstick; 2 is FEW_PEERS, fewer is OWN_PAST
RECENT_SECONDS = 60.0  # the recent rule: an episode this long is named, whatever came before
EPISODE_SHARE = 0.75  # an episode: elevated in this share of its frames (a normal frame inside does not end it)
CLEAR_SECONDS = 60.0  # normal this long after the last elevated frame: cleared
JITTER_SECONDS = 1.0  # samples land a little early or late: 59.4 s between frames 5 s apart counts as 60
OWN_PAST_MIN_FRAMES = 12  # the OWN_PAST yardstick needs a minute of the OSD's own values at the 5 s interval
LOO_MAX = 64  # classes up to this size leave each OSD out of its own yardstick


@dataclass(frozen=True)
class _Row:
    """One OSD in one frame."""
    t: float
    x: float  # its latency
    m: float  # its yardstick: the peers' median, or its own past
    z: float
    up: bool  # elevated
    yardstick: str
    peers: int


def _center_scale(values: Sequence[float]) -> tuple[float, float]:
    m = median(values)
    return m, max(MAD_SCALE * median(abs(v - m) for v in values), SCALE_FLOOR_MS)


def _own_past(values: Sequence[float]) -> tuple[float, float] | None:
    """The quieter half of an OSD's own values: (center, scale), or None with less than a minute of them."""
    if len(values) < OWN_PAST_MIN_FRAMES:
        return None
    return _center_scale(sorted(values)[:(len(values) + 1) // 2])


def _elevated(x: float, m: float, z: float) -> bool:
    return z >= Z_MIN and x >= ABS_FLOOR_MS and x >= RATIO_MIN * m


def _frame_rows(t: float, members: Mapping[int, float], past: Mapping[int, tuple[float, float] | None],
                out: dict[int, list[_Row]]) -> None:
    """Each OSD of one class in one frame, against the yardstick its class's size allows."""
    n = len(members)
    if n <= MIN_PEERS - 1:  # one other OSD or none: no majority, each against its own past
        for osd, x in members.items():
            own = past.get(osd)
            if own is not None:
                m, scale = own
                z = (x - m) / scale
                out.setdefault(osd, []).append(_Row(t, x, m, z, _elevated(x, m, z), OWN_PAST, n - 1))
        return
    whole = _center_scale(list(members.values())) if n > LOO_MAX else None
    for osd, x in members.items():
        if whole is None:
            peers = [v for o, v in members.items() if o != osd]
            m, scale = _center_scale(peers)
        else:
            peers, (m, scale) = [], whole
        z = (x - m) / scale
        up = _elevated(x, m, z)
        yard = PEERS
        if n == MIN_PEERS:  # two peers: both must agree that this one is the odd one
            yard = FEW_PEERS
            up = up and x >= RATIO_MIN * max(peers)
        out.setdefault(osd, []).append(_Row(t, x, m, z, up, yard, n - 1))


def _latest_episode(rows: Sequence[_Row]) -> Episode | None:
    """The latest episode of at least MIN_FRAMES frames: one or two elevated frames after it (a lone spike) do not
    end it anew, as one spike does not name anyone. CI saw it: a throttled OSD back to normal, one frame at 11 ms
    against its peers' 5 and 4 a minute later, and that spike became the latest episode, so the OSD was merely
    "normal", and the finding never said that it had cleared. Without a long one, the latest (a stretch starting
    now: "elevated")."""
    end, latest = len(rows), None
    while (found := _episode_before(rows, end)) is not None:
        onset, last = found
        ep = _episode(rows, onset, last)
        if ep.frames >= MIN_FRAMES:
            return ep
        latest = latest or ep
        end = onset
    return latest


def _episode_before(rows: Sequence[_Row], end: int) -> tuple[int, int] | None:
    """(onset, last) of the latest episode in rows[:end]: from its last elevated frame back to the earliest elevated
    one that keeps the stretch elevated in EPISODE_SHARE of its frames."""
    last = next((i for i in range(end - 1, -1, -1) if rows[i].up), None)
    if last is None:
        return None
    onset, count = last, 0
    for i in range(last, -1, -1):
        if rows[i].up:
            count += 1
            if count / (last - i + 1) >= EPISODE_SHARE:
                onset = i
    return onset, last


def _episode(rows: Sequence[_Row], onset: int, last: int) -> Episode:
    part = rows[onset:last + 1]
    return Episode(since=rows[onset].t, last=rows[last].t,
                   until=rows[last + 1].t if last + 1 < len(rows) else None,
                   median_ms=median(r.x for r in part), yardstick_ms=median(r.m for r in part), frames=len(part),
                   share=sum(r.up for r in part) / len(part), z=median(r.z for r in part))


def _far(own: float, yard: float) -> bool:
    return own >= ABS_FLOOR_MS and own >= RATIO_MIN * yard


def _score(osd: int, rows: Sequence[_Row], place: Place, signals: Signals) -> OsdScore:
    own, yard = median(r.x for r in rows), median(r.m for r in rows)
    share = sum(r.up for r in rows) / len(rows)
    window_rule = len(rows) >= MIN_FRAMES and share >= SUSTAINED and _far(own, yard)
    ep = _latest_episode(rows)
    recent_rule = (ep is not None and ep.seconds >= RECENT_SECONDS - JITTER_SECONDS and ep.frames >= MIN_FRAMES
                   and ep.share >= EPISODE_SHARE and _far(ep.median_ms, ep.yardstick_ms))
    normal_for = rows[-1].t - ep.until if ep is not None and ep.until is not None else 0.0
    if (window_rule or recent_rule) and normal_for >= CLEAR_SECONDS - JITTER_SECONDS:
        state = "cleared"
    elif window_rule or recent_rule:
        state = "suspect"
    elif ep is not None and ep.until is None:
        state = "elevated"
    else:
        state = "normal"
    yardstick = Counter(r.yardstick for r in rows).most_common(1)[0][0]
    suspect = state == "suspect"
    return OsdScore(osd=osd, host=place.host, device_class=place.device_class, median_ms=own, peer_median_ms=yard,
                    z=median(r.z for r in rows), elevated=share, frames=len(rows), suspect=suspect,
                    sources=("osd perf", *signals.agreeing(osd)) if suspect else (), state=state,
                    yardstick=yardstick, peers=int(median(r.peers for r in rows)), episode=ep,
                    window_rule=window_rule, recent_rule=recent_rule, first=rows[0].t)


def rank(frames: Sequence[OsdFrame], places: Mapping[int, Place], window: Window,
         signals: Signals | None = None) -> FailSlowReport:
    signals = signals or Signals()
    klass = {osd: p.device_class for osd, p in places.items()}
    lat = [(f.t, latency(f)) for f in frames]
    sizes: dict[str, int] = {}  # the most OSDs of each class that reported in one frame
    by_frame: list[tuple[float, dict[str, dict[int, float]]]] = []
    for t, values in lat:
        by_class: dict[str, dict[int, float]] = {}
        for osd, ms in values.items():
            by_class.setdefault(klass.get(osd, ""), {})[osd] = ms
        for cls, members in by_class.items():
            sizes[cls] = max(sizes.get(cls, 0), len(members))
        by_frame.append((t, by_class))
    small = {cls for cls, n in sizes.items() if n < MIN_PEERS}
    past: dict[int, tuple[float, float] | None] = {}
    if small:  # only the OSDs of classes that need it: a 5,000-OSD class never reads its own past
        series: dict[int, list[float]] = {}
        for _, by_class in by_frame:
            for cls in small:
                for osd, ms in by_class.get(cls, {}).items():
                    series.setdefault(osd, []).append(ms)
        past = {osd: _own_past(values) for osd, values in series.items()}
    per_osd: dict[int, list[_Row]] = {}
    for t, by_class in by_frame:
        for members in by_class.values():
            _frame_rows(t, members, past, per_osd)
    scores = [_score(osd, rows, places.get(osd, Place()), signals) for osd, rows in per_osd.items()]
    scores.sort(key=lambda s: (not s.suspect, -s.z, -s.median_ms, s.osd))
    by_osd = {s.osd: s for s in scores}
    notes = [cleared_note(s) for s in scores if s.state == "cleared"]  # first: the Doctor shows the first few
    notes += [*signals.absent, *signals.notes]
    for osd, hb in sorted(signals.heartbeat.items()):
        if osd not in by_osd or not by_osd[osd].suspect:  # a suspect's heartbeats are among its sources
            s = by_osd.get(osd)
            notes.append(heartbeat_note(osd, hb, s, far=s is not None and _far(s.median_ms, s.peer_median_ms)))
    for cls in sorted(sizes):
        judged = [s for s in scores if s.device_class == cls]
        note = class_note(cls, sizes[cls], judged, window, OWN_PAST_MIN_FRAMES)
        if note:
            notes.append(note)
    if not frames:
        notes.append("no osd perf frames in the window: nothing judged")
    return FailSlowReport(scores=tuple(scores), hosts=_slow_hosts(scores), window=window, notes=tuple(notes))


def _slow_hosts(scores: Sequence[OsdScore]) -> tuple[SlowHost, ...]:
    """Hosts where every OSD that reported latency (at least two) is a suspect."""
    by_host: dict[str, list[OsdScore]] = {}
    for s in scores:
        if s.host:
            by_host.setdefault(s.host, []).append(s)
    out = []
    for host, members in sorted(by_host.items()):
        if len(members) >= 2 and all(s.suspect for s in members):
            out.append(SlowHost(host, tuple(sorted(s.osd for s in members)),
                                tuple(sorted({s.device_class for s in members}))))
    return tuple(out)
