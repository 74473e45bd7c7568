"""Why a connection to the cluster failed, in one line: librados gives only an errno."""
from __future__ import annotations

import errno as errno_mod
import os
from typing import Any

from cephtui.ceph.releases import keyring_has, keyring_key, local_release, unreadable_key_reason


def explain_connect_failure(code: int, handle: Any, conffile: str, name: str, connect_timeout: float) -> str:
    """One line for a failed connect: the key that cannot be read, the keyring without the entity, the mons that
    did not answer ... (librados says only an errno)."""

    def conf_get(key: str) -> str:
        try:
            return handle.conf_get(key) or ""
        except Exception:
            return ""
    for path in [k.strip() for k in conf_get("keyring").split(",") if k.strip()]:
        if os.path.isfile(path):
            why = unreadable_key_reason(path, name, local_release())
            if why:
                return f"cannot connect as {name}: {why}"
            if keyring_key(path, name) is not None:
                break  # librados uses the first keyring that has the entity
    if code == errno_mod.ENOENT:
        return (f"no keyring found for {name} (looked in {conf_get('keyring') or '?'}); "
                f"use -k/--keyring or --id/--name")
    if code in (errno_mod.EACCES, errno_mod.EPERM):
        keyrings = [k for k in conf_get("keyring").split(",") if k and os.path.isfile(k)]
        if keyrings and not any(keyring_has(k, name) for k in keyrings):
            return f"no key for {name} in {', '.join(keyrings)}; use -k/--keyring or --id/--name"
        return f"permission denied for {name}: the monitors rejected its key, or it has no mon caps"
    if code in (errno_mod.ETIMEDOUT, errno_mod.EINTR):
        return (f"cannot reach the monitors at {conf_get('mon_host') or '(no mon_host in ' + conffile + ')'} "
                f"within {connect_timeout}s")
    return f"cannot connect as {name}: {os.strerror(code) if code else 'unknown error'}"

