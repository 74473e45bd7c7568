"""PG-movement preview: which PGs a CRUSH or OSD-weight change would remap, before anything is sent.

The current osdmap is fetched once (`osd getmap`), its own crush map exported from it
so both are the same epoch, the operations are replayed on an offline copy with
crushtool (CRUSH) or by setting the OSDs' override weights in a copy of the osdmap
(`osd in/out/reweight`: osdmaptool can mark only one OSD out, and none in or
reweighted), and osdmaptool maps every PG before and after. Nothing is sent to the
cluster but reads.
"""
from __future__ import annotations

import re
import struct
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from cephtui.ceph.cluster import Commands
from cephtui.ceph.coerce import as_dict, as_float, as_int, as_list, as_str, dicts
from cephtui.ceph.crush import crushtool
from cephtui.ceph.crush.crushtool import NONE_OSD
from cephtui.ceph.errors import CephError
from cephtui.ceph.format import human_bytes
from cephtui.ceph.ops import Operation
from cephtui.ceph.snapshot.parse import pg_stats_list

PG_DUMP_LIMIT = 50_000  # above this, estimate bytes per PG from `df` instead of a full `pg dump`


@dataclass(frozen=True)
class PoolMovement:
    pool_id: int
    pool_name: str
    pg_num: int
    changed_pgs: int  # PGs whose up set changes (order included: a new primary counts)
    shards_moved: int  # OSD-shards that must be backfilled somewhere new
    bytes_to_move: int | None  # None: unknown (no mgr)
    size: int = 0  # the pool's replica count (k+m for EC)
    undersized_pgs: int = 0  # up set shrinks below size: CRUSH finds nowhere to put the missing copies
    min_size: int = 0
    inactive_pgs: int = 0  # of those, left below min_size: client IO to them stops


@dataclass(frozen=True)
class Preview:
    epoch: int  # the osdmap epoch the preview was computed against
    pools: tuple[PoolMovement, ...]
    total_pgs: int
    changed_pgs: int
    shards_moved: int
    bytes_to_move: int | None
    new_crush: bytes
    changed: frozenset[str]  # pgids whose up set changes
    notes: tuple[str, ...] = ()
    seconds: float = 0.0  # how long the computation took
    # What the up sets depend on, as of `epoch` (see mapping_key): to tell a stale preview at apply time.
    key: tuple[Any, ...] = ()
    undersized_pgs: int = 0  # PGs left with fewer OSDs than the pool's size: degraded, not moved
    inactive_pgs: int = 0  # PGs left with fewer OSDs than the pool's min_size: IO to them stops


def impact_label(p: Preview) -> str:
    """The confirm dialog's Impact line, from the preview's own numbers."""
    if not p.changed_pgs:
        return "no data moves (no PG changes its up set)"
    parts = []
    if p.shards_moved:
        size = "? bytes" if p.bytes_to_move is None else human_bytes(p.bytes_to_move)
        parts.append(f"{p.changed_pgs} of {p.total_pgs} PGs remapped: {p.shards_moved} shard copies, "
                     f"≈{size} to move")
    if p.inactive_pgs:
        parts.append(f"{p.inactive_pgs} PGs fall below min_size: client IO to them STOPS")
    if p.undersized_pgs:
        parts.append(f"{p.undersized_pgs} PGs become undersized (fewer copies than the pool size, nowhere to "
                     "re-replicate: degraded, not moved)")
    if not parts:
        parts.append(f"{p.changed_pgs} of {p.total_pgs} PGs change primary only: no data is copied")
    return "; ".join(parts)


# ------------------------------------------------------------------ OSD override weights

CEPH_OSD_IN = 0x10000  # 16.16 fixed point: 1.0 = in, 0 = out


def _crc32c_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes, seed: int = 0xFFFFFFFF) -> int:
    """Ceph's crc32c (Castagnoli, seed -1, no final inversion): the osdmap's own checksum."""
    c, t = seed, _CRC_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


