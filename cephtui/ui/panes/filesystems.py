"""File systems: each CephFS with its ranks, standby daemons, pools and flags (`ceph fs status`), and its clients
(every active rank's `session ls`), sorted by the caps they hold.

The map and the mgr's counters come with the poll (Fetch(cephfs=True)); the clients are asked of the MDS daemons
themselves, on a thread of the pane's own after each snapshot, so an MDS that does not answer is a line in the
clients box (bounded by the op timeout, then refused at once until it answers: ceph/cephfs/tell.py), never a
poll that waits. A client that a health check names (MDS_CLIENT_LATE_RELEASE: "failing to respond to capability
release", MDS_CLIENT_RECALL: "... to cache pressure", MDS_CLIENT_OLDEST_TID) is marked, with the check and since
when this session has seen it.
"""
from __future__ import annotations

import time

from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from cephtui.ceph.cephfs import ops as fs_ops
from cephtui.ceph.cephfs import ranks as fs_ranks
from cephtui.ceph.cephfs.model import Clients, FileSystem, FsStatus, Session
from cephtui.ceph.cephfs.reader import read_clients
from cephtui.ceph.errors import CephError
from cephtui.ceph.format import human_bytes, human_duration
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.models import HealthCheck
from cephtui.ui import palette
from cephtui.ui.dialog_flows import flow_running, in_thread
from cephtui.ui.dialog_types import readable
from cephtui.ui.pane import Fetch, Pane
from cephtui.ui.panes import fs_rank_forms as rank_forms
from cephtui.ui.panes.fs_clients import COLUMNS, client_matches, client_rows, fs_checks, named_clients, short_version
from cephtui.ui.panes.fs_io import ClientIOTable, io_detail
from cephtui.ui.widgets.filterinput import FilterInput
from cephtui.ui.widgets.tables import set_subtitle
from cephtui.ui.widgets.virtualtable import VirtualTable

NO_FS = ("No file system. One is made of two pools and `ceph fs new NAME META DATA` (or `ceph fs volume create "
         "NAME`, which makes the pools too), and needs an MDS daemon running (`ceph orch apply mds NAME`, or "
         "ceph-mds by hand).")


