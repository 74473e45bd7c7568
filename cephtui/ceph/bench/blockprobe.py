"""The latency probe on an RBD image: random 4 KiB writes then random 4 KiB reads, one in flight, in the
client cache mode asked for, held against the network's floor (probe.py does the measuring and the words).

Both directions use one image. An existing image is the operator's (a write destroys data there: its name
typed again, and refused while watched, like any block write). Otherwise a small temporary image is made
for the whole probe and filled once with 4 MiB sequential writes, so that the reads read data the OSDs
hold rather than holes librbd and BlueStore answer without a disk; it is removed afterwards whatever
happens. Each step is a BenchRun: shown, audited, and the two measured directions saved to the history.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.bench.blockparams import BlockParams
from cephtui.ceph.bench.history import BenchHistory
from cephtui.ceph.bench.image import create_image, image_create_op, image_remove_op, remove_image, temp_image_name
from cephtui.ceph.bench.params import BenchError, MiB
from cephtui.ceph.bench.probe import PROBE_SECONDS, LatencyProbe, ProbeRunner, block_plan
from cephtui.ceph.bench.results import Sample
from cephtui.ceph.cluster import Cluster

PROBE_IMAGE_SIZE = 256 * MiB  # small enough to fill in seconds, 64 objects: the reads spread over the PGs


class TempProbeImage:
    """The probe's own image: created and filled before the probe, removed by `finish` after it."""

    def __init__(self, client: Cluster, audit: ops.AuditLog, pool: str, runner: ProbeRunner, cache: str,
                 on_step: Callable[[str, ops.Operation], None] | None = None) -> None:
        self.client, self.audit, self.pool, self.runner, self.cache = client, audit, pool, runner, cache
        self.on_step = on_step
        self.name = temp_image_name()
        self.created = False

    def _session(self) -> Any:
        from cephtui.ceph.bench.rbdengine import BlockSession
        return BlockSession(self.client.spec, self.pool)

    def create_and_fill(self) -> None:
        from cephtui.ceph.bench.rbdengine import rbd
        op = image_create_op(self.pool, self.name, PROBE_IMAGE_SIZE)
        if self.on_step is not None:
            self.on_step("creating the probe's image", op)
        session = self._session()
        try:
            self.created = True  # from here on, removed whatever happens
            try:
                create_image(session.io, rbd, self.name, PROBE_IMAGE_SIZE)
            except BenchError as e:
                self.audit.record(op, False, str(e))
                if "already exists" in str(e):
                    self.created = False  # not ours
                raise
            self.audit.record(op, True, f"created {self.pool}/{self.name}")
        finally:
            session.close()
        fill = BlockParams(pool=self.pool, image=self.name, io_type="write", io_size=4 * MiB, io_threads=16,
                           io_total=PROBE_IMAGE_SIZE, io_pattern="seq", cache="off")
        result = self.runner(fill, history=False)
        if not result.ok:
            raise BenchError(f"filling the probe's image failed: {result.error}")

    def finish(self) -> str:
        if not self.created:
            return ""
        from cephtui.ceph.bench.rbdengine import rbd
        op = image_remove_op(self.pool, self.name)
        if self.on_step is not None:
            self.on_step("removing the probe's image", op)
        session = self._session()
        try:
            why = remove_image(session.io, rbd, self.name)
        finally:
            session.close()
        self.audit.record(op, not why, why or f"removed {self.pool}/{self.name}")
        return f"the probe's image was not removed: {why}" if why else \
            f"the probe's temporary image {self.pool}/{self.name} was removed"


class BlockProbe(LatencyProbe):
    """A LatencyProbe that makes (and fills) its temporary image first when it has one."""

    def __init__(self, *args: Any, temp: TempProbeImage | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.temp = temp

    def run(self) -> Any:
        if self.client.read_only:
            raise BenchError("read-only mode: the latency probe writes (then reads what it wrote)")
        if self.temp is not None:
            self._phase("creating and filling the probe's temporary image")
            try:
                self.temp.create_and_fill()
            except BaseException:
                self.temp.finish()
                raise
        return super().run()


def block_probe(client: Any, pool: str, audit: ops.AuditLog, history: BenchHistory | None = None, *,
                image: str = "", confirmed_image: str = "", cache: str = "off", seconds: float = PROBE_SECONDS,
                op_timeout: float = 30.0, read_only: bool = False,
                on_phase: Callable[[str], None] | None = None,
                on_step: Callable[[str, ops.Operation], None] | None = None,
                on_start: Callable[[Any], None] | None = None,
                on_sample: Callable[[Sample], None] | None = None) -> tuple[BlockProbe, ProbeRunner]:
    """A block latency probe of `image` (or of a temporary image in `pool`), ready to `run()` from a worker
    thread. A write to an existing image needs `confirmed_image` == `image`: BenchRun refuses otherwise."""
    runner = ProbeRunner(client, audit, history, on_step=on_step, on_start=on_start, on_sample=on_sample,
                         confirmed_image=confirmed_image, read_only=read_only)
    temp = None if image else TempProbeImage(client, audit, pool, runner, cache, on_step)
    name = image or (temp.name if temp is not None else "")
    if temp is not None:
        runner.run_options["confirmed_image"] = name  # ours: made for the probe
    make = functools.partial(BlockParams, pool=pool, image=name, cache=cache, op_timeout=op_timeout,
                             io_total=1 << 40)  # the seconds end each direction, not the bytes
    target = f"image {pool}/{name}" if image else f"a temporary {PROBE_IMAGE_SIZE // MiB} MiB image in pool {pool}"
    plan = block_plan(make, pool, seconds, target)
    if temp is not None:
        from dataclasses import replace
        plan = replace(plan, finish=temp.finish)
    probe = BlockProbe(client, plan, runner, on_phase=on_phase, stop_run=runner.stop, cache=cache, temp=temp)
    return probe, runner


def probe_operations(probe: LatencyProbe) -> list[ops.Operation]:
    """What a probe amounts to, in order, as the commands an admin would type: for its confirmation."""
    from cephtui.ceph.bench.image import block_bench_operation
    from cephtui.ceph.bench.pool import bench_operation

    plan = probe.plan
    if plan.kind != "rbd":
        name = plan.write.run_name
        return [bench_operation(plan.write), bench_operation(plan.read),
                ops.Operation(title=f"Remove the latency probe's objects from pool {plan.pool}",
                              prefix="rados cleanup", args=(("pool", plan.pool), ("run_name", name)),
                              cli=f"rados -p {plan.pool} cleanup --run-name {name}")]
    out: list[ops.Operation] = []
    temp = getattr(probe, "temp", None)
    if temp is not None:
        out += [image_create_op(plan.pool, temp.name, PROBE_IMAGE_SIZE),
                block_bench_operation(BlockParams(pool=plan.pool, image=temp.name, io_type="write", io_size=4 * MiB,
                                                  io_threads=16, io_total=PROBE_IMAGE_SIZE, io_pattern="seq"))]
    out += [block_bench_operation(plan.write), block_bench_operation(plan.read)]
    if temp is not None:
        out.append(image_remove_op(plan.pool, temp.name))
    return out
