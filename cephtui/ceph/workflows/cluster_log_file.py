"""The mons' cluster log as they write it to a file on their host: where it is, and bounded reads of it.

The mons write each channel of the cluster log to `mon_cluster_log_file` when `mon_cluster_log_to_file` is
true (the default on package installs such as Debian/Proxmox; cephadm sends it to journald instead). The
setting maps channels to files ("default=/var/log/ceph/$cluster.$channel.log cluster=/var/log/ceph/$cluster.log"),
so the audit channel goes to /var/log/ceph/ceph.audit.log. Unlike `log last` (the mons keep 50 entries of a
channel on Pacific's defaults), the file keeps everything until logrotate: who sent a command hours ago.

The file grows large (tens of MB a day on a busy cluster): it is never read whole. A window of time is found
by bisecting the file's offsets on the timestamps that start its lines (they are written in time order),
then at most WINDOW_BYTES are read from there. Blocking file reads: call from a worker thread.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from cephtui.ceph.cluster import Cluster

DEFAULT_SETTING = "default=/var/log/ceph/$cluster.$channel.log cluster=/var/log/ceph/$cluster.log"
WINDOW_BYTES = 4 << 20  # read at most this much of the file per lookup
TAIL_BYTES = 4 << 20  # a lookup with no time to aim at reads this much from the end
BISECT_UNTIL = 64 << 10  # stop bisecting when the window is this small, then read through it
CHUNK = 256 << 10
# The lines are in commit order, their stamps the sender's: a file holds lines a few seconds out of order (seen:
# 8.5 s, where several mons wrote one file). A window is sought from SKEW before its start and read until a line
# stamped SKEW past its end, so an early-stamped line written late is not missed.
SKEW = 30.0

_STAMP = re.compile(rb"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?[+-]\d{4}) ")


def channel_file(setting: str, channel: str, cluster: str) -> str:
    """The file `channel` goes to under a mon_cluster_log_file `setting` ("" when none), $cluster and
    $channel expanded. A setting without "=" is one file for every channel (as Ceph reads it)."""
    setting = setting.strip().strip('"')
    if not setting:
        return ""
    if "=" not in setting:
        path = setting
    else:
        files = dict(p.split("=", 1) for p in setting.replace(",", " ").replace(";", " ").split() if "=" in p)
        path = files.get(channel) or files.get("default", "")
    return path.replace("$cluster", cluster).replace("$channel", channel)


def locate(client: Cluster, channel: str = "audit") -> tuple[Path | None, str]:
    """Where the mons write `channel` of the cluster log: (path, "") or (None, why not). Asks the config
    database (`config get mon.ID`) for the mon on this host, else the first one; a value set only in a
    mon's ceph.conf is not seen there, and the default is then what is looked at."""
    import socket

    from cephtui.ceph.errors import CephError
    cluster = client.spec.cluster or "ceph"
    try:
        names = [str(m.get("name")) for m in (client.mon("mon dump") or {}).get("mons", []) if isinstance(m, dict)]
    except CephError:
        names = []
    host = socket.gethostname().split(".")[0]
    who = f"mon.{host}" if host in names else f"mon.{names[0]}" if names else "mon"
    try:
        to_file = _config_get(client, who, "mon_cluster_log_to_file").lower()
        setting = _config_get(client, who, "mon_cluster_log_file")
    except CephError:
        to_file, setting = "true", DEFAULT_SETTING  # a key that may not read the config: Ceph's defaults
    if to_file == "false":
        return None, "the mons write no cluster log file (mon_cluster_log_to_file is false)"
    path = channel_file(setting or DEFAULT_SETTING, channel, cluster)
    return (Path(path), "") if path else (None, f"no file for the {channel} channel in mon_cluster_log_file")


def _config_get(client: Any, who: str, key: str) -> str:
    out, _ = client.mon_raw("config get", who=who, key=key)
    return bytes(out).decode(errors="replace").strip().strip('"')


def line_time(line: bytes) -> float | None:
    """The timestamp that starts a cluster log line ("2026-11-27T21:17:06.410952+0000 mon.a ..."), or None."""
    m = _STAMP.match(line)
    if not m:
        return None
    text = m.group(1).decode()
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S%z"):
        try:
            return datetime.strptime(text, fmt).timestamp()
        except ValueError:
            continue
    return None


def _time_after(f: IO[bytes], offset: int) -> float | None:
    """The time of the first whole line at or after `offset` (None: none before the end)."""
    f.seek(offset)
    if offset:
        f.readline()  # the rest of a line cut in two
    for _ in range(64):
        line = f.readline()
        if not line:
            return None
        t = line_time(line)
        if t is not None:
            return t
    return None


def _offset_before(f: IO[bytes], size: int, start: float) -> int:
    """An offset at or before the first line stamped `start` or later, within BISECT_UNTIL of it."""
    lo, hi = 0, size
    while hi - lo > BISECT_UNTIL:
        mid = (lo + hi) // 2
        t = _time_after(f, mid)
        if t is None or t >= start:
            hi = mid
        else:
            lo = mid
    return lo


def _lines_from(f: IO[bytes], offset: int, limit: int) -> Iterator[bytes]:
    """Whole lines from `offset` (the first, cut, skipped), reading at most `limit` bytes."""
    f.seek(offset)
    read, rest, first = 0, b"", bool(offset)
    while read < limit:
        chunk = f.read(min(CHUNK, limit - read))
        if not chunk:
            break
        read += len(chunk)
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        for line in lines:
            if first:
                first = False
                continue
            yield line
    if rest and not first and read < limit:
        yield rest  # the last line, with no newline yet


def window(path: Path, start: float, end: float, limit: int = WINDOW_BYTES,
           around: float | None = None) -> list[str]:
    """The lines stamped from `start` to `end`, at most `limit` bytes read. OSError when unreadable.

    When the span holds more than `limit` bytes, the `limit` bytes around the time `around` (by default the
    middle of the span) are read, not the span's first ones: on a busy file the lines sought are the ones
    nearest that time. Seen in CI: three sandboxes' mons wrote 3.9 MiB to one audit file in the 30 s before
    the line sought, and a read from the span's start ended before reaching it."""
    out = []
    with path.open("rb") as f:
        size = f.seek(0, 2)
        offset = _offset_before(f, size, start - SKEW)
        if _offset_before(f, size, end + SKEW) + BISECT_UNTIL - offset > limit:
            middle = _offset_before(f, size, (start + end) / 2 if around is None else around)
            offset = max(offset, middle - limit // 2)
        for line in _lines_from(f, offset, limit):
            t = line_time(line)
            if t is not None and t > end + SKEW:
                break
            if t is not None and start <= t <= end:
                out.append(line.decode("utf-8", "replace"))
    return out


def tail(path: Path, limit: int = TAIL_BYTES) -> list[str]:
    """The last lines of the file, at most `limit` bytes. OSError when unreadable."""
    with path.open("rb") as f:
        size = f.seek(0, 2)
        return [line.decode("utf-8", "replace") for line in _lines_from(f, max(0, size - limit), limit)]
