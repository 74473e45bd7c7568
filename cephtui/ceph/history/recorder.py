"""The recorder: every INTERVAL seconds, ask the cluster what it is doing and write it to the history.

The same loop runs headless (`cephtui record`, for a service or a cron job while nobody has the UI open)
and in the UI's own thread. It asks five cheap things: `status` and `log last` (mon), `osd perf` and
`osd pool stats` (mgr), and `osd df` (mgr) once a minute, since usage moves slowly and `osd df` is the
heavy one at 5,000 OSDs. A mgr that is down is not asked (the client's mgr gate): the sample keeps what the
mon said, so the history shows the gap in the per-OSD series, not a frozen recorder.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cephtui.ceph.cluster import Commands
from cephtui.ceph.coerce import as_dict, as_float, as_str, dicts
from cephtui.ceph.errors import CephError
from cephtui.ceph.history.model import INTERVAL, PG_STATE_PREFIX, OsdFrame, Sample
from cephtui.ceph.history.store import HistoryError, HistoryStore
from cephtui.ceph.snapshot.osdtree import latency_from_json, usage_from_json
from cephtui.ceph.snapshot.parse import (
    parse_health,
    parse_io,
    parse_log,
    parse_osd_stat,
    parse_pgs_by_state,
    parse_recovery,
)

log = logging.getLogger("cephtui")

DF_EVERY = 60.0  # seconds between two `osd df`
LOG_LAST = 100  # `log last N` per sample: more than a busy cluster logs in INTERVAL seconds
# info and up, every channel: the cluster's changes and the audit channel's "who ran what" (`osd set noout`
# from client.admin), not the mgr's pgmap line every 2 s at debug (43,000 a day, nothing a timeline needs).
LOG_LEVEL = "info"


def cluster_values(status: Any) -> dict[str, float]:
    """`status` as the cluster series (model.CLUSTER_METRICS and pg_state:*)."""
    status = as_dict(status)
    pgmap = status.get("pgmap")
    io, rec, pgs = parse_io(pgmap), parse_recovery(pgmap), parse_pgs_by_state(pgmap)
    osds = parse_osd_stat(status.get("osdmap"))
    out: dict[str, float] = {
        "read_bps": io.read_bps, "write_bps": io.write_bps, "read_ops": io.read_ops, "write_ops": io.write_ops,
        "recovering_bps": io.recovering_bps, "recovering_objects_ps": io.recovering_objects_ps,
        "degraded_objects": rec.degraded_objects, "misplaced_objects": rec.misplaced_objects,
        "unfound_objects": rec.unfound_objects, "pgs": pgs.num_pgs,
        "pgs_active_clean": sum(s.count for s in pgs.by_state if s.state == "active+clean"),
        "osds": osds.total, "osds_up": osds.up, "osds_in": osds.in_,
    }
    for s in pgs.by_state:
        out[PG_STATE_PREFIX + s.state] = s.count
    return out


def pool_values(stats: Any) -> dict[str, dict[str, float]]:
    """`osd pool stats`: each pool's client IO (a field is absent when it is zero)."""
    out = {}
    for p in dicts(stats):
        io = as_dict(p.get("client_io_rate"))
        out[as_str(p.get("pool_name"))] = {
            "read_bps": as_float(io.get("read_bytes_sec")), "write_bps": as_float(io.get("write_bytes_sec")),
            "read_ops": as_float(io.get("read_op_per_sec")), "write_ops": as_float(io.get("write_op_per_sec"))}
    return out


@dataclass
class Recorder:
    client: Commands
    _used: dict[int, float] = field(default_factory=dict)
    _df_at: float = -1e9
    _log_seen: set[tuple[str, int, str]] = field(default_factory=set)

    def take(self) -> Sample:
        """One sample. Raises CephError only when the mon does not answer `status`."""
        status = as_dict(self.client.mon("status"))
        health = parse_health(status.get("health"))
        checks = {c.code: (c.severity, c.summary) for c in health.checks}
        entries: tuple[tuple[str, str, int, str, str, str], ...] = ()
        try:
            fresh = [e for e in parse_log(self.client.mon("log last", num=LOG_LAST, level=LOG_LEVEL, channel="*"))
                     if (e.name, e.seq, e.stamp) not in self._log_seen]
            self._log_seen.update((e.name, e.seq, e.stamp) for e in fresh)
            if len(self._log_seen) > 20 * LOG_LAST:
                self._log_seen = {(e.name, e.seq, e.stamp) for e in fresh}
            entries = tuple((e.stamp, e.name, e.seq, e.channel, e.priority, e.message) for e in fresh)
        except CephError:
            pass  # a key without `log` caps: the history keeps no log, the rest stands
        frame: OsdFrame | None = None
        pools: dict[str, dict[str, float]] = {}
        try:
            lat = latency_from_json(self.client.mgr("osd perf"))
            now = time.monotonic()
            if now - self._df_at >= DF_EVERY:
                self._df_at = now
                self._used = {i: u.utilization / 100 for i, u in usage_from_json(self.client.mgr("osd df")).items()}
            frame = OsdFrame(t=time.time(), commit_ms={i: float(c) for i, (c, _) in lat.items()},
                             apply_ms={i: float(a) for i, (_, a) in lat.items()}, used=dict(self._used))
            pools = pool_values(self.client.mgr("osd pool stats"))
        except CephError:
            pass  # the mgr is down or slow: the mon's part of the sample stands
        return Sample(t=time.time(), fsid=as_str(status.get("fsid")), cluster=cluster_values(status), osd=frame,
                      pools=pools, checks=checks, log=entries)


def run(client: Commands, store_for: Callable[[str], HistoryStore], stop: threading.Event,
        on_sample: Callable[[Sample, bool], None] = lambda s, new: None,
        on_error: Callable[[str], None] = lambda why: None, interval: float = INTERVAL) -> None:
    """Record until `stop` is set, at each INTERVAL boundary of the wall clock (so two recorders ask at the
    same moments and the second finds its bucket taken). An error is said once and retried next interval."""
    recorder = Recorder(client)
    stores: dict[str, HistoryStore] = {}
    said = ""
    while not stop.is_set():
        why = ""
        try:
            sample = recorder.take()
            store = stores.get(sample.fsid) or stores.setdefault(sample.fsid, store_for(sample.fsid))
            on_sample(sample, store.write(sample))
        except CephError as e:
            why = f"{e.prefix}: {e.message}" if e.prefix else e.message
        except HistoryError as e:
            why = f"history not written: {e}"
        if why != said:
            said = why
            on_error(why)
        now = time.time()
        stop.wait(interval - now % interval + 0.2)  # just past the boundary: the mgr's rates have moved by then
    for store in stores.values():
        store.close()
