"""Files cephtui writes for itself (audit log, workflow and maintenance state): owner-only.

They name the cluster, its hosts and what was done to it, so like the `ceph`
CLI's keyrings they are 0600 in 0700 directories, whatever the umask says.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) as 0700; an existing directory keeps its mode."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    return path


def open_append(path: Path) -> IO[str]:
    """Append to `path`, creating it 0600 (an existing file is tightened to 0600 too)."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except OSError:
        pass  # not our file (another user's, read-only fs): writing still works or fails on its own
    return os.fdopen(fd, "a", encoding="utf-8")


def replace_text(path: Path, text: str) -> None:
    """Write `path` atomically as 0600: a crash leaves the old file or the new one, never half."""
    private_dir(path.parent)
    # Per process and thread: two threads saving one file at once must not share (and steal) a temporary file.
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
