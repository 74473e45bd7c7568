"""The latency probe: 4 KiB, one op in flight, random writes then random reads, held against the network.

What a VM with cache=none feels is the latency of one small op at a time; the IOPS it allows is 1/latency.
The probe measures it in both directions and sets it against the floor of this cluster's network
(netfloor.py): a replicated write needs at least two round trips (this host to the primary and back, the
primary to its replicas and back) plus one disk commit; a read one round trip plus a read.

Where the rest goes is split with what the OSDs count themselves, read before and after each direction
(`ceph tell osd.N perf dump` of the OSDs serving the pool, at most PERF_OSDS of them): the primary's time per
op (osd.op_w_latency / op_r_latency, from the request's arrival to its reply), the replicas' (subop_w_latency)
and BlueStore's commit (bluestore.commit_lat). What is outside the OSDs' time is this host's: the network and
the client library. The counters include other clients' ops of those seconds: the words say "about".

The kind of run is not this module's business: `run_one(params) -> BenchResult` runs one direction (a RADOS
run through service.BenchRun, a block run through the block engine), and a ProbePlan says which params. The
words are pure functions of a ProbeResult, unit-tested on numbers captured from a sandbox.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.bench.engine import BenchSession
from cephtui.ceph.bench.history import BenchHistory
from cephtui.ceph.bench.netfloor import measure_floor
from cephtui.ceph.bench.params import BenchError, BenchParams
from cephtui.ceph.bench.probe_result import (
    Direction,
    OsdTimes,
    PoolShape,
    ProbeResult,
)
from cephtui.ceph.bench.removal import cleanup_run
from cephtui.ceph.bench.results import BenchResult, Sample
from cephtui.ceph.bench.service import BenchRun
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.coerce import as_dict, as_float, as_int, as_str

PROBE_SECONDS = 10.0
PROBE_OP_SIZE = 4096
PERF_OSDS = 8  # OSDs whose counters are read around each direction: two `perf dump`s each
# (logger, counter) pairs the words use; a release without one simply leaves that part out
COUNTERS = (("osd", "op_w_latency"), ("osd", "op_r_latency"), ("osd", "subop_w_latency"),
            ("bluestore", "commit_lat"))


# ---- what the probe runs
@dataclass(frozen=True)
class ProbePlan:
    kind: str  # "rados" or "rbd"
    pool: str
    write: Any  # BenchParams or BlockParams
    read: Any
    target: str = ""  # in words: "pool rbd", "image vm-disk-1 in pool rbd"
    finish: Callable[[], str] | None = None  # removes what the write left for the read; says what it did


def probe_run_name(pid: int | None = None) -> str:
    """The probe's RADOS run name: its objects and metadata are its own, never another run's."""
    return f"cephtui_latency_probe_{pid or os.getpid()}"


def rados_plan(pool: str, seconds: float = PROBE_SECONDS, op_timeout: float = 30.0,
               finish: Callable[[str], str] | None = None) -> ProbePlan:
    """RADOS: random 4 KiB writes (kept: the reads need objects), random reads of them, then `finish(run_name)`
    removes them (`rados -p POOL cleanup --run-name NAME`)."""
    name = probe_run_name()
    write = BenchParams(pool=pool, mode="write", seconds=seconds, threads=1, op_size=PROBE_OP_SIZE, run_name=name,
                        cleanup=False, op_timeout=op_timeout)
    read = BenchParams(pool=pool, mode="rand", seconds=seconds, threads=1, op_size=PROBE_OP_SIZE, run_name=name,
                       op_timeout=op_timeout)
    return ProbePlan("rados", pool, write, read, f"pool {pool}",
                     (lambda: finish(name)) if finish is not None else None)


def block_plan(make: Callable[..., Any], pool: str, seconds: float = PROBE_SECONDS, target: str = "") -> ProbePlan:
    """Block: `make(**fields)` builds a BlockParams for the image (e.g. functools.partial(BlockParams, pool=P,
    image=I, cache="off")); random 4 KiB writes, then random 4 KiB reads, one in flight. Then:

        LatencyProbe(client, plan, run_one, cache="off", stop_run=...)

    with `run_one(params) -> BenchResult` running one block run. Both directions must use the same image,
    so a temporary one is created before the probe and removed after it (not per run): reads of a fresh
    image find no objects and never reach a disk."""
    common = {"io_pattern": "rand", "io_threads": 1, "io_size": PROBE_OP_SIZE, "seconds": seconds}
    return ProbePlan("rbd", pool, make(io_type="write", **common), make(io_type="read", **common),
                     target or f"an image in pool {pool}")


# ---- the OSDs' counters
def counters(dump: Any) -> dict[tuple[str, str], tuple[int, float]]:
    """(avgcount, sum) of COUNTERS in one `perf dump`."""
    out: dict[tuple[str, str], tuple[int, float]] = {}
    for logger, name in COUNTERS:
        c = as_dict(as_dict(as_dict(dump).get(logger)).get(name))
        if "avgcount" in c:
            out[(logger, name)] = (as_int(c.get("avgcount")), as_float(c.get("sum")))
    return out


def osd_times(before: dict[int, Any], after: dict[int, Any], write: bool) -> OsdTimes:
    """Mean seconds per op over the OSDs read both times, from the counters' differences (pure)."""
    def mean(key: tuple[str, str]) -> tuple[float, int]:
        n, total = 0, 0.0
        for osd in set(before) & set(after):
            b, a = before[osd].get(key), after[osd].get(key)
            if a and b and a[0] >= b[0]:  # an OSD restarted in between counts from zero: skipped
                n += a[0] - b[0]
                total += a[1] - b[1]
        return (total / n if n else 0.0), n
    primary, ops = mean(("osd", "op_w_latency" if write else "op_r_latency"))
    replica = mean(("osd", "subop_w_latency"))[0] if write else 0.0
    commit = mean(("bluestore", "commit_lat"))[0] if write else 0.0
    return OsdTimes(primary, replica, commit, ops, len(set(before) & set(after)))


