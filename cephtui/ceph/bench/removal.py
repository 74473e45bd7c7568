"""Removing bench objects, forced past a full cluster's flag, and `rados cleanup`."""
from __future__ import annotations

import errno as errno_mod
import threading
import time
from collections.abc import Callable
from typing import Any

from cephtui.ceph.bench.params import DEFAULT_METADATA, BenchError
from cephtui.ceph.bench.wire import METADATA, decode_metadata, hostname, object_name, object_prefix

FULL_FORCE = 128  # LIBRADOS_OPERATION_FULL_FORCE (librados.h); the Python binding does not export it


def aio_remove_forced(io: Any, name: str, oncomplete: Callable[[Any], None]) -> None:
    """An async remove that goes through on a full cluster.

    Measured on Pacific: once the pool is flagged full, librados holds every plain remove
    (sync or aio) like a write, until the op timeout. Deleting is how space comes back, so
    removes carry LIBRADOS_OPERATION_FULL_FORCE, as `rados rm --force-full` does.
    """
    op = io.create_write_op()
    try:
        op.remove()
        io.operate_aio_write_op(op, name, oncomplete=oncomplete, flags=FULL_FORCE)
    finally:
        io.release_write_op(op)


def remove_object_forced(io: Any, name: str) -> None:
    """A synchronous remove that goes through on a full cluster (see aio_remove_forced)."""
    op = io.create_write_op()
    try:
        op.remove()
        io.operate_write_op(op, name, flags=FULL_FORCE)
    finally:
        io.release_write_op(op)


def remove_objects(io: Any, prefix: str, count: int, threads: int, op_timeout: float) -> tuple[int, int]:
    """Remove prefix_object0..count-1 with `threads` removes in flight; (removed, failed). ENOENT counts as removed.

    Removes are forced past the full flag: a run that filled the cluster gives the space back."""
    slots = threading.Semaphore(max(1, threads))
    lock = threading.Lock()
    counts = [0, 0]

    def done(completion: Any) -> None:
        ret = completion.get_return_value()
        with lock:
            counts[0 if ret >= 0 or ret == -errno_mod.ENOENT else 1] += 1
        slots.release()

    for i in range(count):
        if not slots.acquire(timeout=op_timeout + 5):
            break
        try:
            aio_remove_forced(io, object_name(prefix, i), done)
        except Exception:
            with lock:
                counts[1] += 1
            slots.release()
    got = 0
    deadline = time.monotonic() + op_timeout + 5
    while got < max(1, threads) and time.monotonic() < deadline:
        if slots.acquire(timeout=0.25):
            got += 1
    return counts[0], count - counts[0]


def cleanup_run(io: Any, metadata_name: str = DEFAULT_METADATA, host: str | None = None, threads: int = 16,
                op_timeout: float = 30.0) -> tuple[int, int]:
    """What `rados cleanup` does: remove the objects the metadata names, then the metadata object."""
    try:
        raw = io.read(metadata_name, METADATA.size, 0)
    except Exception as e:
        raise BenchError(f"no bench metadata object {metadata_name} to clean up after ({e})") from None
    meta = decode_metadata(raw)
    removed, failed = remove_objects(io, object_prefix(host or hostname(), meta.pid), meta.num_objects, threads,
                                     op_timeout)
    if not failed:
        remove_object_forced(io, metadata_name)
    return removed, failed
