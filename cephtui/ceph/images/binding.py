"""librbd's Python binding (python3-rbd, from the distribution, not PyPI): the module or None, what to install
where it is missing, and which pools are RBD's. The one place the rest of images/ imports it from."""
from __future__ import annotations

from typing import Any

try:
    import rbd
except ImportError:  # pragma: no cover - machines without python3-rbd
    rbd = None

RBD_MISSING = ("block benchmarks need librbd's Python module, which comes with Ceph from your distribution: "
               "`apt install python3-rbd` (Debian/Ubuntu), `dnf install python3-rbd` (RHEL/Rocky/Fedora), "
               "`zypper install python3-rbd` (openSUSE)")


def rbd_pools(pool_ls_detail: Any) -> tuple[str, ...]:
    """The pools tagged with the `rbd` application, from `osd pool ls detail`'s JSON."""
    out = []
    for p in pool_ls_detail if isinstance(pool_ls_detail, list) else ():
        if isinstance(p, dict) and "rbd" in (p.get("application_metadata") or {}):
            out.append(str(p.get("pool_name", "")))
    return tuple(n for n in out if n)
