"""The Doctor's catalog: every health check code cephtui can explain, in our own words.

Data only. Each area module (mon, mgr, osd, pool, pg, bluestore, cephfs; failslow: cephtui's own CEPHTUI_
codes) holds a tuple `ENTRIES` of exact codes;
`families` holds the explanations whose code is a pattern ("OSD_*_DOWN", "CEPHADM_*"). `lookup` finds the
exact code first, then the first family whose pattern matches, else None (the Doctor then shows the check
verbatim and says it has no text for it)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase
from types import MappingProxyType

from cephtui.ceph.doctor.catalog import bluestore, cephfs, failslow, families, mgr, mon, osd, pg, pool
from cephtui.ceph.doctor.model import Explanation

MODULES = (mon, mgr, osd, pool, pg, bluestore, cephfs, failslow)


def build(groups: Iterable[tuple[Explanation, ...]]) -> Mapping[str, Explanation]:
    """One mapping code -> explanation from the modules' tuples; a code written twice is an error (the
    second would silently replace the first)."""
    out: dict[str, Explanation] = {}
    for entries in groups:
        for entry in entries:
            if entry.code in out:
                raise ValueError(f"health check {entry.code} is in the catalog twice")
            if "*" in entry.code:
                raise ValueError(f"{entry.code} is a pattern: it belongs in FAMILIES")
            out[entry.code] = entry
    return MappingProxyType(out)


CATALOG: Mapping[str, Explanation] = build(module.ENTRIES for module in MODULES)

# Patterns, most specific first: the first that matches wins.
FAMILIES: tuple[Explanation, ...] = families.ENTRIES


def lookup(code: str) -> Explanation | None:
    """The explanation for a raised code: the exact entry, else the first family whose pattern matches
    (`*` matches any run of characters, case-sensitive: codes are upper-case), else None."""
    exact = CATALOG.get(code)
    if exact is not None:
        return exact
    for family in FAMILIES:
        if fnmatchcase(code, family.code):
            return family
    return None


__all__ = ["CATALOG", "FAMILIES", "Explanation", "build", "lookup"]
