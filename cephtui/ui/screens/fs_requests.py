"""Slow MDS requests (`s` on the File systems tab): every active rank's requests in flight, the oldest first, each
with its client and host, operation, path and where it waits; for a request that waits on a lock, the client the
MDS is taking caps back from, and what it holds (ceph/cephfs/requests.py). `E` evicts that client through the
tab's own eviction (the blocklist said, the name typed); the list is read again once the confirmation closes.

MDS_SLOW_REQUEST names only the MDS, and MDS_CLIENT_LATE_RELEASE comes a minute later if at all (a stopped client's
session may go stale first): this is where the admin sees which client blocks whom, while it happens."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from cephtui.ceph.cephfs.model import FsStatus, Session
from cephtui.ceph.cephfs.requests import Holder, MdsRequest, Requests, read_requests
from cephtui.ceph.errors import CephError
from cephtui.ceph.format import human_duration
from cephtui.ui import palette
from cephtui.ui.compat import DataTable
from cephtui.ui.screens.reading import ReadingDialog
from cephtui.ui.widgets.tables import sync_table

RELOAD_EVERY = 5.0  # s: two MDS reads per active rank, and two per path looked up (at most six)
# Who waits and on whom first: at 120 columns the dialog shows about 108 cells, and the table scrolls for the rest.
COLUMNS = (("age", 6), ("rank", 4), ("client", 12), ("waits on", 20), ("op", 7), ("path", 22), ("where", 24),
           ("host", 14))


def request_key(r: MdsRequest) -> str:
    return f"{r.rank}:{r.description}"


def who(cid: int, sessions: Mapping[int, Session]) -> str:
    s = sessions.get(cid)
    return f"client.{cid}" + (f" on {s.hostname}" if s is not None and s.hostname else "")


def waits_on(got: Requests, r: MdsRequest, sessions: Mapping[int, Session]) -> str:
    blockers = got.blockers(r)
    if blockers:
        return ", ".join(f"client.{h.client_id} ({h.revoking})" for h in blockers)
    return "?" if r.waiting and any(t not in got.holders for t in r.targets) else ""


def summary_text(got: Requests, sessions: Mapping[int, Session]) -> Text:
    """One line: how many requests, how many the MDS calls slow, and the clients they wait on, by name."""
    n, slow = len(got.requests), sum(r.blocked for r in got.requests)
    if not n:
        return Text(f"No request in flight at {got.fs}'s active ranks.", style=palette.style("ok"))
    complaint = f" (older than {got.complaint_time:g} s: mds_op_complaint_time)" if got.complaint_time else ""
    line = Text(f"{n} request{'s' if n != 1 else ''} in flight, {slow} slow{complaint}; oldest "
                f"{human_duration(got.requests[0].age)}.")
    blockers: dict[int, Holder] = {}
    for r in got.requests:
        for h in got.blockers(r):
            blockers.setdefault(h.client_id, h)
    if blockers:
        waiting = sum(1 for r in got.requests if got.blockers(r))
        names = ", ".join(f"{who(cid, sessions)} (not giving back {h.revoking} on {h.path})"
                          for cid, h in blockers.items())
        line.append(f"\n{waiting} wait{'s' if waiting == 1 else ''} on {names}: E evicts it.",
                    style=palette.style("bold warn"))
    return line


def request_detail(got: Requests, r: MdsRequest, sessions: Mapping[int, Session]) -> RenderableType:
    """The highlighted request: its own line, who holds it up and what that client holds, its events."""
    parts: list[RenderableType] = [Text.assemble((r.who, "bold"), f" {r.op or r.op_type} {got.path(r) or ''}",
                                                 f" · rank {r.rank} · {human_duration(r.age)} · {r.flag_point}")]
    for h in got.blockers(r):
        s = sessions.get(h.client_id)
        held = (f"{s.kind or 'client'} {s.version} key {s.key_name or '?'}, session {s.state}, {s.num_caps:,} caps, "
                f"mounted {s.root or '/'}" if s is not None else "no session read for it")
        parts.append(Text(f"waits on {who(h.client_id, sessions)}: the MDS is taking back {h.revoking} on {h.path} "
                          f"(issued {h.issued}, pending {h.pending}); {held}", style=palette.style("warn")))
    events = Table(box=None, padding=(0, 1), show_header=False)
    for at, event in r.events[-8:]:
        events.add_row(at.partition("T")[2][:15], event)
    parts.append(events)
    parts.append(Text(r.description, style=palette.style("muted"), overflow="fold"))
    return Group(*parts)


class FsRequestsScreen(ReadingDialog):
    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("E", "evict", "Evict the blocker"),
        Binding("r", "reload", "Reload"),
    ]
    DEFAULT_CSS = """
    FsRequestsScreen > Vertical { width: 150; height: auto; max-height: 95%; }
    FsRequestsScreen #fsreq-table { height: auto; max-height: 16; }
    FsRequestsScreen #fsreq-detail { height: auto; max-height: 14; margin-top: 1; }
    """

    def __init__(self, fs: str, status: FsStatus, sessions: Mapping[int, Session],
                 evict: Callable[[Session, str], None]) -> None:
        """`sessions`: the tab's clients by id (host and key for the names); `evict`: the tab's eviction."""
        super().__init__()
        self.fs, self.status, self.sessions, self.evict = fs, status, dict(sessions), evict
        self.got = Requests(fs)
        self._covered = False  # a dialog (the eviction's confirmation) is on top
        self._reading = False  # a read is under way: the timer does not start another beside it

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = (f"{self.fs}: requests in flight (dump_ops_in_flight · E evicts the client one waits "
                                "on · escape closes)")
            yield Static(Text("Asking the active ranks…", style="italic"), id="fsreq-summary")
            table: DataTable[Any] = DataTable(id="fsreq-table", cursor_type="row", zebra_stripes=True)
            for label, width in COLUMNS:
                table.add_column(label, width=width)
            yield table
            yield Static(id="fsreq-detail")

    def on_mount(self) -> None:
        super().on_mount()
        # The ages move and requests come and go: read again while shown (not under the eviction's confirmation).
        self.set_interval(RELOAD_EVERY, self._tick)

    def _tick(self) -> None:
        if not self._covered and not self._reading:  # an MDS slow to answer: one read at a time, never a pile
            self.action_reload()

    def on_screen_suspend(self) -> None:
        self._covered = True  # the eviction's confirmation (or another dialog) is on top

    def on_screen_resume(self) -> None:
        if self._covered:  # back from it: what waits now (not at the first showing)
            self._covered = False
            self.action_reload()

    async def load(self) -> None:
        self._reading = True
        try:
            got = await self.ask("dump_ops_in_flight", lambda: read_requests(self.client, self.status, self.fs))
        finally:
            self._reading = False
        if isinstance(got, CephError):  # read_requests keeps each rank's refusal; this is a surprise
            self.query_one("#fsreq-summary", Static).update(Text(got.message, style=palette.style("warn")))
            return
        self.got = got
        summary = summary_text(got, self.sessions)
        for problem in got.problems:
            summary.append(f"\nno answer: {problem}", style=palette.style("warn"))
        self.query_one("#fsreq-summary", Static).update(summary)
        warn = palette.style("warn")
        rows = {request_key(r): (Text(human_duration(r.age), style=warn if r.blocked else ""), str(r.rank),
                                 f"client.{r.client_id}" if r.client_id is not None else r.op_type,
                                 Text(waits_on(got, r, self.sessions), style=warn), r.op, got.path(r), r.flag_point,
                                 self._host(r.client_id))
                for r in got.requests}
        sync_table(self.query_one("#fsreq-table", DataTable), rows, ordered=True)
        self.show_detail()

    def _host(self, cid: int | None) -> str:
        s = self.sessions.get(cid) if cid is not None else None
        return s.hostname if s is not None else ""

    def selected(self) -> MdsRequest | None:
        key = self.row_key(self.query_one("#fsreq-table", DataTable))
        return next((r for r in self.got.requests if request_key(r) == key), None)

    async def detail(self) -> None:
        r = self.selected()
        out = self.query_one("#fsreq-detail", Static)
        out.update(request_detail(self.got, r, self.sessions) if r is not None else "")

    def action_evict(self) -> None:
        r = self.selected()
        blockers = self.got.blockers(r) if r is not None else ()
        if r is None or not blockers:
            self.app.notify("The selected request waits on no client (or none is selected): nothing to evict.",
                            severity="warning")
            return
        s = self.sessions.get(blockers[0].client_id)
        if s is None:
            self.app.notify(f"client.{blockers[0].client_id} is not among the clients the tab has read (its rank "
                            "did not answer?): evict it from the tab once it is listed.", severity="warning")
            return
        waiting = [x for x in self.got.requests if any(h.client_id == s.id for h in self.got.blockers(x))] or [r]
        oldest, n = waiting[0], len(waiting)  # the requests are oldest first
        self.evict(s, f"{n} request{'s' if n != 1 else ''} wait{'s' if n == 1 else ''} on it (the oldest: "
                      f"{oldest.who} {oldest.op} {self.got.path(oldest)}, {human_duration(oldest.age)}): the MDS is "
                      f"taking back {blockers[0].revoking} on {blockers[0].path} and it has not given it")
