"""The File systems tab's IO view: each client's IO and latency, as `cephfs-top` shows them, from the mgr's
`fs perf stats` (the stats module). The table asks again every IO_EVERY seconds while it is shown and keeps the
last RATE_WINDOW seconds of its own reads per client for the rates; under "mgr down" or with the module off it
shows no numbers at all, never the last ones."""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from rich.markup import escape
from textual import work

from cephtui.ceph.cephfs import perf
from cephtui.ceph.errors import CephError, CephMgrDown, CephTimeout
from cephtui.ceph.format import human_bytes, human_rate
from cephtui.ui import palette
from cephtui.ui.services import services_of
from cephtui.ui.widgets.virtualtable import VirtualTable

# The rates and latencies first (what an admin looks for), the host last (the Selected box names it too): at 120
# columns everything up to the write size shows.
IO_COLUMNS = (("client", 13), ("wr/s", 11), ("rd/s", 11), ("wr lat", 8), ("rd lat", 8), ("md lat", 8),
              ("cap hit", 7), ("wr ops/s", 8), ("rd ops/s", 8), ("wr size", 8), ("rd size", 8), ("files", 5),
              ("inodes", 6), ("host", 12))
FIRST_DATA_S = 15.0  # the mgr's first answer (5 s at most) and two MDS updates after it
IO_EVERY = 2.0  # the MDS forwards its clients' metrics every mds_metrics_update_interval (2 s by default)
Row = tuple[perf.ClientIO, perf.Rates]


def _ms(value: float | None) -> str:
    """cephfs-top's milliseconds, in 8 columns: 0.11 ms, 42.5 ms, 1.25 s."""
    if value is None:
        return "N/A"
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.2f} ms" if value < 10 else f"{value:.1f} ms"


def _or_na(value: float | None, fmt: Callable[[float], str]) -> str:
    return "N/A" if value is None else fmt(value)


def io_cells(row: Row) -> list[tuple[str, str]]:
    c, r = row
    return [(c.entity, "bold"), (_or_na(r.write_bps, human_rate), ""), (_or_na(r.read_bps, human_rate), ""),
            (_ms(c.write_latency), ""), (_ms(c.read_latency), ""), (_ms(c.metadata_latency), ""),
            (_or_na(c.cap_hit, lambda v: f"{v:.1f}%"), ""),
            (_or_na(r.write_iops, lambda v: f"{v:.0f}"), ""), (_or_na(r.read_iops, lambda v: f"{v:.0f}"), ""),
            (_size(c.write_ops, c.write_bytes), ""), (_size(c.read_ops, c.read_bytes), ""),
            (_or_na(c.opened_files, str), ""), (_or_na(c.opened_inodes, str), ""), (c.hostname or "-", "")]


def _size(ops: int | None, size: int | None) -> str:
    """The average IO size: N/A where the client does not report it, - before its first IO."""
    if ops is None or size is None:
        return "N/A"
    return "-" if ops == 0 else human_bytes(size / ops)


def io_detail(c: perf.ClientIO) -> str:
    """The Selected box's line for a client in the IO view: what the columns leave out."""
    def side(word: str, ops: int | None, size: int | None, lat: float | None, sd: float | None) -> str:
        if ops is None or size is None:
            return f"{word} N/A"
        return f"{word} {human_bytes(size)} in {ops:,} ops since mount, {_ms(lat)} ± {_ms(sd)}"
    parts = [c.entity + (f" on {c.hostname}" if c.hostname else ""),
             side("read", c.read_ops, c.read_bytes, c.read_latency, c.read_stdev),
             side("written", c.write_ops, c.write_bytes, c.write_latency, c.write_stdev),
             f"metadata {_ms(c.metadata_latency)} ± {_ms(c.metadata_stdev)}",
             f"dentry lease {_or_na(c.dentry_lease, lambda v: f'{v:.1f}%')}",
             f"pinned caps {_or_na(c.pinned_icaps, str)}"]
    return " · ".join(parts)


