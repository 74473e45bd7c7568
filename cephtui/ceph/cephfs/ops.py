"""CephFS operations: evicting a client, and the OSD blocklist an eviction adds to.

An eviction is the MDS's own command (`ceph tell mds.FS:RANK client evict id=N`), sent through libcephfs as the
CLI sends it (ceph/cephfs/tell.py). With `mds_session_blocklist_on_evict` true (the default) the MDS also adds
the client's address to the OSD blocklist, so it can no longer write anything: its mount hangs or fails (EIO)
until it is remounted; the entry expires after `mon_osd_blocklist_default_expire` (an hour by default) or is
removed with `ceph osd blocklist rm ADDR`. Without it, a client that is still alive reconnects at once.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.cephfs.model import Session
from cephtui.ceph.ops.core import DESTROYS, SAFE, Operation

BLOCKLIST_EXPIRE_DEFAULT = 3600  # mon_osd_blocklist_default_expire's default, seconds


@dataclass(frozen=True)
class BlocklistEntry:
    addr: str  # "127.0.0.1:0/2315612345"
    until: str  # as the mon prints it: "2026-12-07T08:10:00.123456+0000"


def blocklist_from(answer: Any) -> list[BlocklistEntry]:
    """`osd blocklist ls -f json`: a list of {addr, until}; an older mon's `{"entries": [...]}` too."""
    rows = answer.get("entries", []) if isinstance(answer, dict) else answer or []
    return [BlocklistEntry(str(r.get("addr", "")), str(r.get("until", ""))) for r in rows if isinstance(r, dict)]


def blocklist_from_raw(raw: bytes) -> list[BlocklistEntry]:
    """The raw answer: Pacific's mon writes two JSON arrays one after the other (the addresses, then the ranges:
    `[{"addr": …, "until": …}][]`), which no JSON parser takes whole; each value is read in turn."""
    text = raw.decode("utf-8", "replace").strip()
    decoder = json.JSONDecoder()
    out: list[BlocklistEntry] = []
    at = 0
    while at < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except ValueError:
            break
        out += blocklist_from(value)
        while at < len(text) and text[at].isspace():
            at += 1
    return out


def _evict_sender(spec: str, client_id: int) -> Callable[[Any, Operation], str]:
    """What sends the eviction: the MDS's command (not the mon's), told to the rank holding the session."""
    def send(client: Any, op: Operation) -> str:
        client.mds_tell_raw(spec, op.prefix, **dict(op.args))
        return f"mds.{spec} evicted client.{client_id}"
    return send


def evict_effect(s: Session, blocklists: bool | None, expire: int | None) -> str:
    """What the eviction does to that client, in the words of the confirmation."""
    where = f"on {s.hostname}" if s.hostname else "on its host"
    mount = f"{s.root or '/'}" + (f" (mounted at {s.mount_point})" if s.mount_point and s.mount_point != "N/A"
                                   else "")
    if blocklists is False:
        return (f"The MDS closes client.{s.id}'s session {where} and drops its {s.num_caps:,} caps; "
                "mds_session_blocklist_on_evict is false, so a client that is still running reconnects at once.")
    hours = f"{(expire or BLOCKLIST_EXPIRE_DEFAULT) / 3600:g} h"
    sure = "" if blocklists else " (mds_session_blocklist_on_evict could not be read; true by default)"
    return (f"The MDS closes client.{s.id}'s session {where}, drops its {s.num_caps:,} caps and blocklists its "
            f"address {s.addr or '?'} for {hours}{sure}: the mount of {mount} then hangs or fails (EIO) and "
            "writes not yet flushed are lost, until the client is remounted (kernel: `umount -f`, then mount; "
            "ceph-fuse: restart it). `ceph osd blocklist rm ADDR` lifts the blocklist early.")


def build_evict(fs: str, s: Session, blocklists: bool | None = True, expire: int | None = None) -> Operation:
    """Evict one session from the rank that holds it; the client's name typed to confirm."""
    spec = f"{fs}:{s.rank}"
    return Operation(
        title=f"Evict client.{s.id}" + (f" ({s.hostname})" if s.hostname else "") + f" from {fs}",
        prefix="client evict", args=(("filters", (f"id={s.id}",)),),
        cli=f"ceph tell mds.{spec} client evict id={s.id}", impact=DESTROYS, confirm_text=f"client.{s.id}",
        effect=evict_effect(s, blocklists, expire),
        confirm_why="the client's mount stops working until it is remounted", run_by=_evict_sender(spec, s.id))


def build_unblock(entry: BlocklistEntry) -> Operation:
    return Operation(title=f"Remove {entry.addr} from the OSD blocklist", prefix="osd blocklist",
                     args=(("blocklistop", "rm"), ("addr", entry.addr)),
                     cli=f"ceph osd blocklist rm {entry.addr}", impact=SAFE,
                     effect="The client at that address may write to the OSDs again (a client evicted from "
                            "CephFS still has to remount).")


def build_enable_stats() -> Operation:
    """The mgr's stats module, which per-client IO needs (what cephfs-top asks first)."""
    return Operation(title="Enable the mgr's stats module", prefix="mgr module enable", args=(("module", "stats"),),
                     cli="ceph mgr module enable stats", impact=SAFE,
                     effect="The mgr collects each CephFS client's IO and latency from the MDS (`fs perf stats`, "
                            "what cephfs-top shows). The MDS ranks forward their clients' metrics to rank 0 "
                            "every few seconds while somebody asks; `ceph mgr module disable stats` turns it off.")
