"""Keep cephx secrets out of everything cephtui writes or shows by accident.

Keys are dropped when `auth ls` is parsed and shown only on the explicit
reveal screen; this is the safety net for the rest: error texts, the audit
log, the log. A cephx key is the base64 of a 12-byte header and its secret:
40 characters starting "AQ" (type 1, AES-128, 16 bytes, ending "=="), or since
Tentacle 60 characters starting "Ag" (type 2, 32 bytes, ending "=").
"""
from __future__ import annotations

import logging
import re
from pathlib import Path

MASK = "[secret redacted]"
_KEY = re.compile(r"Ag[A-Za-z0-9+/]{56,58}={0,2}|AQ[A-Za-z0-9+/]{36,38}={0,2}")
# `key = …` in a keyring, `"key": "…"` in JSON, `--key=…`/`secret=…` on a command line, and the
# mon's "error setting modifier for [client.x] type=key val=…" that echoes a malformed key back.
_ASSIGNED = re.compile(r"""(?i)(\b(?:key|secret)\b["']?\s*[:=]\s*["']?|\btype=key val=)([A-Za-z0-9+/=]{8,}\S*)""")


def redact(text: str) -> str:
    if "AQ" not in text and "Ag" not in text and "key" not in text.lower() and "secret" not in text.lower():
        return text  # the common case: nothing to scan
    return _KEY.sub(MASK, _ASSIGNED.sub(lambda m: m.group(1) + MASK, text))


def redact_value(value: object) -> object:
    """`redact` through the strings of a JSON-like value (a command's arguments)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v) for v in value]
    return value


class RedactingFilter(logging.Filter):
    """Masks secrets in every record of the logger it is attached to (messages and arguments)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


def log_to_file(path: Path | None = None, name: str = "cephtui") -> Path:
    """Send the `cephtui` log (warnings and errors, tracebacks included) to a 0600 file in the
    state directory, every record through the redacting filter. Returns the path."""
    from cephtui.ceph.owner_only import open_append
    from cephtui.paths import state_dir

    path = path or state_dir() / "cephtui.log"
    logger = logging.getLogger(name)
    if any(isinstance(h, _PrivateFileHandler) for h in logger.handlers):
        return path
    try:
        open_append(path).close()  # created 0600 in a 0700 directory before logging opens it
    except OSError:
        return path  # no log then; the UI still shows every error itself
    handler = _PrivateFileHandler(path, encoding="utf-8")
    handler.addFilter(RedactingFilter())  # on the handler: records of child loggers pass here too
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    logger.propagate = False  # never onto the terminal Textual draws on
    return path


class _PrivateFileHandler(logging.FileHandler):
    pass