def _weights_offset(b: bytes) -> tuple[int, int]:
    """(offset of the osd_weight entries, max_osd) in an encoded osdmap.

    OSDMap::encode: wrapper v8, then the client section: fsid, epoch, created, modified, pools,
    pool names, pool_max, flags, max_osd, osd_state, osd_weight.
    """
    off = 0

    def u32() -> int:
        nonlocal off
        if off + 4 > len(b):
            raise crushtool.CrushToolError("the osdmap is shorter than its encoding says")
        (v,) = struct.unpack_from("<I", b, off)
        off += 4
        return v

    if len(b) < 16 or b[0] != 8:
        raise crushtool.CrushToolError(f"osdmap encoding v{b[0] if b else '?'} is not the one cephtui can edit")
    off = 6
    if not 5 <= b[off] <= 10:  # client section: osd_state is a vector of u32 since v5
        raise crushtool.CrushToolError(f"osdmap client encoding v{b[off]} is not the one cephtui can edit")
    off += 6 + 16 + 4 + 8 + 8  # header, fsid, epoch, created, modified
    for _ in range(u32()):  # pools: int64 id, then pg_pool_t with its own length
        off += 8 + 2
        length = u32()  # read first: `off += u32()` would add to the offset from before the read
        off += length
    for _ in range(u32()):  # pool names: int64 id, string
        off += 8
        length = u32()
        off += length
    off += 4 + 4  # pool_max, flags
    max_osd = u32()
    n_state = u32()
    off += 4 * n_state
    n_weight = u32()
    if not n_state == n_weight == max_osd or off + 4 * max_osd > len(b) - 4:
        raise crushtool.CrushToolError("could not find the OSD weights in the osdmap encoding")
    return off, max_osd


def set_osd_weights(osdmap: bytes, weights: dict[int, float]) -> bytes:
    """A copy of an encoded osdmap with some OSDs' override weights (`osd reweight`; 0 = out, 1 = in).

    osdmaptool has no option for this (it marks one OSD out, none in or reweighted), so the
    osd_weight vector is found by walking the encoding and the trailing crc32c recomputed. The
    result is checked by the caller (osdmaptool must decode it and show the new weights).
    """
    off, max_osd = _weights_offset(osdmap)
    b = bytearray(osdmap)
    for osd, w in weights.items():
        if not 0 <= osd < max_osd:
            raise crushtool.CrushToolError(f"osd.{osd} is not in the osdmap (max_osd {max_osd})")
        # as the mon computes it (OSDMonitor: (int)((double)CEPH_OSD_IN * w))
        struct.pack_into("<I", b, off + 4 * osd, int(CEPH_OSD_IN * min(1.0, max(0.0, w))))
    struct.pack_into("<I", b, len(b) - 4, crc32c(bytes(b[:-4])))
    return bytes(b)


def check_weights(info: dict[str, Any], weights: dict[int, float]) -> None:
    """The patched map, as osdmaptool decodes it, has exactly the weights asked for."""
    got = {as_int(o.get("osd", -1)): as_float(o.get("weight", -1)) for o in dicts(as_dict(info).get("osds"))}
    for osd, w in weights.items():
        want = int(CEPH_OSD_IN * w) / CEPH_OSD_IN
        if osd not in got or abs(got[osd] - want) > 1e-4:
            raise crushtool.CrushToolError(f"could not emulate the weight change of osd.{osd} offline")


# ------------------------------------------------------------------ building the new crush

def _osd_ids(values: Any) -> list[int]:
    out = []
    for v in values if isinstance(values, (list, tuple)) else [values]:
        s = str(v).removeprefix("osd.")
        if not s.isdigit():
            raise crushtool.CrushToolError(f"cannot preview device class changes for '{v}' (give OSD ids)")
        out.append(int(s))
    return out


_DEVICE = re.compile(r"^device\s+(\d+)\s+(\S+)(?:\s+class\s+(\S+))?\s*$")
_TAKE_CLASS = re.compile(r"^\s*step\s+take\s+\S+\s+class\s+(\S+)")
_SHADOW_ID = re.compile(r"^\s*id\s+-\d+\s+class\s+(\S+)")


