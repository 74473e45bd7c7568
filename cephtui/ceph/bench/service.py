"""One bench run with everything around it, for `cephtui bench` and the Bench tab alike.

Around the engine (engine.run_bench, in a worker process by remote.run_remote): a write run on a
full cluster is refused before anything is created; a temporary size-1 pool is created before the run and deleted after
it whatever happens; the run goes to the audit log and the history. The two callers only
show the steps (callbacks) and the outcome.

Two rules they used to disagree on:
- the temporary pool's PG count comes from `osd stat` when the plan is made, the cluster's
  word at that moment, not a snapshot a poll old (`cephtui bench` has none, the tab's may be
  seconds behind an OSD marked out);
- once the temporary pool is deleted, a cleanup note that says to run `rados cleanup` on it
  says instead that its objects went with it.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.bench.diagnosis import write_refusal
from cephtui.ceph.bench.history import BenchHistory
from cephtui.ceph.bench.params import BenchError, BenchParams
from cephtui.ceph.bench.pool import (
    bench_operation,
    explain_temp_pool_refusal,
    temp_pool_create_ops,
    temp_pool_delete_op,
    temp_pool_pg_num,
)
from cephtui.ceph.bench.remote import EngineHandle, run_remote
from cephtui.ceph.bench.results import BenchResult, Sample, summary_line
from cephtui.ceph.client import CephError
from cephtui.ceph.ops import Operation
from cephtui.ceph.snapshot.parse import parse_osd_stat

log = logging.getLogger("cephtui")

CREATING, CONNECTING, DELETING = "creating the temporary pool", "connecting", "deleting the temporary pool"


def plan_operations(params: BenchParams, temp: bool, pg_num: int) -> list[Operation]:
    """What a run amounts to, in order, as the commands an admin would type."""
    plan: list[Operation] = []
    if temp:
        plan += temp_pool_create_ops(params.pool, pg_num)
    plan.append(bench_operation(params))
    if temp:
        plan.append(temp_pool_delete_op(params.pool))
    return plan


def went_with_the_pool(result: BenchResult) -> BenchResult:
    """The result once its temporary pool is deleted: objects the run left went with it, so a note telling
    to remove them with `rados cleanup` (kept for reads, skipped after an error, removes that failed) is
    replaced; one saying what cleanup removed stays true."""
    pool = result.params.pool
    if result.cleanup_note and f"rados -p {pool} cleanup" in result.cleanup_note:
        return replace(result, cleanup_note=f"the temporary pool {pool} was deleted with its objects")
    return result


@dataclass(frozen=True)
class RunOutcome:
    result: BenchResult | None = None  # None: the run never started (refused, no pool, cannot connect)
    problems: tuple[str, ...] = ()  # for the operator, in order: why it did not start, a pool left behind, ...

    @property
    def failure(self) -> str:
        return " ".join(self.problems)


class BenchRun:
    """One run: `plan()` says what it will do, `run()` does it from a worker thread, `stop()` from anywhere.

    `on_step(phase, op)` is called before each step: the temporary pool's commands and the benchmark
    itself (op is its audit entry, with its `rados bench` equivalent)."""

    def __init__(self, client: Any, params: BenchParams, audit: ops.AuditLog, *, temp: bool = False,
                 history: BenchHistory | None = None, on_step: Callable[[str, Operation], None] | None = None,
                 on_start: Callable[[EngineHandle], None] | None = None,
                 on_sample: Callable[[Sample], None] | None = None) -> None:
        self.client = client  # a CephClient: the mon commands go through it, the bench opens its own handle
        self.params = params
        self.audit = audit
        self.temp = temp
        self.history = history
        self.on_step = on_step
        self.on_start = on_start
        self.on_sample = on_sample
        self.engine: EngineHandle | None = None
        self._pg_num = 0
        self._stop = threading.Event()

    def pg_num(self) -> int:
        """The temporary pool's PG count: `osd stat` asked once, so the run creates what the plan showed."""
        if not self._pg_num:
            self._pg_num = temp_pool_pg_num(parse_osd_stat(self.client.mon("osd stat")).in_)
        return self._pg_num

    def plan(self) -> list[Operation]:
        """What `run()` does. Asks the cluster for a temporary pool's size (CephError when it cannot)."""
        return plan_operations(self.params, self.temp, self.pg_num() if self.temp else 0)

    def stop(self) -> None:
        """Stop the engine (partial results), or the run before it starts; the temporary pool still goes."""
        self._stop.set()
        engine = self.engine
        if engine is not None:
            engine.stop()

    def run(self) -> RunOutcome:
        p = self.params
        problems: list[str] = []
        result: BenchResult | None = None
        created = False
        try:
            if self.temp:
                if p.mode != "write":
                    raise BenchError("a temporary pool is empty: reads need a write first, in a pool that stays")
                refusal = write_refusal(self.client.mon("osd dump"), None)  # a new pool maps PGs to full OSDs too
                if refusal:
                    raise BenchError(refusal)
                created = True  # from the first command on, part of the pool may exist: delete it whatever happens
                self._create_temp()
            if self._stop.is_set():
                raise BenchError("stopped before the run started")
            self._step(CONNECTING, bench_operation(p))
            # In a worker process (bench/worker.py): the engine never shares the UI's interpreter
            result = run_remote(self.client.spec, p, on_start=self._started, on_sample=self.on_sample)
        except BenchError as e:
            problems.append(str(e))
        except CephError as e:
            problems.append(e.message)
        finally:
            if created:
                note = self._delete_temp()
                if note:
                    problems.append(note)
                elif result is not None:
                    result = went_with_the_pool(result)
        if result is None:
            return RunOutcome(None, tuple(problems))
        return RunOutcome(*self._keep(result, problems))

    # ---- steps
    def _step(self, phase: str, op: Operation) -> None:
        if self.on_step is not None:
            self.on_step(phase, op)

    def _started(self, engine: EngineHandle) -> None:
        self.engine = engine
        if self._stop.is_set():  # stopped while connecting
            engine.stop()
        if self.on_start is not None:
            self.on_start(engine)

    def _create_temp(self) -> None:
        """Create the temporary pool; BenchError with the monitor's refusal, and what to do, if it would not."""
        for op in temp_pool_create_ops(self.params.pool, self.pg_num()):
            self._step(CREATING, op)
            try:
                ops.run(self.client, op, self.audit)
            except CephError as e:
                hint = explain_temp_pool_refusal(e.message) or ""
                raise BenchError(f"`{op.cli}` refused: {e.message} {hint}".strip()) from None

    def _delete_temp(self) -> str:
        """Delete the temporary pool; what went wrong, and what to do, if it is still there."""
        op = temp_pool_delete_op(self.params.pool)
        try:
            self._step(DELETING, op)
        except Exception:  # a caller that can no longer show it (the app quitting) must not keep the pool
            log.exception("bench: on_step failed before deleting the temporary pool")
        try:
            ops.run(self.client, op, self.audit)
        except CephError as e:
            if e.errno == 2:  # ENOENT: it was never created
                return ""
            return f"The temporary pool {self.params.pool} was not deleted: {e.message}. " + (
                explain_temp_pool_refusal(e.message) or "")
        return ""

    def _keep(self, result: BenchResult, problems: list[str]) -> tuple[BenchResult, tuple[str, ...]]:
        """The run in the audit log and the history, with the cluster's id when its own handle could not say."""
        if not result.cluster:
            try:
                result = replace(result, cluster=self.client.fsid())
            except Exception:  # not connected: the run stays without a cluster id
                pass
        self.audit.record(bench_operation(self.params), result.ok, result.error or summary_line(result))
        if self.history is not None:
            try:
                self.history.append(result)
            except OSError as e:
                problems.append(f"could not save the run to the history: {e}")
        return result, tuple(problems)
