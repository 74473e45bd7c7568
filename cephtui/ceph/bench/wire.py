"""The `rados bench` wire format: object names, each op's contents, the metadata object.

Byte for byte what obj_bencher (src/common/obj_bencher.cc) writes and reads, so native
`rados bench seq|rand` and `rados cleanup` work on our objects and we on theirs.
"""
from __future__ import annotations

import ctypes
import socket
import struct
import sys
import threading
from dataclasses import dataclass

from cephtui.ceph.bench.params import BenchError

BENCH_PREFIX = "benchmark_data"
# size_t object_size, int num_ops, int pid, size_t op_size: what obj_bencher encodes (little-endian)
METADATA = struct.Struct("<QiiQ")
_HEADER = b"I'm the %16dth op!\0"


def hostname() -> str:
    # obj_bencher reads gethostname() into a 30-byte buffer: at most 29 characters.
    return socket.gethostname()[:29]


def object_prefix(host: str, pid: int) -> str:
    return f"{BENCH_PREFIX}_{host}_{pid}"


def object_name(prefix: str, objnum: int) -> str:
    return f"{prefix}_object{objnum}"


def op_header(index: int, op_size: int) -> bytes:
    """The bytes snprintf(buf, op_size, "I'm the %16dth op!", index) leaves at the start of an op."""
    text = _HEADER % index
    return text[:op_size - 1] + b"\0" if len(text) > op_size else text


def _bytes_data_offset() -> int | None:
    """Where a bytes object's data starts in CPython (None if we cannot prove it here)."""
    if sys.implementation.name != "cpython":
        return None
    offset = bytes.__basicsize__ - 1  # the struct ends with char ob_sval[1]
    probe = bytes(64)
    try:
        ctypes.memmove(id(probe) + offset, b"probe", 5)
    except Exception:
        return None
    return offset if probe[:5] == b"probe" else None


class Contents:
    """Each op's bytes: its header, then 'z' padding, as obj_bencher writes them.

    The binding wants `bytes`, and librados copies them inside rados_aio_write before
    it returns. So rather than building (and page-faulting) a new multi-MiB object per
    op, a few preallocated buffers are reused and only their header is rewritten in
    place. Buffers are lent out under a lock; without a provable data offset (not
    CPython) each op gets a fresh copy instead.
    """

    _offset = _bytes_data_offset()

    def __init__(self, op_size: int) -> None:
        self.op_size = op_size
        self._tail = b"z" * op_size
        self._lock = threading.Lock()
        self._free: list[bytes] = []
        # Every header below op 10**16 has the same length ("%16d"): its padding is made once.
        self._head_len = len(op_header(0, op_size))
        self._pad = self._tail[self._head_len:] if op_size <= 64 * 1024 else b""

    def __call__(self, index: int) -> bytes:
        if self._pad:  # inlined op_header: one call per 4 KiB op fewer
            head = _HEADER % index
            if len(head) == self._head_len:
                return head + self._pad
        head = op_header(index, self.op_size)
        # join over a memoryview: one copy of the op (slicing bytes would copy it once more)
        return b"".join((head, memoryview(self._tail)[len(head):]))

    def lend(self, index: int) -> bytes:
        """A buffer holding op `index`; give it back once librados has taken its copy."""
        if self._offset is None:
            return self(index)
        with self._lock:
            buf = self._free.pop() if self._free else b"z" * self.op_size
        head = op_header(index, self.op_size)
        ctypes.memmove(id(buf) + self._offset, head, len(head))
        return buf

    def give_back(self, buf: bytes) -> None:
        if self._offset is not None and len(buf) == self.op_size:
            with self._lock:
                self._free.append(buf)

    def header_ok(self, index: int, data: bytes) -> bool:
        head = op_header(index, self.op_size)
        return len(data) == self.op_size and data.startswith(head)


def encode_metadata(object_size: int, num_ops: int, pid: int, op_size: int) -> bytes:
    return METADATA.pack(object_size, num_ops, pid, op_size)


@dataclass(frozen=True)
class Metadata:
    object_size: int
    num_ops: int
    pid: int
    op_size: int

    @property
    def num_objects(self) -> int:
        per = max(1, self.object_size // self.op_size) if self.op_size else 1
        return (self.num_ops + per - 1) // per


def decode_metadata(raw: bytes) -> Metadata:
    if len(raw) >= METADATA.size:
        return Metadata(*METADATA.unpack_from(raw))
    if len(raw) >= 16:  # before op_size was added the op was the object
        object_size, num_ops, pid = struct.unpack_from("<Qii", raw)
        return Metadata(object_size, num_ops, pid, object_size)
    raise BenchError("the bench metadata object is empty or damaged: write again before reading")