class ClientIOTable(VirtualTable[Row]):
    def __init__(self, changed: Callable[[], None], **kw: object) -> None:
        """`changed`: called on the UI thread when new numbers (or a problem) arrive, for the pane's texts."""
        super().__init__(IO_COLUMNS, io_cells, key=lambda r: r[0].client_id, **kw)  # type: ignore[arg-type]
        self._changed = changed
        self.fs = ""
        self.report: perf.FsPerf | None = None
        self.problem = ""
        self.stats_off = False
        self.sort_key = perf.SORT_KEYS[0]
        self.filter_text = ""  # the tab's filter: every word in the client's name, host, address or root
        self.asked_at = 0.0
        self._polled = 0.0
        self._samples: dict[tuple[str, int], deque[tuple[float, perf.ClientIO]]] = {}

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def opened(self, fs: str) -> None:
        """The view is shown (or shows another file system): ask at once."""
        self.fs = fs
        self.asked_at = time.monotonic()
        self._polled = 0.0
        self._tick()

    def _tick(self) -> None:
        if not (self.display and self.fs and services_of(self).active_tab == "fs"):
            return  # a hidden tab asks nothing (and the mgr's query expires a minute later)
        if time.monotonic() - self._polled >= IO_EVERY:
            self._polled = time.monotonic()
            self._poll()

    def next_sort(self) -> None:
        keys = perf.SORT_KEYS
        self.sort_key = keys[(keys.index(self.sort_key) + 1) % len(keys)]
        self.rank()

    def title(self) -> str:
        return (f"IO per client (fs perf stats, as cephfs-top; rates over the last {perf.RATE_WINDOW:g} s of reads "
                f"every {IO_EVERY:g} s; sorted by {perf.SORT_WORDS[self.sort_key]})")

    def subtitle(self) -> str:
        if self.problem:
            return f"⚠ {self.problem}"
        n = len(self.rows)
        delayed = self.report.delayed_ranks if self.report else ()
        late = f" · ⚠ rank{'s' if len(delayed) > 1 else ''} {', '.join(delayed)} late" if delayed else ""
        total = len(self.report.of(self.fs)) if self.report else 0
        shown = (f"{n} of {total} clients match '{escape(self.filter_text.strip())}'" if self.filter_text.strip()
                 else f"{n} client{'s' if n != 1 else ''}")
        return f"{shown} · o: sort · i: sessions{late}"

    def state(self) -> str:
        """One markup phrase for the pane's summary line."""
        if self.stats_off:
            return palette.markup("bold warn", "⚠ the mgr's stats module is off: M enables it")
        if self.problem:
            return palette.markup("bold warn", f"⚠ {escape(self.problem)}")
        waited = time.monotonic() - self.asked_at
        if self.report is None or (not self.rows and waited < FIRST_DATA_S):
            # The first ask registers the mgr's query; the clients' metrics come a few seconds later.
            return f"[i]waiting for the clients' first metrics ({waited:.0f} s)[/]"
        n = len(self.rows)
        return f"{n} client{'s' if n != 1 else ''} reporting IO" if n else "no client reports IO"

    @work(thread=True, group="fs-io", exclusive=True, exit_on_error=False)
    def _poll(self) -> None:
        client = services_of(self).client
        report: perf.FsPerf | None = None
        problem, off = "", False
        try:
            report = perf.fs_perf(client)
        except CephMgrDown as e:
            problem = f"mgr down: no per-client IO ({e.message})"
        except CephTimeout as e:
            problem = f"mgr down or busy: no per-client IO (fs perf stats: {e.message})"
        except CephError as e:
            off = perf.stats_off(e.message)
            problem = perf.STATS_OFF if off else f"fs perf stats: {e.message}"
        except ValueError as e:
            problem = str(e)
        self.app.call_from_thread(self._got, report, problem, off, time.monotonic())

    def _got(self, report: perf.FsPerf | None, problem: str, off: bool, at: float) -> None:
        self.problem, self.stats_off = problem, off
        self.report = report  # never the last numbers under "mgr down": no numbers at all
        if report is None:
            self._samples.clear()
        else:
            present = set()
            for c in report.clients:
                key = (c.fs, c.client_id)
                present.add(key)
                kept = self._samples.setdefault(key, deque())
                kept.append((at, c))
                while kept and at - kept[0][0] > 3 * perf.RATE_WINDOW:
                    kept.popleft()
            self._samples = {k: v for k, v in self._samples.items() if k in present}
        self.rank()
        self._changed()

    def rank(self) -> None:
        rows: list[Row] = []
        words = self.filter_text.lower().split()
        if self.report is not None:
            for c in self.report.of(self.fs):
                hay = " ".join((c.entity, c.hostname, c.ip, c.root)).lower()
                if all(w in hay for w in words):
                    rows.append((c, perf.rates(list(self._samples.get((c.fs, c.client_id), ())))))
        rows.sort(key=lambda r: (-perf.sort_value(r[0], r[1], self.sort_key), r[0].client_id))
        self.set_rows(rows)