def set_device_classes(crush: bytes, ids: Sequence[int], cls: str | None) -> bytes:
    """Set (or with None remove) the class of some devices; the compiler rebuilds the shadow trees.

    Like the mon (CrushWrapper::cleanup_dead_classes), a class no device and no rule uses any
    more loses its shadow trees: the compiler would keep them empty, and their bucket ids would
    then shift the ids of buckets added later (ids are hashed by CRUSH).
    """
    text = crushtool.decompile(crush)  # exact weights: a plain round trip would move data by itself
    wanted = set(ids)
    lines = []
    for line in text.splitlines():
        m = _DEVICE.match(line)
        if m and int(m.group(1)) in wanted:
            line = f"device {m.group(1)} {m.group(2)}" + (f" class {cls}" if cls else "")
        lines.append(line)
    used = {m.group(3) for m in map(_DEVICE.match, lines) if m and m.group(3)}
    used |= {m.group(1) for m in map(_TAKE_CLASS.match, lines) if m}
    lines = [ln for ln in lines if not ((m := _SHADOW_ID.match(ln)) and m.group(1) not in used)]
    return crushtool.compile_text("\n".join(lines) + "\n")


def apply_op(crush: bytes, op: Operation) -> tuple[bytes, str | None]:
    """The crush map after `op`, and a note when the emulation is approximate or a no-op."""
    if op.crush_edit is None:
        return crush, None  # changes no CRUSH (or, like a rename, nothing CRUSH hashes)
    if op.crush_edit:
        try:
            return crushtool.apply_edit(crush, op.crush_edit), None
        except crushtool.CrushToolError as e:
            raise crushtool.CrushToolError(f"{op.title}: {e}") from None
    args = dict(op.args)
    if op.prefix == "osd crush set-device-class":
        return set_device_classes(crush, _osd_ids(args.get("ids", [])), str(args["class"])), None
    if op.prefix == "osd crush rm-device-class":
        return set_device_classes(crush, _osd_ids(args.get("ids", [])), None), None
    if op.prefix == "osd setcrushmap":
        return op.inbuf, None
    if op.prefix == "osd crush rule create-erasure":
        return crush, f"{op.title}: a new rule is used by no pool yet, so it moves nothing"
    return crush, f"{op.title}: not emulated; assumed to change no CRUSH"


def build_crush(crush: bytes, ops: Sequence[Operation]) -> tuple[bytes, list[str]]:
    notes: list[str] = []
    for op in ops:
        crush, note = apply_op(crush, op)
        if note:
            notes.append(note)
    return crush, notes


# ------------------------------------------------------------------ comparing mappings

def mapping_key(dump: dict[str, Any]) -> tuple[Any, ...]:
    """Everything in an osdmap (`osd dump` / `osdmaptool --dump json`) that decides PG up sets:
    CRUSH, each OSD's up/in/reweight, the pools' PG counts, sizes and rules, upmaps. Not the epoch:
    it also moves for pg_temp and flags, which change no up set, and moves all the time while data
    moves (a preview would otherwise always look stale during a backfill)."""
    # Lenient (as_int/dicts): a damaged dump gives a key that compares unequal, never an exception.
    dump = as_dict(dump)
    osds = tuple(sorted((as_int(o.get("osd", -1)), bool(o.get("up")), bool(o.get("in")),
                         round(as_float(o.get("weight", 0)), 4)) for o in dicts(dump.get("osds"))))
    pools = tuple(sorted((as_int(p.get("pool", -1)), str(p.get("pg_num")), str(p.get("pg_placement_num")),
                          str(p.get("size")), str(p.get("crush_rule"))) for p in dicts(dump.get("pools"))))
    upmaps = (len(as_list(dump.get("pg_upmap"))), str(dump.get("pg_upmap") or ""),
              str(dump.get("pg_upmap_items") or ""))
    return (dump.get("crush_version"), osds, pools, upmaps)