def _num(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


class FileSystemsPane(Pane):
    HELP = ("The ranks' numbers are the mgr's (`ceph fs status`); the clients are each active rank's `session ls`, "
            "asked of the MDS itself. A client a health check names is marked ⚠ and listed first.")
    ACTION_HELP = {
        "evict": ("evict the selected client (`ceph tell mds.FS:RANK client evict id=N`; its name typed): it is "
                  "blocklisted by default, so its mount hangs or fails until remounted"),
        "requests": ("the requests in flight at each active rank (`dump_ops_in_flight`), oldest first, and the client "
                     "each waiting one is held up by (the caps the MDS is taking back from it); E there evicts it"),
        "blocklist": "the OSD blocklist (`ceph osd blocklist ls`): who is refused, until when; D removes an entry",
        "io": "each client's IO and latency, as cephfs-top (`fs perf stats`, the mgr's stats module), and back",
        "io_sort": "sort the IO view: write or read bytes/s, metadata, write or read latency, cap hit",
        "enable_stats": "enable the mgr's stats module, which the IO view needs (`ceph mgr module enable stats`)",
        "max_mds": "how many ranks are active (`ceph fs set FS max_mds N`): the standbys it takes, the ranks it stops",
        "joinable": "let standbys take failed ranks, or stop them (`ceph fs set FS joinable`)",
        "standby_replay": "spare daemons follow the active ranks, or not (`ceph fs set FS allow_standby_replay`)",
        "fail_rank": "fail a rank over to a standby (`ceph mds fail FS:RANK`; refused with nobody to take it)",
        "next_fs": "show the next file system",
        "focus_filter": "filter the clients (host, key, address, root, kind, state)",
    }
    MUTATING = {"evict": "evicting a client", "enable_stats": "enabling a mgr module",
                "max_mds": "changing max_mds", "joinable": "changing joinable",
                "standby_replay": "changing standby-replay", "fail_rank": "failing a rank"}
    BINDINGS = [
        Binding("E", "evict", "Evict"),
        Binding("s", "requests", "Requests"),
        Binding("b", "blocklist", "Blocklist"),
        Binding("i", "io", "IO"),
        Binding("o", "io_sort", "Sort IO", show=False),
        Binding("M", "enable_stats", "Stats module", show=False),
        Binding("m", "max_mds", "max_mds"),
        Binding("F", "fail_rank", "Fail rank"),
        Binding("J", "joinable", "Joinable", show=False),
        Binding("R", "standby_replay", "Standby-replay", show=False),
        Binding("f", "next_fs", "Next fs"),
        Binding("slash", "focus_filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.status: FsStatus | None = None
        self.missing: str | None = None  # why the file systems could not be read
        self.checks: list[HealthCheck] = []
        self.selected_fs = ""
        self.clients: Clients | None = None  # of the selected file system, as last read
        self.reading = False  # a clients' read is under way (one at a time)
        self.filter_text = ""
        self._named: dict[int, list[str]] = {}
        self._named_since: dict[tuple[int, str], float] = {}  # (client, check) -> when this session first saw it
        self._read_at: dict[int, float] = {}  # rank -> when it last gave its sessions
        self._seen: dict[str, str] = {}  # address -> the client it was, for the blocklist dialog
        self._last_read: dict[int, float] = {}  # rank not answering -> when its clients shown were read
        self.io_mode = False  # the IO view (fs perf stats) instead of the sessions

    def compose(self) -> ComposeResult:
        yield Static(id="fs-summary")
        yield Static(id="fs-detail", classes="box")
        yield Static(id="fs-health", classes="box")
        with Vertical(id="fs-clients-box", classes="box"):
            yield FilterInput("filter clients: host, key, address, root, kind …", id="fs-filter")
            yield VirtualTable(COLUMNS, self._cells, key=lambda s: f"{s.rank}:{s.id}", id="fs-clients")
            yield ClientIOTable(self._io_changed, id="fs-io")
        yield Static(id="fs-client", classes="box")

    def on_mount(self) -> None:
        self.query_one("#fs-detail").border_title = "File system (ceph fs status)"
        self.query_one("#fs-health").border_title = "Health checks about file systems"
        self.query_one("#fs-clients-box").border_title = "Clients (session ls of each active rank)"
        self.query_one("#fs-client").border_title = "Selected client"
        self.query_one("#fs-health").display = False
        self.io_table.display = False
        self.watch(self.io_table, "cursor", self._show_client, init=False)
        self.watch(self.vtable, "cursor", self._show_client, init=False)
        self._summary()
        self._show_client()

    @property
    def vtable(self) -> VirtualTable[Session]:
        return self.query_one("#fs-clients", VirtualTable)

    @property
    def io_table(self) -> ClientIOTable:
        return self.query_one("#fs-io", ClientIOTable)

    def focus_table(self) -> None:
        (self.io_table if self.io_mode else self.vtable).focus()

    def fetch(self) -> Fetch:
        return Fetch(cephfs=True)

    # ------------------------------------------------------------ snapshots
    def show(self, snap: ClusterSnapshot) -> None:
        self.missing = snap.missing("fs dump") if snap.cephfs is None else None
        self.checks = fs_checks(snap.health.checks)
        self._mark_named()
        if snap.cephfs is not None:
            self.status = snap.cephfs
            names = [f.name for f in self.status.filesystems]
            if self.selected_fs not in names:
                self.selected_fs = names[0] if names else ""
                self.clients = None
                if self.io_mode:
                    self.io_table.opened(self.selected_fs)
                self._refresh_rows()
        self._summary()
        self._detail()
        self._health()
        self._read_clients()

    def on_resize(self) -> None:
        self._detail()  # the pools beside the ranks or under them

    def retheme(self) -> None:
        self._summary()
        self._detail()
        self._health()
        self._show_client()

    @property
    def fs(self) -> FileSystem | None:
        return self.status.get(self.selected_fs) if self.status is not None else None

    def _mark_named(self) -> None:
        self._named = named_clients(self.checks)
        now = time.time()
        seen = {(cid, code) for cid, codes in self._named.items() for code in codes}
        self._named_since = {k: self._named_since.get(k, now) for k in seen}

    # ------------------------------------------------------------ clients, read off the UI thread
    def _read_clients(self) -> None:
        fs, status = self.fs, self.status
        if self.reading or fs is None or status is None:
            return
        self.reading = True
        client = self.services.client

        def read() -> None:
            try:
                got = read_clients(client, status, fs.name)
            except CephError as e:  # read_clients keeps a rank's failure as a problem; this is a surprise
                got = Clients(fs.name, problems=(e.message,))
            self.app.call_from_thread(self._got_clients, got)

        self.run_worker(read, thread=True, group="fs-clients", exit_on_error=False)

    def _got_clients(self, got: Clients) -> None:
        self.reading = False
        if got.fs != self.selected_fs:
            return  # the admin switched file systems while it was read
        kept: tuple[Session, ...] = ()
        self._last_read = {r: t for r, t in self._last_read.items() if r in got.unanswered}
        if got.unanswered and self.clients is not None and self.clients.fs == got.fs:
            # A rank that did not answer keeps the clients it last gave, said to be as of then (a blank list
            # would say that nobody has it mounted).
            kept = tuple(s for s in self.clients.sessions if s.rank in got.unanswered)
            for rank in got.unanswered:
                self._last_read.setdefault(rank, self._read_at.get(rank, 0.0))
        now = time.time()
        self._read_at = {**self._read_at, **{s.rank: now for s in got.sessions}}
        self._seen.update({s.addr: f"{s.entity} ({s.key_name or '?'}) on {s.hostname or '?'}"
                           for s in got.sessions if s.addr})
        self.clients = Clients(got.fs, got.sessions + kept, got.problems, got.unanswered)
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        box = self.query_one("#fs-clients-box")
        if self.io_mode:
            self._io_changed()
            return
        if self.clients is None:
            self.vtable.set_rows([])
            set_subtitle(box, "reading…" if self.fs is not None else "")
            self._show_client()
            return
        rows = client_rows(self.clients.sessions, self.filter_text, self._named)
        self.vtable.set_rows(rows)
        total = len(self.clients.sessions)
        note = f" match '{readable(self.filter_text, 40)}'" if self.filter_text.strip() else ""
        problems = "; ".join(self.clients.problems + tuple(
            f"rank {rank}'s clients as read at {time.strftime('%H:%M:%S', time.localtime(at))}"
            for rank, at in sorted(self._last_read.items()) if at))
        set_subtitle(box, (f"{len(rows)} of {total}{note}" if note else f"{total} client session"
                           + ("s" if total != 1 else "")) + (f" · ⚠ {problems}" if problems else ""))
        self._show_client()

    # ------------------------------------------------------------ drawing
    def _summary(self) -> None:
        out = self.query_one("#fs-summary", Static)
        if self.missing is not None:
            out.update(palette.markup("bold warn", f"⚠ file systems unavailable: {escape(self.missing)}"))
            return
        if self.status is None:
            out.update("[i]reading ceph fs dump…[/]")
            return
        st = self.status
        n = len(st.filesystems)
        parts = [f"[b]{n}[/] file system{'s' if n != 1 else ''}"]
        active = sum(len(f.active) for f in st.filesystems)
        replay = sum(len(f.standby_replay) for f in st.filesystems)
        parts.append(f"MDS: {active} active, {replay} standby-replay, {len(st.standbys)} standby")
        if n > 1:
            parts.append(f"showing {escape(self.selected_fs)} (f: next)")
        for note in st.notes:
            parts.append(palette.markup("warn", f"⚠ {escape(note)}"))
        if self.io_mode:
            parts.append(self.io_table.state())
        out.update(" · ".join(parts))

    def _detail(self) -> None:
        out = self.query_one("#fs-detail", Static)
        fs, st = self.fs, self.status
        if fs is None or st is None:
            out.update(Text(NO_FS if st is not None else "", style=palette.style("muted")))
            return
        self.query_one("#fs-detail").border_title = f"{fs.name} (ceph fs status {fs.name})"
        state_style = {"healthy": "ok", "degraded": "bold warn", "damaged": "bold err", "offline": "bold err"}
        head = Text.assemble((fs.state_words, palette.style(state_style.get(fs.state_words, "warn"))),
                             f" · fscid {fs.fscid} · epoch {fs.epoch} · max_mds {fs.max_mds} · ",
                             ("joinable" if fs.joinable else "not joinable",
                              "" if fs.joinable else palette.style("bold warn")),
                             f" · standby-replay {'allowed' if fs.allow_standby_replay else 'off'}"
                             f" · session timeout {fs.session_timeout}s"
                             + (f" · clients {fs.clients}" if fs.clients is not None else "")
                             + (" · refusing new client sessions" if fs.refuse_client_session else ""))
        ranks = Table(box=None, padding=(0, 1), show_edge=False, expand=False)
        for name in ("rank", "state", "mds", "reqs/s", "dentries", "inodes", "dirs", "caps"):
            ranks.add_column(name, justify="right" if name in ("reqs/s", "dentries", "inodes", "dirs", "caps")
                             else "left", header_style="bold")
        for r in fs.ranks:
            style = "" if r.state == "active" and not r.laggy else palette.style("bold warn")
            ranks.add_row(str(r.rank), Text(r.state + (" (laggy)" if r.laggy else ""), style=style), r.name or "-",
                          _num(r.rate), _num(r.dns), _num(r.inos), _num(r.dirs), _num(r.caps))
        for name, rank in fs.standby_replay:
            ranks.add_row(f"{rank}-s", Text("standby-replay", style=palette.style("muted")), name)
        pools = Table(box=None, padding=(0, 1), show_edge=False, expand=False)
        for name in ("pool", "type", "used", "avail"):
            pools.add_column(name, justify="right" if name in ("used", "avail") else "left", header_style="bold")
        for p in fs.pools:
            pools.add_row(p.name or f"id {p.id}", p.type, human_bytes(p.used) if p.used is not None else "-",
                          human_bytes(p.avail) if p.avail is not None else "-")
        body = Table.grid(padding=(0, 3))
        if self.size.width >= 110:  # side by side where both fit, else the pools under the ranks
            body.add_row(ranks, pools)
        else:
            body.add_row(ranks)
            body.add_row(pools)
        versions = "; ".join(short_version(v) + (f" ({', '.join(d)})" if d else "") for v, d in st.versions) or "-"
        tail = Text(f"standbys: {', '.join(st.standbys) or 'none'} · versions: {versions}",
                    style="" if st.standbys else palette.style("warn"), overflow="ellipsis", no_wrap=True)
        grid = Table.grid()
        grid.add_row(head)
        grid.add_row(body)
        grid.add_row(tail)
        out.update(grid)

    def _health(self) -> None:
        box = self.query_one("#fs-health", Static)
        box.display = bool(self.checks)
        if not self.checks:
            return
        t = Table.grid(padding=(0, 1))
        for c in self.checks:
            style = palette.style("bold err" if c.severity == "HEALTH_ERR" else "bold warn")
            t.add_row(Text(c.code, style=style), Text(c.summary + ("  (muted)" if c.muted else ""),
                                                      overflow="ellipsis", no_wrap=True))
        box.border_subtitle = "the Doctor tab explains each (0)"
        box.update(t)

    def _cells(self, s: Session) -> tuple[tuple[str, str], ...]:
        named = s.id in self._named
        warn = palette.style("bold warn")
        busy = palette.style("warn") if s.recall_caps >= 1 else ""
        return ((("⚠ " if named else "") + s.entity, warn if named else "bold"), (s.hostname or "-", ""),
                (s.entity_id or "-", ""), (s.root or "/", ""), (s.kind or "?", ""), (s.version or "-", ""),
                (f"{s.num_caps:,}", warn if named else ""), (f"{s.recall_caps:.0f}", busy),
                (str(s.requests_in_flight), ""),
                (s.state + (" (reconnecting)" if s.reconnecting else ""), "" if s.state == "open" else warn),
                (human_duration(s.uptime), ""), (str(s.rank), ""))

    def _show_client(self, *_: object) -> None:
        out = self.query_one("#fs-client", Static)
        s = self.selected_client()
        if s is None:
            out.update(Text("no client selected" if self.clients is not None and self.clients.sessions
                            else "no client has this file system mounted", style=palette.style("muted")))
            return
        line = Text.assemble((s.entity, "bold"), f" {s.addr}" if s.addr else "",
                             f" · key {s.key_name}" if s.key_name else "",
                             f" · {s.kind or 'unknown kind'} {s.version}".rstrip(),
                             f" · mounted {s.root or '/'}" + (f" at {s.hostname}:{s.mount_point}"
                                                              if s.mount_point and s.mount_point != "N/A" else ""),
                             f" · pid {s.pid}" if s.pid else "",
                             f" · caps {s.num_caps:,}, recalled {s.recall_caps:.0f}, released {s.release_caps:.0f}")
        if self.io_mode:  # what the IO columns leave out, first: the box shows two lines at 80x24
            io = self.io_table
            if 0 <= io.cursor < io.row_count:
                line = Text(io_detail(io.rows[io.cursor][0]) + "\n") + line
        for code in self._named.get(s.id, []):
            since = self._named_since.get((s.id, code))
            line.append(f"\n⚠ {code}", style=palette.style("bold warn"))
            if since is not None:
                line.append(f" (seen since {time.strftime('%H:%M:%S', time.localtime(since))})")
        out.update(line)

    def selected_client(self) -> Session | None:
        if self.io_mode:  # the IO view's row, as the session it is (evict, the Selected box)
            io = self.io_table
            if not 0 <= io.cursor < io.row_count:
                return None
            cid = io.rows[io.cursor][0].client_id
            return next((s for s in (self.clients.sessions if self.clients else ()) if s.id == cid), None)
        vt = self.vtable
        return vt.rows[vt.cursor] if 0 <= vt.cursor < vt.row_count else None

    # ------------------------------------------------------------ keys
    def action_evict(self) -> None:
        s = self.selected_client()
        if s is None:
            self.app.notify("Select a client first.", severity="warning")
            return
        self.evict(s)

    def evict(self, s: Session, why: str = "") -> None:
        """Evict `s` (this tab's client, or the one a slow request waits on: `why` says which), once its rank
        answers."""
        if self.clients is not None and s.rank in self.clients.unanswered:
            self.app.notify(f"Rank {s.rank}'s MDS is not answering: an eviction would wait on it. Try again once "
                            "its clients are current.", severity="warning")
            return
        if flow_running(self, "fs-evict"):
            return
        self._evict(s, self.selected_fs, why)

    @work(group="fs-evict", description="evict a client")
    async def _evict(self, s: Session, fs: str, why: str = "") -> None:
        """Whether the MDS will blocklist it (the setting, read first), then the confirmation with the effect."""
        client = self.services.client

        def settings() -> tuple[bool | None, int | None]:
            def get(who: str, key: str) -> str | None:
                try:
                    out, _ = client.mon_raw("config get", who=who, key=key)
                    return out.decode().strip().strip('"')
                except (CephError, UnicodeDecodeError):
                    return None
            blocklist = get("mds", "mds_session_blocklist_on_evict")
            expire = get("mon", "mon_osd_blocklist_default_expire")
            try:
                seconds = int(float(expire)) if expire else None
            except ValueError:
                seconds = None
            return (None if blocklist is None else blocklist == "true"), seconds

        blocklists, expire = await in_thread(self, settings, "read mds_session_blocklist_on_evict",
                                             form_follows=True)
        op = fs_ops.build_evict(fs, s, blocklists, expire)
        named = self._named.get(s.id, [])
        explain = Text.assemble(
            (f"client.{s.id}", "bold"), f" at {s.addr or '?'} on {s.hostname or '?'}, key {s.key_name or '?'}, "
            f"{s.kind or 'unknown kind'} {s.version}, mounted {s.root or '/'}; holds {s.num_caps:,} caps, "
            f"{s.requests_in_flight} requests in flight.",
            ("\n⚠ named by " + ", ".join(named) if named else "", palette.style("warn")),
            (f"\n⚠ {why}" if why else "", palette.style("warn")))
        await self.services.ask_confirm([op], explain=explain)
        self.services.refresh_now()

    def action_requests(self) -> None:
        from cephtui.ui.screens.fs_requests import FsRequestsScreen  # imported when first opened

        got = self._need_fs()
        if got is not None:
            sessions = {s.id: s for s in (self.clients.sessions if self.clients else ())}
            self.app.push_screen(FsRequestsScreen(got[0].name, got[1], sessions, self.evict))

    def action_blocklist(self) -> None:
        from cephtui.ui.screens.blocklist import BlocklistScreen  # imported when first opened

        self.app.push_screen(BlocklistScreen(self._seen))

    # ------------------------------------------------------------ the IO view
    def _io_changed(self) -> None:
        if not self.io_mode:
            return
        self._summary()
        box = self.query_one("#fs-clients-box")
        box.border_title = self.io_table.title()
        set_subtitle(box, self.io_table.subtitle())
        self._show_client()

    def action_io(self) -> None:
        self.io_mode = not self.io_mode
        self.vtable.display = not self.io_mode
        self.io_table.display = self.io_mode
        if self.io_mode:
            self.io_table.opened(self.selected_fs)
            self.io_table.focus()
            self._io_changed()
        else:
            self.query_one("#fs-clients-box").border_title = "Clients (session ls of each active rank)"
            self.vtable.focus()
            self._refresh_rows()

    def action_io_sort(self) -> None:
        if not self.io_mode:
            self.app.notify("o sorts the IO view: i shows it.", severity="information")
            return
        self.io_table.next_sort()
        self._io_changed()

    def action_enable_stats(self) -> None:
        if flow_running(self, "fs-stats"):
            return
        self._enable_stats()

    @work(group="fs-stats", description="enable the stats module")
    async def _enable_stats(self) -> None:
        await self.services.ask_confirm([fs_ops.build_enable_stats()])
        if self.io_mode:
            self.io_table.opened(self.selected_fs)

    # ------------------------------------------------------------ ranks
    def _need_fs(self) -> tuple[FileSystem, FsStatus] | None:
        fs, st = self.fs, self.status
        if fs is None or st is None:
            self.app.notify("No file system shown.", severity="warning")
            return None
        return fs, st

    def action_max_mds(self) -> None:
        got = self._need_fs()
        if got is not None:
            rank_forms.max_mds(self.services, *got)

    def action_fail_rank(self) -> None:
        got = self._need_fs()
        if got is not None and not got[0].active:
            self.app.notify(f"{got[0].name} has no active rank to fail.", severity="warning")
        elif got is not None:
            rank_forms.fail_rank(self.services, *got)

    def action_joinable(self) -> None:
        got = self._need_fs()
        if got is not None:
            self.services.confirm_operations([fs_ranks.build_joinable(got[0], not got[0].joinable)])

    def action_standby_replay(self) -> None:
        got = self._need_fs()
        if got is not None:
            fs, st = got
            self.services.confirm_operations([fs_ranks.build_standby_replay(fs, not fs.allow_standby_replay,
                                                                           st.standbys)])

    def action_next_fs(self) -> None:
        if self.status is None or len(self.status.filesystems) < 2:
            self.app.notify("There is no other file system.", severity="information")
            return
        names = [f.name for f in self.status.filesystems]
        self.selected_fs = names[(names.index(self.selected_fs) + 1) % len(names)] \
            if self.selected_fs in names else names[0]
        self.clients = None
        if self.io_mode:
            self.io_table.opened(self.selected_fs)
        self._refresh_rows()
        self._summary()
        self._detail()
        self._read_clients()

    def action_focus_filter(self) -> None:
        self.query_one("#fs-filter", FilterInput).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#fs-filter", FilterInput).clear_filter()
        self.vtable.focus()

    @on(FilterInput.Applied, "#fs-filter")
    def _apply_filter(self, event: FilterInput.Applied) -> None:
        self.filter_text = event.text
        self.io_table.filter_text = event.text
        self.io_table.rank()
        self._refresh_rows()

    def is_match(self, table: object, index: int) -> bool:
        rows = self.vtable.rows
        return 0 <= index < len(rows) and client_matches(rows[index], self.filter_text)