def read_counters(tell: Callable[[int], Any], osds: Sequence[int]) -> tuple[dict[int, Any], str]:
    """Each OSD's counters (those that answer) and, when some did not, why."""
    out: dict[int, Any] = {}
    why = ""
    for osd in osds:
        try:
            out[osd] = counters(tell(osd))
        except Exception as e:
            why = why or f"osd.{osd} did not give its counters ({(getattr(e, 'message', '') or str(e))[:100]})"
    return out, why


def pool_shape(dump: Any, pool: str, profile: Callable[[str], Any] | None = None) -> PoolShape:
    """Replicas, or k+m of an erasure-coded pool (its profile asked through `profile(name)`)."""
    for p in as_dict(dump).get("pools") or ():
        if not isinstance(p, dict) or p.get("pool_name") != pool:
            continue
        size, min_size = as_int(p.get("size")), as_int(p.get("min_size"))
        if as_int(p.get("type")) != 3:  # pg_pool_t::TYPE_ERASURE
            return PoolShape(size, min_size)
        name = as_str(p.get("erasure_code_profile"))
        k, m = 0, 0
        if profile is not None and name:
            try:
                prof = as_dict(profile(name))
                k, m = as_int(prof.get("k")), as_int(prof.get("m"))
            except Exception:
                pass
        return PoolShape(size, min_size, True, k or max(0, size - 1), m or (1 if not k else size - k), name)
    return PoolShape()


# ---- the run
class LatencyProbe:
    """One probe: `run()` from a worker thread (never the UI's), `stop()` from anywhere.

    `on_phase(text)` is called before each step ("measuring the network's floor", "random writes", ...);
    `run_one(params)` runs one direction and returns its BenchResult (BenchError when it could not start)."""

    def __init__(self, client: Cluster, plan: ProbePlan, run_one: Callable[[Any], BenchResult], *,
                 on_phase: Callable[[str], None] | None = None, stop_run: Callable[[], None] | None = None,
                 cache: str = "") -> None:
        self.client = client
        self.plan = plan
        self.run_one = run_one
        self.on_phase = on_phase
        self.stop_run = stop_run
        self.cache = cache
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()
        if self.stop_run is not None:
            self.stop_run()

    def _phase(self, text: str) -> None:
        if self.on_phase is not None:
            self.on_phase(text)

    def _tell_perf(self, osd: int) -> Any:
        return self.client.osd_tell(osd, "perf dump")

    def run(self) -> ProbeResult:
        plan, client = self.plan, self.client
        if client.read_only:  # the engine writes through its own handle: refuse here
            raise BenchError("read-only mode: the latency probe writes (then reads and removes what it wrote)")
        dump = client.mon("osd dump")
        shape = pool_shape(dump, plan.pool, lambda name: client.mon("osd erasure-code-profile get", name=name))
        self._phase("measuring the network's floor")
        # The heartbeat pings come from the mgr daemon by name, on the client's mgr line (CephClient.tell_mgr): a
        # dead mgr is a note on the floor, never a wait at the mon, nor a librados timeout whose late answer
        # would complete freed memory in this process. Threshold 0: every pair.
        floor = measure_floor(client.mon, plan.pool, tell_mgr=lambda prefix: client.tell_mgr(prefix, value=0),
                              dump=dump)
        osds = list(floor.serving[:PERF_OSDS])
        perf_note = "" if osds else "the OSDs' counters were not read (no OSD serves the pool)"
        if len(floor.serving) > PERF_OSDS:
            perf_note = f"the OSDs' counters are those of {PERF_OSDS} of the {len(floor.serving)} OSDs serving the pool"
        results: list[BenchResult] = []
        finish_note = ""
        read: Direction | None = None
        osd_w = osd_r = OsdTimes()
        try:
            before, why0 = read_counters(self._tell_perf, osds)
            self._phase("random 4 KiB writes, one in flight")
            w = self.run_one(plan.write)
            results.append(w)
            middle, why1 = read_counters(self._tell_perf, osds)
            osd_w = osd_times(before, middle, write=True)
            write = Direction.of("write", w)
            if w.ok and w.ops and not self._stop.is_set():
                self._phase("random 4 KiB reads, one in flight")
                r = self.run_one(plan.read)
                results.append(r)
                after, why2 = read_counters(self._tell_perf, osds)
                osd_r = osd_times(middle, after, write=False)
                read = Direction.of("read", r)
            else:
                why2 = ""
            perf_note = "; ".join(n for n in (perf_note, why0 or why1 or why2) if n)
        finally:
            if plan.finish is not None:
                self._phase("removing the probe's objects")
                try:
                    finish_note = plan.finish()
                except (BenchError, Exception) as e:
                    finish_note = f"the probe's objects were not removed: {e}"
        return ProbeResult(plan.kind, plan.target, shape, floor, write, read, osd_w, osd_r, perf_note, finish_note,
                           self.cache, tuple(results))