def staleness(client: Commands, p: Preview) -> str | None:
    """None while the osdmap still maps PGs as it did for the preview; else what changed, in words."""
    dump = client.mon("osd dump") or {}
    key = mapping_key(dump)
    if not p.key or key == p.key:
        return None
    old_crush, old_osds, old_pools, old_upmaps = p.key
    new_crush, new_osds, new_pools, new_upmaps = key
    changes: list[str] = []
    before = {o[0]: o for o in old_osds}
    for osd, up, in_, weight in new_osds:
        was = before.pop(osd, None)
        if was is None:
            changes.append(f"osd.{osd} added")
            continue
        if was[1] != up:
            changes.append(f"osd.{osd} {'up' if up else 'down'}")
        if was[2] != in_:
            changes.append(f"osd.{osd} {'in' if in_ else 'out'}")
        if was[3] != weight and was[2] == in_:
            changes.append(f"osd.{osd} reweight {was[3]:g} → {weight:g}")
    changes += [f"osd.{osd} removed" for osd in before]
    if old_crush != new_crush:
        changes.append(f"CRUSH changed (version {old_crush} → {new_crush})")
    if old_pools != new_pools:
        changes.append("pools changed")
    if old_upmaps != new_upmaps:
        changes.append("upmaps changed")
    return f"osdmap epoch {p.epoch} → {dump.get('epoch', '?')}: {', '.join(changes) or 'the mapping inputs changed'}"


def shards_moved(old: tuple[int, ...], new: tuple[int, ...], erasure: bool) -> int:
    if erasure:  # EC shards are positional: shard i lives on up[i]
        return sum(1 for i, osd in enumerate(new) if osd != NONE_OSD and (i >= len(old) or old[i] != osd))
    return len({o for o in new if o != NONE_OSD} - set(old))


Mapping = dict[str, tuple[int, ...]]


def mappings(osdmap: bytes, old_crush: bytes | None, new_crush: bytes, mark_out: int | None = None,
             mark_up_in: bool = False, new_osdmap: bytes | None = None
             ) -> tuple[dict[str, Any], Mapping, Mapping]:
    """(osdmap JSON, up sets before, up sets after): three tool runs, the expensive part.
    They run side by side: osdmaptool is single-threaded and the GIL is released while we wait.
    new_osdmap: the map after (OSD weights changed), else the same map with the new crush."""
    with ThreadPoolExecutor(max_workers=3) as pool:
        info = pool.submit(crushtool.osdmap_dump, osdmap)
        before = pool.submit(crushtool.map_pgs, osdmap, old_crush, None, mark_up_in)
        after = pool.submit(crushtool.map_pgs, new_osdmap or osdmap, new_crush, mark_out, mark_up_in)
        return info.result(), before.result(), after.result()


