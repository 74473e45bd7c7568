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
from cephtui.ceph.bench.blockparams import BlockParams
from cephtui.ceph.bench.diagnosis import write_refusal
from cephtui.ceph.bench.history import BenchHistory
from cephtui.ceph.bench.image import (
    Leftover,
    Watcher,
    block_bench_operation,
    confirmation_refusal,
    create_image,
    find_leftovers,
    image_create_op,
    image_remove_op,
    remove_image,
    temp_image_name,
    watched_refusal,
    watchers,
)
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
from cephtui.ceph.errors import CephError
from cephtui.ceph.images.model import ImageRef
from cephtui.ceph.images.reader import read_image
from cephtui.ceph.ops import Operation
from cephtui.ceph.snapshot.parse import parse_osd_stat

log = logging.getLogger("cephtui")

CREATING, CONNECTING, DELETING = "creating the temporary pool", "connecting", "deleting the temporary pool"
CREATING_IMAGE, REMOVING_IMAGE = "creating the temporary image", "removing the temporary image"


def plan_operations(params: BenchParams | BlockParams, temp: bool, pg_num: int) -> list[Operation]:
    """What a run amounts to, in order, as the commands an admin would type."""
    if isinstance(params, BlockParams):
        return plan_block_operations(params)
    plan: list[Operation] = []
    if temp:
        plan += temp_pool_create_ops(params.pool, pg_num)
    plan.append(bench_operation(params))
    if temp:
        plan.append(temp_pool_delete_op(params.pool))
    return plan


def plan_block_operations(params: BlockParams, image: str = "") -> list[Operation]:
    """A block run: a temporary image created and removed around it, when it has one."""
    if not params.temporary:
        return [block_bench_operation(params)]
    name = image or params.image or temp_image_name()
    return [image_create_op(params.pool, name, params.temp_image_size), block_bench_operation(params, name),
            image_remove_op(params.pool, name)]


def went_with_the_pool(result: BenchResult) -> BenchResult:
    """The result once its temporary pool is deleted: objects the run left went with it, so a note telling
    to remove them with `rados cleanup` (kept for reads, skipped after an error, removes that failed) is
    replaced; one saying what cleanup removed stays true."""
    pool = result.params.pool
    if result.cleanup_note and f"rados -p {pool} cleanup" in result.cleanup_note:
        return replace(result, cleanup_note=f"the temporary pool {pool} was deleted with its objects")
    return result


def find_temp_leftovers(spec: Any, pool: str) -> list[Leftover]:
    """Temporary images that killed runs left in `pool` (BenchError when the pool or rbd is missing)."""
    from cephtui.ceph.bench import rbdengine

    session = rbdengine.BlockSession(spec, pool)
    try:
        return find_leftovers(session.io, rbdengine.rbd)
    finally:
        session.close()