class ProbeRunner:
    """`run_one` for either kind: each direction through service.BenchRun (audit log, history), like any run.
    `run_options` go to every BenchRun (a block probe's confirmed image and read-only mode)."""

    def __init__(self, client: Any, audit: ops.AuditLog, history: BenchHistory | None = None, *,
                 on_step: Callable[[str, ops.Operation], None] | None = None,
                 on_start: Callable[[Any], None] | None = None,
                 on_sample: Callable[[Sample], None] | None = None, **run_options: Any) -> None:
        self.client, self.audit, self.history = client, audit, history
        self.on_step, self.on_start, self.on_sample = on_step, on_start, on_sample
        self.run_options = run_options
        self.problems: list[str] = []  # what the runs said beside their results (history not saved, ...)
        self._current: BenchRun | None = None
        self._stopped = False

    def __call__(self, params: Any, history: bool = True) -> BenchResult:
        """One run; `history=False` keeps it out of the history (a block probe filling its image)."""
        if self._stopped:
            raise BenchError("stopped")
        run = BenchRun(self.client, params, self.audit, history=self.history if history else None,
                       on_step=self.on_step, on_start=self.on_start, on_sample=self.on_sample, **self.run_options)
        self._current = run
        outcome = run.run()
        self.problems += outcome.problems
        if outcome.result is None:
            raise BenchError(outcome.failure or "the run did not start")
        return outcome.result

    def stop(self) -> None:
        self._stopped = True
        if self._current is not None:
            self._current.stop()


def rados_cleanup(client: Any, audit: ops.AuditLog, pool: str, op_timeout: float = 30.0,
                  on_step: Callable[[str, ops.Operation], None] | None = None) -> Callable[[str], str]:
    """`finish` for a RADOS probe: `rados -p POOL cleanup --run-name NAME`, shown (on_step) and audited; what it
    did, in words."""
    def finish(run_name: str) -> str:
        cli = f"rados -p {pool} cleanup --run-name {run_name}"
        op = ops.Operation(title=f"Remove the latency probe's objects from pool {pool}", prefix="rados cleanup",
                           args=(("pool", pool), ("run_name", run_name)), cli=cli)
        if on_step is not None:
            on_step("removing the probe's objects", op)
        session = BenchSession(client.spec, pool, op_timeout)
        try:
            removed, failed = cleanup_run(session.io, run_name, threads=16, op_timeout=op_timeout)
        except BenchError as e:
            audit.record(op, False, str(e))
            return f"the probe's objects were not removed ({e}): run `{cli}`"
        finally:
            session.close()
        audit.record(op, not failed, f"Removed {removed} objects" + (f", {failed} failed" if failed else ""))
        if failed:
            return f"{failed} of the probe's objects were not removed: run `{cli}`"
        return f"the probe's {removed} objects were removed (`{cli}`)"
    return finish


def rados_probe(client: Any, pool: str, audit: ops.AuditLog, history: BenchHistory | None = None, *,
                seconds: float = PROBE_SECONDS, op_timeout: float = 30.0,
                on_phase: Callable[[str], None] | None = None,
                on_step: Callable[[str, ops.Operation], None] | None = None,
                on_start: Callable[[Any], None] | None = None,
                on_sample: Callable[[Sample], None] | None = None) -> tuple[LatencyProbe, ProbeRunner]:
    """A RADOS latency probe of `pool`, ready to `run()` from a worker thread; the callbacks are the BenchRun's
    (each direction is one run, in the audit log and the history) plus `on_phase` for the probe's own steps."""
    runner = ProbeRunner(client, audit, history, on_step=on_step, on_start=on_start, on_sample=on_sample)
    plan = rados_plan(pool, seconds, op_timeout, rados_cleanup(client, audit, pool, op_timeout, on_step))
    return LatencyProbe(client, plan, runner, on_phase=on_phase, stop_run=runner.stop), runner
