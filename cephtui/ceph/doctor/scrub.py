"""Scrub errors: which PGs are inconsistent (`pg ls inconsistent`), which objects and which copies
(`rados list-inconsistent-obj PGID`), and whether `pg repair` can pick a good copy.

`list-inconsistent-obj` is a librados client call the Python binding lacks, so it runs the `rados` CLI with
cephtui's own connection settings (conf, name, keyring, -m): the same answer an admin gets typing it."""
from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_int, as_list, as_str, dicts
from cephtui.ceph.connection import ConnectionSpec

RADOS_TIMEOUT = 30.0


@dataclass(frozen=True)
class InconsistentPG:
    pgid: str
    state: str
    acting: tuple[int, ...]
    primary: int
    scrub_errors: int
    last_deep_scrub: str


@dataclass(frozen=True)
class BadCopy:
    osd: int
    primary: bool
    errors: tuple[str, ...]
    shard: int = -1  # EC shard number; -1 for a replica


@dataclass(frozen=True)
class InconsistentObject:
    name: str
    nspace: str
    errors: tuple[str, ...]  # object-level: data_digest_mismatch, size_mismatch, …
    bad: tuple[BadCopy, ...]  # the copies with errors
    good: tuple[int, ...]  # OSDs whose copy had none
    authoritative: bool  # Ceph could pick a good copy (selected_object_info): repair can fix it

    @property
    def verdict(self) -> str:
        if not self.authoritative:
            return "Ceph could not choose a good copy: `pg repair` cannot fix this one (see the docs on " \
                   "manual repair with ceph-objectstore-tool)"
        if not self.bad:
            return "the copies disagree on metadata only; repair rewrites it from the chosen copy"
        where = ", ".join(f"osd.{b.osd}{' (the primary)' if b.primary else ''}" for b in self.bad)
        source = ", ".join(f"osd.{o}" for o in self.good) or "a good copy"
        return f"bad copy on {where}; repair rewrites it from {source}"


def parse_pg_ls(d: Any) -> tuple[InconsistentPG, ...]:
    """`pg ls inconsistent` (Pacific+: {"pg_stats": [...]}; before: the list itself)."""
    stats = as_dict(d).get("pg_stats") if isinstance(d, dict) else d
    out = []
    for p in dicts(stats):
        out.append(InconsistentPG(pgid=as_str(p.get("pgid")), state=as_str(p.get("state")),
                                  acting=tuple(as_int(x) for x in as_list(p.get("acting"))),
                                  primary=as_int(p.get("acting_primary")),
                                  scrub_errors=as_int(as_dict(p.get("stat_sum")).get("num_scrub_errors")),
                                  last_deep_scrub=as_str(p.get("last_deep_scrub_stamp"))[:19].replace("T", " ")))
    return tuple(sorted(out, key=lambda p: p.pgid))


def parse_inconsistent_obj(d: Any) -> tuple[InconsistentObject, ...]:
    out = []
    for item in dicts(as_dict(d).get("inconsistents")):
        obj = as_dict(item.get("object"))
        bad, good = [], []
        for sh in dicts(item.get("shards")):
            errors = tuple(as_str(e) for e in as_list(sh.get("errors")))
            if errors:
                bad.append(BadCopy(osd=as_int(sh.get("osd")), primary=bool(sh.get("primary")), errors=errors,
                                   shard=as_int(sh.get("shard")) if "shard" in sh else -1))
            else:
                good.append(as_int(sh.get("osd")))
        out.append(InconsistentObject(name=as_str(obj.get("name")), nspace=as_str(obj.get("nspace")),
                                      errors=tuple(as_str(e) for e in as_list(item.get("errors"))),
                                      bad=tuple(bad), good=tuple(good),
                                      authoritative="selected_object_info" in item))
    return tuple(out)


class ScrubInfoError(Exception):
    """`rados list-inconsistent-obj` gave no listing; the message is rados' own, with what it means."""


def rados_argv(spec: ConnectionSpec, *words: str) -> list[str]:
    """The `rados` command line for this connection: the same cluster, identity and options as cephtui's."""
    argv = ["rados"]
    conffile = spec.conffile_to_read()
    if conffile:
        argv += ["-c", conffile]
    argv += ["--name", spec.name, "--cluster", spec.cluster]
    if spec.keyring:
        argv += ["--keyring", spec.keyring]
    return [*argv, *spec.extra_args, *words]


def list_inconsistent_obj(spec: ConnectionSpec, pgid: str) -> tuple[InconsistentObject, ...]:
    if shutil.which("rados") is None:
        raise ScrubInfoError("the rados CLI is not installed (ceph-common): it alone lists inconsistent objects")
    argv = rados_argv(spec, "list-inconsistent-obj", pgid, "--format=json")
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=RADOS_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ScrubInfoError(f"rados list-inconsistent-obj {pgid} did not answer within {RADOS_TIMEOUT:.0f}s") from None
    if res.returncode != 0:
        msg = (res.stderr.strip() or res.stdout.strip() or f"exit status {res.returncode}").splitlines()[-1]
        if "No scrub information" in msg:
            msg += (": the PG has not been deep-scrubbed since it last re-peered (an OSD restart does that). "
                    f"Deep-scrub it first (`ceph pg deep-scrub {pgid}`), then look again")
        raise ScrubInfoError(msg)
    try:
        return parse_inconsistent_obj(json.loads(res.stdout))
    except ValueError as e:
        raise ScrubInfoError(f"rados list-inconsistent-obj {pgid}: unreadable answer ({e})") from None
