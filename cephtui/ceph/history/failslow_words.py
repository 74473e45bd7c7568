"""The sentences of the fail-slow judgement, each made from the figures it sits beside (an OsdScore, its
Episode, a heartbeat reading), so that a word can never say what the numbers do not: an OSD whose latency is
elevated is never called normal, and heartbeats around it agree with it rather than point at the network.

Standard library only; pure.
"""
from __future__ import annotations

import time
from collections.abc import Sequence

from cephtui.ceph.history.failslow import FEW_PEERS, OWN_PAST, HeartbeatOdd, OsdScore, Window


def clock(t: float) -> str:
    """A moment as the cluster log says it: the local time of day."""
    return time.strftime("%H:%M:%S", time.localtime(t))


def duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 120:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min" + (f" {rest} s" if rest and minutes < 10 else "")
    return f"{minutes // 60} h {minutes % 60} min"


def yardstick(s: OsdScore) -> str:
    """What the OSD was compared with."""
    if s.yardstick == OWN_PAST:
        return "its own recorded past"
    peers = f"its {s.peers} peer{'s' if s.peers != 1 else ''}"
    return f"{peers}, both agreeing" if s.yardstick == FEW_PEERS else peers


def versus(own: float, yard: float, s: OsdScore) -> str:
    """'136 ms median against 2 ms for its 3 peers, 68×' (the ratio only when the yardstick says 1 ms or more:
    `osd perf` has whole milliseconds, so 0 ms would make any ratio infinite)."""
    ratio = f", {own / yard:.0f}×" if yard >= 1.0 else ""
    return f"{own:.0f} ms median against {yard:.0f} ms for {yardstick(s)}{ratio}"


def score_line(s: OsdScore) -> str:
    """One suspect's line in its finding: since when, how far above its yardstick, by which rule."""
    where = f"osd.{s.osd} (host {s.host or '?'}, class {s.device_class or 'none'})"
    agree = [x for x in s.sources if x != "osd perf"]
    tail = f"; {', '.join(agree)} name it too" if agree else ""
    ep = s.episode
    if s.recent_rule and ep is not None:
        since = (f"since {clock(ep.since)} ({duration(ep.last - ep.since)})" if ep.since > s.first
                 else f"since before {clock(ep.since)}, the window's start ({duration(ep.last - ep.since)})")
        return (f"{where}: commit/apply {versus(ep.median_ms, ep.yardstick_ms, s)}, {since}; elevated in "
                f"{ep.share:.0%} of its {ep.frames} frames since then, robust z {ep.z:.1f}{tail}")
    return (f"{where}: commit/apply {versus(s.median_ms, s.peer_median_ms, s)}, over the window; robust z "
            f"{s.z:.1f}, elevated in {s.elevated:.0%} of {s.frames} frames{tail}")


def compared_with(scores: Sequence[OsdScore]) -> str:
    """What a finding's OSDs were found slower than, in its summary."""
    kinds = {s.yardstick == OWN_PAST for s in scores}
    if kinds == {True}:
        return "their own recorded past" if len(scores) > 1 else "its own recorded past"
    if kinds == {False}:
        return "peers of the same class"
    return "peers of the same class or their own recorded past"


def cleared_note(s: OsdScore) -> str:
    ep = s.episode
    assert ep is not None and ep.until is not None, "a cleared OSD has an episode that ended"
    return (f"osd.{s.osd} was slow from {clock(ep.since)} to {clock(ep.until)} ({duration(ep.until - ep.since)}): "
            f"{versus(ep.median_ms, ep.yardstick_ms, s)}; normal since {clock(ep.until)}: cleared")


def heartbeat_note(osd: int, hb: HeartbeatOdd, s: OsdScore | None, far: bool = False) -> str:
    """Heartbeat pings slow around an OSD that is not a suspect: what its own latency says beside them.
    `far`: its median over the window is past the floors against its yardstick (elevated at times)."""
    pings = f"{hb.describe().capitalize()} around osd.{osd}"
    if s is None:
        return (f"{pings}, whose osd perf latency was not judged (see its device class below): its host's network "
                "or its disk")
    ep = s.episode
    if s.state == "elevated" and ep is not None:
        return (f"{pings} agree with its latency, elevated since {clock(ep.since)} "
                f"({duration(ep.last - ep.since)}; {versus(ep.median_ms, ep.yardstick_ms, s)}): named once that "
                "has lasted a minute")
    if s.state == "cleared" and ep is not None and ep.until is not None:
        return (f"{pings}, whose latency was elevated until {clock(ep.until)} and is normal since (pings are "
                "1-minute averages: they lag)")
    if far:
        return (f"{pings} agree with its latency, elevated at times ({versus(s.median_ms, s.peer_median_ms, s)}"
                f"; elevated in {s.elevated:.0%} of {s.frames} frames) but not for long enough to name it")
    return (f"{pings}, whose osd perf latency is normal ({versus(s.median_ms, s.peer_median_ms, s)}): "
            "look at its host's network")


def class_note(cls: str, size: int, judged: Sequence[OsdScore], window: Window, own_past_frames: int) -> str:
    """Which yardstick a small device class was judged with, or why it was not; '' for a class of 4 or more."""
    name = f"device class {cls or '(none)'}"
    if size >= 4:
        return ""
    if size == 3:
        return (f"{name}: 3 OSDs, each judged against the other two (few peers: one is named only when both "
                "agree that it is the odd one)")
    osds = f"{size} OSD{'s' if size != 1 else ''}"
    if any(s.yardstick == OWN_PAST for s in judged):
        return (f"{name}: {osds}, too few to judge against each other: each judged against its own recorded past "
                f"(the quieter half of this window, {window.frames} frames); a disk slow for more than half of "
                "it would pass as normal")
    return (f"{name}: {osds}, too few to judge against each other, and fewer than {own_past_frames} frames of "
            "their own latency to judge them against their past: not judged")
