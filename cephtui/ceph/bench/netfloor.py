"""The floor of this cluster's network, from this host, at this moment: what no op can beat.

Two measurements, both of the network and not of OSD work:
- this host to each OSD serving the pool: the time of a TCP handshake to the OSD's public address
  (osd dump's public_addrs, msgr2 first). The kernel answers the SYN, so the OSD's threads, queues and
  disks are not in it; the connection is closed at once, before any Ceph banner is read.
- OSD to OSD: the OSDs' own heartbeat ping times on the back (cluster) network, the primary-to-replica
  leg of a replicated write, from `ceph tell mgr dump_osd_network 0` (the mgr daemon's own command,
  served over the network since Octopus; it holds every OSD's report; the command is in Pacific's,
  Reef's and Tentacle's OSD.cc). A ping passes through both OSDs' messengers, so it is above the wire's
  time; the floor takes the smaller of it and this host's handshake (NetFloor.replica_leg). An OSD
  reports pings only after its first minute, so a young cluster has none: the words say so.

At most MAX_OSDS OSDs are probed, a few samples each, in parallel, each connect bounded by a timeout:
a dead address costs one timeout, never a hang. Traffic goes only to the addresses in the osdmap.
"""
from __future__ import annotations

import socket
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_float, as_int

MAX_OSDS = 32  # a probe of a few seconds touches most OSDs of a big pool: their median is as good
SAMPLES = 5  # handshakes per OSD: the minimum filters a scheduler hiccup on either side
CONNECT_TIMEOUT = 0.5  # a LAN handshake takes well under a millisecond; a dead address costs this once


@dataclass(frozen=True)
class OsdAddress:
    osd: int
    host: str
    port: int


@dataclass(frozen=True)
class Reach:
    """Handshake times (seconds) to one OSD; empty when it did not answer."""

    address: OsdAddress
    rtts: tuple[float, ...] = ()
    error: str = ""

    @property
    def best(self) -> float:
        return min(self.rtts) if self.rtts else 0.0


@dataclass(frozen=True)
class NetFloor:
    """The network's floor for one op on a pool: round trips in seconds (0: not measured)."""

    client_rtt: float = 0.0  # median over the OSDs probed of each OSD's best handshake
    client_rtt_min: float = 0.0
    client_rtt_max: float = 0.0
    osds_probed: int = 0
    osds_answered: int = 0
    osds_serving: int = 0  # OSDs in the pool's acting sets (only the first MAX_OSDS are probed)
    replica_rtt: float = 0.0  # OSD to OSD, back network: median of the heartbeat pings' 1-minute averages
    replica_rtt_min: float = 0.0  # ... and the fastest ping of the last minute, over all those pairs
    replica_pairs: int = 0  # how many OSD pairs that median is over
    unreachable: tuple[int, ...] = ()  # OSDs that did not answer a handshake within the timeout
    serving: tuple[int, ...] = ()  # the OSDs serving the pool, the most used first (all, not only those probed)
    down: tuple[int, ...] = ()  # serving OSDs the osdmap has down: nothing to probe
    note: str = ""  # what could not be measured, in words

    @property
    def measured(self) -> bool:
        return self.osds_answered > 0

    @property
    def replica_leg(self) -> float:
        """The primary-to-replica round trip's floor: the smaller of this host's handshake and the OSDs' fastest
        heartbeat ping. A ping passes through two messengers, so it bounds the wire from above; this host's
        handshake is the wire of the same LAN, unless this host sits further away (a laptop on Wi-Fi), where
        the pings are the better bound."""
        known = [v for v in (self.client_rtt, self.replica_rtt_min) if v > 0]
        return min(known) if known else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"client_rtt": self.client_rtt, "client_rtt_min": self.client_rtt_min,
                "client_rtt_max": self.client_rtt_max, "osds_probed": self.osds_probed,
                "osds_answered": self.osds_answered, "osds_serving": self.osds_serving,
                "replica_rtt": self.replica_rtt, "replica_rtt_min": self.replica_rtt_min,
                "replica_leg": self.replica_leg, "replica_pairs": self.replica_pairs,
                "unreachable": list(self.unreachable), "down": list(self.down), "note": self.note}