def remove_temp_leftovers(spec: Any, pool: str, audit: ops.AuditLog,
                          on_step: Callable[[Operation], None] | None = None) -> tuple[list[str], list[str]]:
    """Remove the leftovers that nobody watches any more, each audited as `rbd rm`: (removed, problems),
    a problem being a leftover still watched (a killed run's watch outlives it by up to 30 s) or refused."""
    from cephtui.ceph.bench import rbdengine

    session = rbdengine.BlockSession(spec, pool)
    removed: list[str] = []
    problems: list[str] = []
    try:
        for left in find_leftovers(session.io, rbdengine.rbd):
            if not left.removable:
                problems.append(left.describe())
                continue
            op = image_remove_op(pool, left.name)
            if on_step is not None:
                on_step(op)
            why = remove_image(session.io, rbdengine.rbd, left.name)
            audit.record(op, not why, why or f"removed {pool}/{left.name}, left by a killed run")
            (problems if why else removed).append(why or f"{pool}/{left.name}")
    finally:
        session.close()
    return removed, problems


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

    def __init__(self, client: Any, params: BenchParams | BlockParams, audit: ops.AuditLog, *, temp: bool = False,
                 history: BenchHistory | None = None, on_step: Callable[[str, Operation], None] | None = None,
                 on_start: Callable[[EngineHandle], None] | None = None,
                 on_sample: Callable[[Sample], None] | None = None, confirmed_image: str = "",
                 read_only: bool = False) -> None:
        self.client = client  # a CephClient: the mon commands go through it, the bench opens its own handle
        self.params = params
        self.audit = audit
        self.temp = temp
        self.history = history
        self.on_step = on_step
        self.on_start = on_start
        self.on_sample = on_sample
        self.engine: EngineHandle | None = None  # the engine's proxy (its own process), rados or block
        # Block runs: a write to an existing image needs its name typed again; read-only mode refuses writes.
        self.confirmed_image = confirmed_image
        self.read_only = read_only
        self.temp_image = ""  # the temporary image's name, once chosen
        self._pg_num = 0
        self._stop = threading.Event()

    def pg_num(self) -> int:
        """The temporary pool's PG count: `osd stat` asked once, so the run creates what the plan showed."""
        if not self._pg_num:
            self._pg_num = temp_pool_pg_num(parse_osd_stat(self.client.mon("osd stat")).in_)
        return self._pg_num

    def plan(self) -> list[Operation]:
        """What `run()` does. Asks the cluster for a temporary pool's size (CephError when it cannot); a write to an
        existing image is refused here already while a client watches it (BenchError), and again at the run."""
        if isinstance(self.params, BlockParams):
            p = self.params
            if p.writes and p.image and not p.temporary:
                try:
                    seen = read_image(self.client.handle, ImageRef(p.pool, p.image), du="none").watchers
                except Exception:  # not readable now: the run's own check says why
                    seen = ()
                refusal = watched_refusal(p.pool, p.image, [Watcher(w.address, w.client_id) for w in seen])
                if refusal:
                    raise BenchError(refusal)
            return plan_block_operations(self.params, self._temp_image())
        return plan_operations(self.params, self.temp, self.pg_num() if self.temp else 0)

    def _temp_image(self) -> str:
        if isinstance(self.params, BlockParams) and self.params.temporary and not self.temp_image:
            self.temp_image = self.params.image or temp_image_name()
        return self.temp_image

    def stop(self) -> None:
        """Stop the engine (partial results), or the run before it starts; the temporary pool still goes."""
        self._stop.set()
        engine = self.engine
        if engine is not None:
            engine.stop()

    def run(self) -> RunOutcome:
        if isinstance(self.params, BlockParams):
            return self._run_block(self.params)
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
            result = self._launch(p, bench_operation(p))
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

    def _run_block(self, p: BlockParams) -> RunOutcome:
        """A block run: checks, the temporary image around it (removed whatever happens), audit, history."""
        from cephtui.ceph.bench import rbdengine

        problems: list[str] = []
        result: BenchResult | None = None
        session: rbdengine.BlockSession | None = None
        created = ""
        try:
            refusal = confirmation_refusal(p, self.read_only, self.confirmed_image)
            if refusal:
                raise BenchError(refusal)
            if p.writes:
                refusal = write_refusal(self.client.mon("osd dump"), p.pool)
                if refusal:
                    raise BenchError(refusal)
            session = rbdengine.BlockSession(self.client.spec, p.pool, op_timeout=p.op_timeout)
            if p.temporary:
                name = self._temp_image()
                op = image_create_op(p.pool, name, p.temp_image_size)
                self._step(CREATING_IMAGE, op)
                created = name  # from here on, remove it whatever happens
                try:
                    create_image(session.io, rbdengine.rbd, name, p.temp_image_size)
                except BenchError as e:
                    self.audit.record(op, False, str(e))
                    if "already exists" in str(e):
                        created = ""  # not ours: leave it alone
                    raise
                self.audit.record(op, True, f"created {p.pool}/{name}")
                p = replace(p, image=name)
            else:  # an image that must exist: said before the run starts (and its header is printed)
                image = session.open_image(p.image, read_only=True)  # a read-write open would add our watch
                try:
                    refusal = watched_refusal(p.pool, p.image, watchers(image)) if p.writes else ""
                finally:
                    image.close()
                if refusal:
                    self.audit.record(block_bench_operation(p), False, refusal)
                    raise BenchError(refusal)
            self.params = p  # the run's own image name, for the audit log and the history
            result = self._launch(p, block_bench_operation(p))
        except BenchError as e:
            problems.append(str(e))
        except CephError as e:
            problems.append(e.message)
        finally:
            if session is not None:
                if created:
                    problems += self._remove_temp_image(session, p.pool, created)
                session.close()
        if result is None:
            return RunOutcome(None, tuple(problems))
        return RunOutcome(*self._keep(result, problems))

    def _remove_temp_image(self, session: Any, pool: str, name: str) -> list[str]:
        from cephtui.ceph.bench import rbdengine

        op = image_remove_op(pool, name)
        try:
            self._step(REMOVING_IMAGE, op)
        except Exception:  # a caller that can no longer show it (the app quitting) must not keep the image
            log.exception("bench: on_step failed before removing the temporary image")
        why = remove_image(session.io, rbdengine.rbd, name)
        self.audit.record(op, not why, why or f"removed {pool}/{name}")
        return [f"The temporary image was not removed: {why}"] if why else []

    # ---- steps
    def _launch(self, p: BenchParams | BlockParams, op: Operation) -> BenchResult:
        """The engine itself, unless stopped meanwhile: in a worker process (bench/worker.py), so it never
        shares the UI's interpreter."""
        if self._stop.is_set():
            raise BenchError("stopped before the run started")
        self._step(CONNECTING, op)
        return run_remote(self.client.spec, p, on_start=self._started, on_sample=self.on_sample)

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
        op = (block_bench_operation(self.params) if isinstance(self.params, BlockParams)
              else bench_operation(self.params))
        self.audit.record(op, result.ok, result.error or summary_line(result))
        if self.history is not None:
            try:
                self.history.append(result)
            except OSError as e:
                problems.append(f"could not save the run to the history: {e}")
        return result, tuple(problems)