def summarize(info: dict[str, Any], before: Mapping, after: Mapping, new_crush: bytes, *,
              pg_bytes: dict[str, int] | None = None, pool_bytes: dict[int, int] | None = None,
              notes: Sequence[str] = ()) -> Preview:
    """Per-pool movement. pg_bytes: pgid -> logical bytes (`pg dump`); pool_bytes: pool id ->
    stored bytes (`df`), spread evenly over its PGs. With neither, bytes are None (unknown)."""
    info = as_dict(info)  # osdmaptool's JSON of another release: wrong-typed parts count as missing
    profiles = as_dict(info.get("erasure_code_profiles"))
    notes_ = list(notes)
    n_upmaps = len(as_list(info.get("pg_upmap"))) + len(as_list(info.get("pg_upmap_items")))
    if n_upmaps:
        notes_.append(f"{n_upmaps} upmap entries are applied on top of CRUSH; the mons drop those a new map "
                      f"invalidates, so the real movement can differ slightly")
    by_pool: dict[int, list[str]] = {}
    for pgid in before:
        by_pool.setdefault(as_int(pgid.split(".", 1)[0]), []).append(pgid)
    pools = []
    changed: set[str] = set()
    for p in sorted(dicts(info.get("pools")), key=lambda p: as_int(p.get("pool"))):
        pid, pg_num = as_int(p.get("pool")), max(0, as_int(p.get("pg_num")))
        erasure = as_int(p.get("type", 1)) == 3
        k = 1
        if erasure:  # an EC shard holds 1/k of the PG's logical bytes
            kv = as_str(as_dict(profiles.get(as_str(p.get("erasure_code_profile")))).get("k", "1"))
            k = max(1, int(kv)) if kv.isascii() and kv.isdigit() and len(kv) < 10 else 1
        per_pg: int | None = None
        if pool_bytes is not None and pid in pool_bytes:
            per_pg = pool_bytes[pid] // pg_num if pg_num else 0
        nbytes: int | None = 0 if (pg_bytes is not None or per_pg is not None) else None
        n_changed = n_shards = n_under = n_inactive = 0
        size, min_size = max(0, as_int(p.get("size"))), max(0, as_int(p.get("min_size")))
        for pgid in by_pool.get(pid, []):
            old, new = before[pgid], after.get(pgid, ())
            if new == old:
                continue
            changed.add(pgid)
            n_changed += 1
            if _copies(new) < size and _copies(new) < _copies(old):
                n_under += 1
                n_inactive += _copies(new) < min_size <= _copies(old)
            s = shards_moved(old, new, erasure)
            n_shards += s
            if nbytes is not None:
                b = pg_bytes.get(pgid, 0) if pg_bytes is not None else (per_pg or 0)
                nbytes += s * (b // k)
        pools.append(PoolMovement(pid, as_str(p.get("pool_name")) or str(pid), pg_num, n_changed, n_shards, nbytes,
                                  size, n_under, min_size, n_inactive))
    known = [pm.bytes_to_move for pm in pools]
    if pools:
        total_bytes = sum(b for b in known if b is not None) if all(b is not None for b in known) else None
    else:
        total_bytes = 0 if (pg_bytes is not None or pool_bytes is not None) else None
    return Preview(epoch=as_int(info.get("epoch")), pools=tuple(pools), total_pgs=len(before),
                   changed_pgs=len(changed), shards_moved=sum(pm.shards_moved for pm in pools),
                   bytes_to_move=total_bytes, new_crush=new_crush, changed=frozenset(changed), notes=tuple(notes_),
                   key=mapping_key(info), undersized_pgs=sum(pm.undersized_pgs for pm in pools),
                   inactive_pgs=sum(pm.inactive_pgs for pm in pools))


def _copies(up: tuple[int, ...]) -> int:
    return sum(1 for o in up if o != NONE_OSD)


def compare(osdmap: bytes, old_crush: bytes | None, new_crush: bytes, *, mark_out: int | None = None,
            mark_up_in: bool = False, pg_bytes: dict[str, int] | None = None, pool_bytes: dict[int, int] | None = None,
            notes: Sequence[str] = ()) -> Preview:
    """Pure: binaries in, Preview out (no cluster). old_crush None = the osdmap's own crush;
    mark_up_in for synthetic (`--createsimple`) maps."""
    t0 = time.monotonic()
    info, before, after = mappings(osdmap, old_crush, new_crush, mark_out, mark_up_in)
    result = summarize(info, before, after, new_crush, pg_bytes=pg_bytes, pool_bytes=pool_bytes, notes=notes)
    return replace(result, seconds=time.monotonic() - t0)


# ------------------------------------------------------------------ against a live cluster

def fetch_osdmap(client: Commands) -> tuple[bytes, int]:
    out, outs = client.mon_raw("osd getmap")
    m = re.search(r"epoch\s+(\d+)", outs or "")
    return out, int(m.group(1)) if m else 0


def pg_sizes(client: Commands, total_pgs: int) -> tuple[dict[str, int] | None, dict[int, int] | None, str | None]:
    """(pg_bytes, pool_bytes, note): per-PG bytes from `pg dump` on small clusters, else `df`."""
    try:
        if total_pgs <= PG_DUMP_LIMIT:
            stats = pg_stats_list(client.mgr("pg dump", dumpcontents=["pgs"]))
            sizes = {str(s.get("pgid")): int((s.get("stat_sum") or {}).get("num_bytes", 0) or 0) for s in stats}
            return sizes, None, None
        df = client.mon("df")
        pools = {int(p["id"]): int((p.get("stats") or {}).get("stored", 0) or 0)
                 for p in (df or {}).get("pools", []) if "id" in p}
        return None, pools, "bytes estimated as pool stored / pg_num (cluster too large for a full pg dump)"
    except (CephError, ValueError, TypeError, KeyError) as e:
        return None, None, f"no byte estimate: {e}"


def preview_map(client: Commands, new_crush: bytes, notes: Sequence[str] = (),
                osdmap: tuple[bytes, bytes] | None = None) -> Preview:
    """Preview installing `new_crush`. `osdmap` = (osdmap, its crush) when already fetched."""
    if osdmap is None:
        om, _ = fetch_osdmap(client)
        old = crushtool.export_crush(om)
    else:
        om, old = osdmap
    return _with_bytes(client, om, old, new_crush, None, notes)


def osd_weights(ops: Sequence[Operation]) -> dict[int, float]:
    """The override weights the operations set, the last one winning (as the mon would apply them)."""
    out: dict[int, float] = {}
    for op in ops:
        out.update(op.osd_weights or ())
    return out


def preview(client: Commands, ops: Sequence[Operation]) -> Preview:
    """Preview a sequence of operations, applied in order to an offline copy of the current map."""
    om, _ = fetch_osdmap(client)
    old = crushtool.export_crush(om)
    new, notes = build_crush(old, ops)
    return _with_bytes(client, om, old, new, None, notes, osd_weights(ops))


def _with_bytes(client: Commands, om: bytes, old: bytes, new: bytes, mark_out: int | None,
                notes: Sequence[str], weights: dict[int, float] | None = None) -> Preview:
    t0 = time.monotonic()
    notes = list(notes)
    if weights:
        osds = dicts(as_dict(crushtool.osdmap_dump(om)).get("osds"))
        existing = {as_int(o.get("osd", -1)) for o in osds}
        down = sorted(as_int(o.get("osd", -1)) for o in osds
                      if not o.get("up") and weights.get(as_int(o.get("osd", -1)), 0) > 0)
        if down:  # in (or reweighted) but down: CRUSH picks it, the up set leaves it out until it boots
            notes.append(", ".join(f"osd.{i}" for i in down) + " down: PGs CRUSH maps to it stay undersized "
                         "until it is up, and then backfill onto it (counted here as the cluster is now)")
        gone = sorted(i for i in weights if i not in existing)
        if gone:  # the mon refuses these itself, with its own words; preview the rest
            notes.append(", ".join(f"osd.{i}" for i in gone) + " does not exist in the osdmap: the monitor will "
                         "refuse it")
            weights = {i: w for i, w in weights.items() if i not in gone}
    new_om = set_osd_weights(om, weights) if weights else None
    info, before, after = mappings(om, old, new, mark_out, new_osdmap=new_om)
    if new_om is not None:
        check_weights(crushtool.osdmap_dump(new_om), weights or {})
    pg_bytes: dict[str, int] | None = {}  # nothing moves: zero bytes, no need to ask the mgr
    pool_bytes: dict[int, int] | None = None
    if any(after.get(pgid) != up for pgid, up in before.items()):  # only ask the mgr when something moves
        pg_bytes, pool_bytes, note = pg_sizes(client, len(before))
        notes += [note] if note else []
    result = summarize(info, before, after, new, pg_bytes=pg_bytes, pool_bytes=pool_bytes, notes=notes)
    return replace(result, seconds=time.monotonic() - t0)