# ---- pure: what the cluster's JSON says
def pool_id(dump: Any, pool: str) -> int | None:
    """The pool's id in an `osd dump`, None when there is no such pool."""
    for p in (dump or {}).get("pools") or ():
        if isinstance(p, dict) and p.get("pool_name") == pool:
            return as_int(p.get("pool"))
    return None


def serving_osds(pg_stats: Any) -> list[int]:
    """The OSDs in the acting sets of `pg ls-by-pool`'s PGs, the most used first (primaries count twice:
    every op of theirs goes through them)."""
    stats = pg_stats.get("pg_stats") if isinstance(pg_stats, dict) else pg_stats
    weight: dict[int, int] = {}
    for pg in stats or ():
        if not isinstance(pg, dict):
            continue
        for osd in pg.get("acting") or ():
            if isinstance(osd, int) and 0 <= osd < 0x7fffffff:
                weight[osd] = weight.get(osd, 0) + 1
        primary = pg.get("acting_primary")
        if isinstance(primary, int) and primary in weight:
            weight[primary] += 1
    return sorted(weight, key=lambda o: (-weight[o], o))


def public_addresses(dump: Any, osds: Iterable[int]) -> list[OsdAddress]:
    """Each up OSD's public address from an `osd dump`, msgr2 first (what a client of today connects to)."""
    by_id = {as_int(o.get("osd")): o for o in (dump or {}).get("osds") or () if isinstance(o, dict)}
    out: list[OsdAddress] = []
    for osd in osds:
        o = by_id.get(osd)
        if not o or not o.get("up"):
            continue
        vec = [a for a in ((o.get("public_addrs") or {}).get("addrvec") or ()) if isinstance(a, dict)]
        vec.sort(key=lambda a: 0 if a.get("type") == "v2" else 1)
        for a in vec:
            parsed = split_addr(str(a.get("addr", "")))
            if parsed:
                out.append(OsdAddress(osd, *parsed))
                break
    return out


def split_addr(addr: str) -> tuple[str, int] | None:
    """('10.0.0.1', 6800) from '10.0.0.1:6800' or '[fd00::1]:6800'; None for anything else."""
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        return None
    host = host.strip("[]")
    if not host or host in ("0.0.0.0", "::"):
        return None
    return host, int(port)


def heartbeat_pings(network: Any, osds: Iterable[int] | None = None) -> list[tuple[float, float]]:
    """(typical, best) back-network ping times in seconds, one per OSD pair among `osds` (None: all), from
    `dump_osd_network 0`: the 1-minute average (else the last ping) and the 1-minute minimum. Front-network
    pings are left out: a replica's copy travels on the back one. A heartbeat passes through both OSDs'
    messengers, so even the best is above the wire's own round trip (0.2-0.3 ms against a 0.015 ms
    handshake on loopback, measured on the sandbox)."""
    entries = network.get("entries") if isinstance(network, dict) else None
    among = None if osds is None else set(osds)
    out: list[tuple[float, float]] = []
    for e in entries or ():
        if not isinstance(e, dict) or e.get("interface", "back") != "back":
            continue
        if among is not None and (e.get("from osd") not in among or e.get("to osd") not in among):
            continue
        avg = as_float(as_dict(e.get("average")).get("1min")) or as_float(e.get("last"))
        best = as_float(as_dict(e.get("min")).get("1min")) or avg
        if avg > 0:
            out.append((avg / 1000.0, best / 1000.0))
    return out


