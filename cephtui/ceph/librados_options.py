"""The local librados' own option table (`--mon_host`, `--rbd_cache` …): whether it knows an option, whether it
is a boolean, and whether it takes a value, asked of a handle that is created but never connected (librados
itself silently skips an unknown name). Used by the command line and by the config file's checks."""
from __future__ import annotations

import os
from typing import Any

try:
    import rados
except ImportError:  # pragma: no cover - the launcher explains; --help still works
    rados = None

BOOL_VALUES = ("true", "false")


class LibradosOptions:
    """The local librados' option table, asked on a handle that is created but never connected."""

    def __init__(self) -> None:
        self._handle: Any = None
        self._kinds: dict[str, str | None] = {}

    @property
    def available(self) -> bool:
        return rados is not None

    def _h(self) -> Any:
        if self._handle is None and rados is not None:
            self._handle = rados.Rados(conf={"log_to_stderr": "false", "err_to_stderr": "false"})
        return self._handle

    @staticmethod
    def key(name: str) -> str:
        return name.replace("-", "_")

    def kind(self, name: str) -> str | None:
        """'bool', 'value', or None when librados has no option of that name (dashes or underscores)."""
        key = self.key(name)
        if key in self._kinds:
            return self._kinds[key]
        h = self._h()
        kind: str | None = None
        if h is not None and key and key.replace("_", "").isalnum():
            try:
                current = h.conf_get(key)
            except Exception:
                current = None
            if current is not None:
                kind = "value"
                if current in BOOL_VALUES:
                    try:  # a string option may hold "true"; only a boolean refuses a word
                        h.conf_set(key, "not-a-boolean")
                        h.conf_set(key, current)
                    except Exception:
                        kind = "bool"
        self._kinds[key] = kind
        return kind

    def refusal(self, name: str, value: str) -> str | None:
        """Why librados refuses this value for the option, or None when it takes it."""
        h = self._h()
        if h is None:
            return None
        try:
            h.conf_set(self.key(name), value)
        except Exception as e:
            code = abs(getattr(e, "errno", 0) or 0)
            return os.strerror(code) if code else (str(e) or type(e).__name__)
        return None

    def close(self) -> None:
        if self._handle is not None:
            try:
                self._handle.shutdown()
            except Exception:
                pass
            self._handle = None
