"""Who answers at a Ceph messenger address: the mgr gate's check that the active mgr still listens.

A TCP connect alone was not enough. Ceph daemons bind the lowest free port from ms_bind_port_min
(6800), so the port a dead mgr freed is the first one the next daemon to start on that host takes
(an OSD restarting beside it). The connect is then accepted and a mgr command goes to a mgr that
is gone, where it waits at the mon (seen in tests/ui/test_faults_mgrdown.py when another test
restarted an OSD on the same host).

So for a msgr2 address the probe also reads the server's HELLO frame, which names the kind of
daemon that answers (no auth is needed for it): the banners are exchanged as any client does, and
the first frame's first payload byte is the server's entity type. Measured on Pacific: the HELLO
arrives right after the client's banner. Anything unexpected (a timeout, another protocol, a
garbled frame) is no evidence either way.
"""
from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

BANNER = b"ceph v2\n"
TAG_HELLO = 1
PREAMBLE = 32  # tag, segment count, 4 x (length, alignment), flags, reserved, crc32c
# CEPH_ENTITY_TYPE_* (src/include/msgr.h)
ENTITY_TYPES = {0x01: "mon", 0x02: "mds", 0x04: "osd", 0x08: "client", 0x10: "mgr", 0x20: "auth"}


@dataclass(frozen=True)
class Answer:
    refused: bool = False  # the kernel refused: nothing listens there
    entity: str = ""  # the daemon kind its msgr2 HELLO names ("" unknown: no evidence)


def probe(host: str, port: int, msgr2: bool, timeout: float = 0.3, read_timeout: float = 1.0) -> Answer:
    """Connect to host:port; for a msgr2 address also read which kind of daemon answers."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.settimeout(read_timeout)  # a live daemon answers in milliseconds; more is no evidence
            return Answer(entity=_hello_entity(s) if msgr2 else "")
    except ConnectionRefusedError:
        return Answer(refused=True)
    except OSError:
        return Answer()


def _hello_entity(s: socket.socket) -> str:
    try:
        head = _read(s, len(BANNER) + 2)
        if head is None or not head.startswith(BANNER):
            return ""
        (size,) = struct.unpack("<H", head[len(BANNER):])
        features = _read(s, size)
        if features is None or size < 16:
            return ""
        supported, _required = struct.unpack("<QQ", features[:16])
        # Claim exactly what the server supports, so that it never closes on a missing feature.
        s.sendall(BANNER + struct.pack("<HQQ", 16, supported, 0))
        frame = _read(s, PREAMBLE + 1)
    except OSError:
        return ""
    if frame is None or frame[0] != TAG_HELLO:
        return ""
    return ENTITY_TYPES.get(frame[PREAMBLE], f"type {frame[PREAMBLE]:#x}")


def _read(s: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data