def summarise(reaches: Sequence[Reach], serving: Sequence[int], pings: Sequence[tuple[float, float]],
              notes: Sequence[str] = (), down: Sequence[int] = (), cap: int = MAX_OSDS) -> NetFloor:
    """The floor from the handshakes and heartbeat pings (pure). `down`: serving OSDs the osdmap has down
    (the PG map lags it by a few seconds), which have no address to probe."""
    best = sorted(r.best for r in reaches if r.rtts)
    unreachable = tuple(r.address.osd for r in reaches if not r.rtts)
    words = list(notes)
    if down:
        words.append(f"{_osds(down)} {'is' if len(down) == 1 else 'are'} down in the osdmap: not probed")
    if len(serving) > cap:
        words.append(f"probed the first {cap} of the {len(serving)} OSDs serving the pool, the most used")
    if unreachable:
        words.append(f"no handshake within {CONNECT_TIMEOUT:g} s from {_osds(unreachable)}")
    if not pings:
        words.append("the OSDs report no heartbeat ping times yet (they do after a minute of pings): "
                     "this host's round trip stands in for the primary-to-replica one")
    typical = [p[0] for p in pings]
    return NetFloor(
        client_rtt=statistics.median(best) if best else 0.0, client_rtt_min=best[0] if best else 0.0,
        client_rtt_max=best[-1] if best else 0.0, osds_probed=len(reaches), osds_answered=len(best),
        osds_serving=len(serving), replica_rtt=statistics.median(typical) if typical else 0.0,
        replica_rtt_min=min(p[1] for p in pings) if pings else 0.0, replica_pairs=len(pings),
        unreachable=unreachable, serving=tuple(serving), down=tuple(down), note="; ".join(words))


def _osds(ids: Sequence[int]) -> str:
    return ", ".join(f"osd.{o}" for o in ids[:8]) + ("…" if len(ids) > 8 else "")


# ---- measuring
def handshake(address: OsdAddress, samples: int = SAMPLES, timeout: float = CONNECT_TIMEOUT) -> Reach:
    """`samples` TCP handshakes to one OSD, each closed at once; the first failure ends it (a dead address
    costs one timeout)."""
    family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
    rtts: list[float] = []
    for _ in range(samples):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            t0 = time.perf_counter()
            s.connect((address.host, address.port))
            rtts.append(time.perf_counter() - t0)
        except OSError as e:
            return Reach(address, tuple(rtts), str(e) or type(e).__name__)
        finally:
            s.close()
    return Reach(address, tuple(rtts))


def handshakes(addresses: Sequence[OsdAddress], samples: int = SAMPLES, timeout: float = CONNECT_TIMEOUT,
               parallel: int = 8) -> list[Reach]:
    """Every address, a few at a time: bounded by about len/parallel x samples x timeout."""
    if not addresses:
        return []
    with ThreadPoolExecutor(max_workers=min(parallel, len(addresses)), thread_name_prefix="netfloor") as pool:
        return list(pool.map(lambda a: handshake(a, samples, timeout), addresses))


def measure_floor(ask: Callable[..., Any], pool: str, *, max_osds: int = MAX_OSDS,
                  tell_mgr: Callable[[str], Any] | None = None, dump: Any = None) -> NetFloor:
    """The floor for `pool`, now. `ask(prefix, **args)` is a mon/mgr command returning parsed JSON (CephClient.mon
    does it); `tell_mgr(prefix)` a `ceph tell mgr` returning parsed JSON, or None to skip the heartbeat pings.
    Call it from a worker thread: it takes a fraction of a second, up to a second or two with dead OSDs."""
    notes: list[str] = []
    dump = dump if dump is not None else ask("osd dump")
    pid = pool_id(dump, pool)
    osds: list[int] = []
    if pid is not None:
        try:
            osds = serving_osds(ask("pg ls-by-pool", poolstr=pool))
        except Exception as e:  # the mgr does not answer: the up OSDs will do
            notes.append(f"no PG map ({_short(e)}): probed the up OSDs instead")
    if not osds:
        osds = [as_int(o.get("osd")) for o in dump.get("osds") or () if isinstance(o, dict) and o.get("up")]
    addresses = public_addresses(dump, osds[:max_osds])
    down = [o for o in osds[:max_osds] if o not in {a.osd for a in addresses}]
    pings: list[tuple[float, float]] = []
    if tell_mgr is not None:
        try:
            pings = heartbeat_pings(tell_mgr("dump_osd_network"), osds[:max_osds])
        except Exception as e:
            notes.append(f"no heartbeat ping times ({_short(e)})")
    return summarise(handshakes(addresses), osds, pings, notes, down, max_osds)


def _short(e: Exception) -> str:
    return (getattr(e, "message", "") or str(e) or type(e).__name__).splitlines()[0][:120]
