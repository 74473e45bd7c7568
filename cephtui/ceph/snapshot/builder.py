"""Build a ClusterSnapshot from a handful of commands, off the UI thread.

The builder keeps small caches between polls: maps that rarely change (`osd
dump`, `mgr dump`, `quorum_status`) are fetched again only when their epoch in
`status` moves, and stuck-PG queries run only while some PG is not clean. So a
steady-state poll costs five cheap commands, whatever the cluster's size.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from cephtui.ceph.cephfs.model import FsStatus
from cephtui.ceph.cephfs.reader import read_fs_status
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError, CephMgrDown, CephPermissionError, CephTimeout
from cephtui.ceph.mgrgate import NO_MGR
from cephtui.ceph.snapshot import osdmap, osdtree, parse, pgdump
from cephtui.ceph.snapshot import pools as pools_mod
from cephtui.ceph.snapshot import users as users_mod
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import (
    ROUTINE_FLAGS,
    FlagState,
    LogEntry,
    MgrSummary,
    MonSummary,
    PGBrief,
    Ratios,
    StuckPG,
)
from cephtui.ceph.snapshot.pgdump import STUCK_KINDS

DEFAULT_STUCK_THRESHOLD = 300  # mon_pg_stuck_threshold's default, when the config cannot be read
# `pg dump_stuck` carries a full pg_stat per PG (6.6 MB for 3,000 stuck PGs, ~50 ms to decode here).
# A PG counts as stuck only after mon_pg_stuck_threshold (5 minutes by default), so asking every
# 10 s instead of at every refresh changes what the table says by seconds, not by kind.
STUCK_EVERY = 10.0
PER_OSD_FLAGS = ("noup", "nodown", "noin", "noout")
LOG_KEEP = 500
MGR_SERVED = ("pg stat", "pg dump", "pg dump_stuck", "osd df", "osd perf", "osd pool stats",
              "osd pool autoscale-status")


class LogSource(Protocol):
    def drain(self) -> list[LogEntry]: ...


@dataclass
class SnapshotBuilder:
    client: Cluster
    log: LogSource | None = None
    _osd_epoch: int = -1
    _ratios: Ratios = field(default_factory=Ratios)
    _mgr_epoch: int = -1
    _mgr: MgrSummary | None = None
    _quorum_key: tuple[Any, ...] = ()
    _mons: MonSummary | None = None
    _log: deque[LogEntry] = field(default_factory=lambda: deque(maxlen=LOG_KEEP))
    _log_keys: set[tuple[str, str, int, str]] = field(default_factory=set)
    _log_lost: int = 0  # drained entries that never fit into a snapshot (more than LOG_KEEP at once)
    _log_total: int = 0  # entries that entered _log: the number of the newest one, for the pane's gap count
    _osd_dump: dict[str, Any] | None = None
    _tree_key: tuple[int, bool] = (-1, False)
    _tree: dict[str, Any] | None = None
    _shadow_tree: dict[str, Any] | None = None
    _crush_epoch: int = -1
    _crush: Any = None
    _rules_epoch: int = -1
    _flags_seen: dict[tuple[str, str], float] = field(default_factory=dict)
    _rules: list[dict[str, Any]] | None = None
    _pgs: pgdump.PGTable = field(default_factory=pgdump.PGTable)
    _osd_builder: osdtree.OSDTableBuilder = field(default_factory=osdtree.OSDTableBuilder)
    _stuck_threshold: int | None = None
    _stuck_at: float = -1e9  # monotonic time of the last `pg dump_stuck`
    _stuck_last: tuple[StuckPG, ...] = ()

    def build(self, *, pg_table: bool = False, osd_tree: bool = False, shadow: bool = False,
              crush: bool = False, pools: bool = False, users: bool = False,
              cephfs: bool = False) -> ClusterSnapshot:
        """One poll. Raises CephTimeout only when the mon does not answer `status`.

        After that, a section that fails (caps, a hung mgr) becomes a note and
        the rest of the snapshot stands; once the mon or the mgr has timed out,
        the poll skips its other commands instead of waiting on each in turn.
        """
        t0 = time.monotonic()
        notes: list[str] = []
        silent: set[str] = set()
        unavailable: dict[str, str] = {}
        c = self.client

        def ask(target: str, what: str, *args: Any, raw: bool = False, **kw: Any) -> Any:
            """Parsed JSON, or with raw=True the answer's bytes (for the big ones, decoded by pgdump)."""
            if target in silent:
                unavailable.setdefault(args[0], f"the {target} did not answer")
                return None
            try:
                if raw:
                    kw.setdefault("format", "json")
                    return (c.mon_raw if target == "mon" else c.mgr_raw)(*args, **kw)[0]
                return (c.mon if target == "mon" else c.mgr)(*args, **kw)
            except CephMgrDown as e:  # not sent (mgrgate): one note, every mgr value says why
                silent.add(target)
                unavailable[args[0]] = e.message
                if not any(n.startswith("mgr down") for n in notes):
                    notes.append(e.message)
            except CephTimeout:
                silent.add(target)
                unavailable[args[0]] = f"the {target} did not answer within the op timeout"
                notes.append(f"{what}: the {target} did not answer; skipped its other commands this time")
            except CephPermissionError:
                # Which capability is missing, from the cluster's own command table.
                unavailable[args[0]] = why = self._denied(args[0])
                notes.append(f"{what}: {why}")
            except CephError as e:
                unavailable[args[0]] = e.message
                notes.append(f"{what}: {e.message}")
            return None

        def unreadable(prefix: str, e: ValueError) -> None:
            """An answer that is not JSON at all (parse.ParseError): a note, not a failed poll."""
            unavailable[prefix] = str(e)
            notes.append(str(e))

        status = c.mon("status")
        pgmap = status.get("pgmap") or {}
        osds = parse.parse_osd_stat(status.get("osdmap") or {})
        health = parse.parse_health(ask("mon", "health detail", "health", detail="detail")
                                    or status.get("health") or {})

        quorum_key = ((status.get("monmap") or {}).get("epoch"), tuple(status.get("quorum_names") or ()))
        if quorum_key != self._quorum_key or self._mons is None:
            quorum = ask("mon", "quorum_status", "quorum_status")
            if quorum is not None:
                self._mons, self._quorum_key = parse.parse_quorum(quorum), quorum_key
        mons = self._mons or MonSummary(names=tuple(status.get("quorum_names") or ()),
                                        quorum=tuple(status.get("quorum_names") or ()))

        mgr_stat = ask("mon", "mgr stat", "mgr stat") or {}
        if mgr_stat and (mgr_stat.get("epoch") != self._mgr_epoch or self._mgr is None):
            dump = ask("mon", "mgr dump", "mgr dump")
            if dump is not None:
                self._mgr, self._mgr_epoch = parse.parse_mgr(dump), mgr_stat.get("epoch", -1)
        # Without `mgr stat` (caps, or Nautilus, which has no such command), status still says whether a
        # mgr is available (Pacific on), and Nautilus's status carries the whole mgrmap: names too.
        mgr = self._mgr or parse.parse_mgr(mgr_stat or status.get("mgrmap") or {})
        if mgr_stat and not mgr_stat.get("available"):
            mgr = replace(mgr, available=False)  # the cached `mgr dump` predates the mgr's death
        held = c.mgr_refusal()  # e.g. a mgr command left unanswered at the mon
        if held is not None or not mgr.available:
            silent.add("mgr")

        if osds.epoch != self._osd_epoch:
            raw = ask("mon", "osd dump", "osd dump", raw=True)
            try:
                dump = osdmap.lean_dump(raw) if raw is not None else None
            except parse.ParseError as e:
                unreadable("osd dump", e)
                dump = None
            if dump is not None:
                self._ratios, self._osd_epoch, self._osd_dump = parse.parse_ratios(dump), osds.epoch, dump

        df = ask("mon", "df", "df", detail="detail")
        capacity = parse.parse_df(df) if df is not None else parse.capacity_from_pgmap(pgmap)

        stuck: tuple[StuckPG, ...] | None = ()
        mgr_down = ""
        table = pool_states = columns = None
        pg_stat = ask("mgr", "pg stat", "pg stat") if "mgr" not in silent else None
        if pg_stat is not None:
            pgs = parse.parse_pg_stat(pg_stat)
            if pg_table:
                # The PG table and the stuck PGs are shown on the PGs tab only: fetched only then.
                try:
                    table, pool_states, columns = self._pg_table(ask)
                except parse.ParseError as e:
                    unreadable("pg dump", e)
            if pgs.clean != pgs.num_pgs and pg_table:
                try:
                    stuck = self._stuck(ask)
                except parse.ParseError as e:
                    unreadable("pg dump_stuck", e)
                    stuck = None
            elif pgs.clean != pgs.num_pgs:
                stuck = None
        else:
            # No answer from the mgr (down, hung, or no mgr caps): the mon keeps the last PG digest it got.
            pgs = parse.parse_pgs_by_state(pgmap)
            stuck = None  # never "none stuck" without an answer
            if "mgr" in silent:  # no mgr, a mgr command held at the mon, or one timed out just now
                why = NO_MGR if not mgr.available else held or unavailable.get("pg stat") or "mgr down: no answer"
                if not why.startswith("mgr down"):
                    why = f"mgr down: {why}"
                mgr_down = why
                notes.append(f"{why}; PG, capacity and IO figures are the last ones the mgr reported")
                for prefix in MGR_SERVED:  # skipped this poll: each pane says why
                    unavailable[prefix] = why
            else:
                for prefix in ("pg dump", "pg dump_stuck"):  # not asked after `pg stat` failed
                    unavailable.setdefault(prefix, unavailable.get("pg stat", "the mgr did not answer"))

        try:
            osd_table = self._osd_table(ask, osds.epoch, shadow, "mgr" not in silent) if osd_tree else None
        except parse.ParseError as e:
            unreadable("osd df", e)
            osd_table = None
        crush_map = self._crush_map(ask, osds.epoch) if crush else None
        pool_table = self._pools(ask, osds.epoch, capacity, "mgr" not in silent) if pools else None
        auth_ls = ask("mon", "auth ls", "auth ls") if users else None
        auth = users_mod.parse_auth_ls(auth_ls) if auth_ls is not None else None  # None: refused, see `unavailable`

        fs_status = self._cephfs(unavailable, notes, mgr_down or ("the mgr did not answer" if "mgr" in silent
                                                                  else "")) if cephfs and "mon" not in silent else None

        if "mgr" in silent and not mgr_down:  # a later mgr command timed out this poll
            mgr_down = next((why for p, why in unavailable.items() if p in MGR_SERVED), "mgr down: no answer")
            mgr_down = mgr_down if mgr_down.startswith("mgr down") else f"mgr down: {mgr_down}"

        flags = self._flags()

        if self.log is not None:
            self._absorb_log(self.log.drain())

        return ClusterSnapshot(
            fsid=status.get("fsid", ""), taken_at=time.time(), poll_ms=(time.monotonic() - t0) * 1000,
            health=health, mons=mons, mgr=mgr, osds=osds, ratios=self._ratios, capacity=capacity,
            io=parse.parse_io(pgmap), pgs=pgs, recovery=parse.parse_recovery(pgmap), stuck=stuck,
            pg_table=table, pool_pg_states=pool_states, pg_columns=columns, log=tuple(self._log), notes=tuple(notes),
            unavailable=tuple(unavailable.items()), mgr_down=mgr_down,
            log_dropped=self._log_lost + int(getattr(self.log, "dropped", 0)), log_total=self._log_total,
            progress=parse.parse_progress(status.get("progress_events")),
            osd_table=osd_table, crush=crush_map, pool_table=pool_table, users=auth, flags=flags, cephfs=fs_status,
        )

    def _cephfs(self, unavailable: dict[str, str], notes: list[str], mgr_down: str) -> FsStatus | None:
        """The file systems (the File systems tab): the mon's map, the mgr's counters unless it is silent."""
        try:
            return read_fs_status(self.client, mgr_down)
        except CephPermissionError:
            unavailable["fs dump"] = why = self._denied("fs dump")
        except CephError as e:
            unavailable["fs dump"] = why = e.message
        notes.append(f"file systems: {why}")
        return None

    def _denied(self, prefix: str) -> str:
        who = self.client.spec.name or "this identity"
        cap = self.client.required_cap(prefix)
        return f"{who} may not run `{prefix}` (access denied): it needs {cap}"

    def expire(self) -> None:
        """The next build fetches everything it would fetch (the `r` key): stuck PGs too."""
        self._stuck_at = -1e9

    def _pg_table(self, ask: Any) -> tuple[list[PGBrief] | None, Any, Any]:
        """`pg dump pgs_brief`: only the pieces that changed since the last one are decoded."""
        raw = ask("mgr", "pg dump", "pg dump", dumpcontents=["pgs_brief"], raw=True)
        if raw is None:
            return None, None, None
        if not self._pgs.update(raw):  # another release's shape: the generic parser
            self._pgs.replace(parse.parse_pg_brief(parse.loads_answer(raw, "pg dump")))
        return self._pgs.rows, self._pgs.pool_states, self._pgs.columns

    def _stuck(self, ask: Any) -> tuple[StuckPG, ...] | None:
        """One `pg dump_stuck` for all five kinds (the mgr answers the union), sorted into kinds here
        with the cluster's own mon_pg_stuck_threshold, as the mgr sorts them. None when the mgr did
        not answer (the note says why; the pane keeps the last table rather than show none stuck)."""
        if self._stuck_threshold is None:
            value = ask("mon", "config get", "config get", who="mgr", key="mon_pg_stuck_threshold", raw=True)
            try:
                self._stuck_threshold = int(value.strip()) if value is not None else DEFAULT_STUCK_THRESHOLD
            except ValueError:
                self._stuck_threshold = DEFAULT_STUCK_THRESHOLD
        threshold = self._stuck_threshold
        if time.monotonic() - self._stuck_at < STUCK_EVERY:
            return self._stuck_last
        raw = ask("mgr", "pg dump_stuck", "pg dump_stuck", stuckops=list(STUCK_KINDS), threshold=threshold,
                  raw=True)
        if raw is None:
            return None
        entries = pgdump.decode_array(raw, "stuck_pg_stats", pgdump._Stuck)
        if entries is None:
            entries = pgdump.generic_stuck(parse.loads_answer(raw, "pg dump_stuck"))
        self._stuck_at = time.monotonic()
        self._stuck_last = pgdump.classify_stuck(entries, threshold, time.time())
        return self._stuck_last

    def _osd_table(self, ask: Any, epoch: int, shadow: bool, mgr_up: bool) -> osdtree.OSDTable | None:
        """`osd tree` only when the osdmap moved; usage and latency (mgr) every poll while shown."""
        if (epoch, shadow) != self._tree_key or self._tree is None:
            tree = ask("mon", "osd tree", "osd tree")
            shadow_tree = ask("mon", "osd crush tree", "osd crush tree", shadow="--show-shadow") if shadow else None
            if tree is None:
                return None
            self._tree, self._shadow_tree, self._tree_key = tree, shadow_tree, (epoch, shadow)
        df = ask("mgr", "osd df", "osd df", raw=True) if mgr_up else None
        perf = ask("mgr", "osd perf", "osd perf", raw=True) if mgr_up else None
        table = self._osd_builder.build(self._tree, osdtree.usage_from_raw(df) if df else {},
                                        osdtree.latency_from_raw(perf) if perf else {}, self._osd_dump, self._ratios,
                                        shadow_tree=self._shadow_tree if shadow else None)
        return replace(table, epoch=epoch)

    def _flags(self) -> tuple[FlagState, ...]:
        """Flags from the cached `osd dump`, each with the time this builder first saw it set."""
        d = self._osd_dump or {}
        now_set: list[tuple[str, str]] = [(f, "") for f in d.get("flags_set") or str(d.get("flags", "")).split(",")
                                          if f and f not in ROUTINE_FLAGS]
        for node, fl in (d.get("crush_node_flags") or {}).items():
            now_set += [(f, str(node)) for f in fl]  # a CRUSH bucket (host, rack …) set with set-group
        for cls, fl in (d.get("device_class_flags") or {}).items():
            now_set += [(f, f"class {cls}") for f in fl]
        for o in d.get("osds") or ():
            now_set += [(f, f"osd.{o.get('osd')}") for f in o.get("state") or () if f in PER_OSD_FLAGS]
        now = time.time()
        self._flags_seen = {k: self._flags_seen.get(k, now) for k in now_set}
        return tuple(FlagState(f, scope, self._flags_seen[(f, scope)]) for f, scope in sorted(set(now_set)))

    def _pools(self, ask: Any, epoch: int, capacity: Any, mgr_up: bool) -> tuple[pools_mod.PoolInfo, ...]:
        """Definitions from the cached `osd dump`; rule names when the epoch moves; rates every poll."""
        if epoch != self._rules_epoch or self._rules is None:
            rules = ask("mon", "osd crush rule dump", "osd crush rule dump")
            if rules is not None:
                self._rules, self._rules_epoch = rules, epoch
        stats = ask("mgr", "osd pool stats", "osd pool stats") if mgr_up else None
        autoscale = ask("mgr", "osd pool autoscale-status", "osd pool autoscale-status") if mgr_up else None
        return pools_mod.build_pools(self._osd_dump, capacity.pools, stats, autoscale, self._rules)

    def _crush_map(self, ask: Any, epoch: int) -> Any:
        if epoch != self._crush_epoch or self._crush is None:
            from cephtui.ceph.crush import model as crush
            dump = ask("mon", "osd crush dump", "osd crush dump")
            if dump is None:
                return self._crush
            self._crush, self._crush_epoch = crush.parse_crush(dump, self._osd_dump), epoch
        return self._crush

    def _absorb_log(self, entries: list[LogEntry]) -> None:
        keep = self._log.maxlen or LOG_KEEP
        if len(entries) > keep:  # a flood: the older ones would be pushed out before any snapshot shows them
            self._log_lost += len(entries) - keep
            entries = entries[-keep:]
        for e in entries:
            if e.key not in self._log_keys:
                if len(self._log) == self._log.maxlen:
                    self._log_keys.discard(self._log[0].key)
                self._log.append(e)
                self._log_keys.add(e.key)
                self._log_total += 1
