"""The Bench tab's per-OSD bench table: `ceph tell osd.N bench` on each OSD in turn, on a librados handle of the
run's own, ranked as the results come, outliers flagged, each OSD's run in the audit log.

The table owns the run: `start` begins it in a worker thread, `runner` is the OSDBench under way (None when
none is), `results` and `progress` what the status line and the ranking show; the pane redraws the ranking
with `render_ranking` from its own timer and hears the end through `on_done`.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from cephtui.ceph import ops
from cephtui.ceph.bench.osdbench import OSDBench, OSDBenchParams, OSDBenchResult, bench_client, rank_results
from cephtui.ceph.bench.osdbench import cli as osd_bench_cli
from cephtui.ceph.bench.params import MiB
from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.ui.compat import DataTable
from cephtui.ui.screens import bench_views as views
from cephtui.ui.widgets.tables import sync_table

log = logging.getLogger("cephtui")


class OSDBenchTable(DataTable[Any]):
    def __init__(self, **kw: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)
        self.runner: OSDBench | None = None  # the run under way
        self.results: tuple[OSDBenchResult, ...] = ()
        self.progress = ""  # "2/3 OSDs, benching osd.2" while it runs

    def on_mount(self) -> None:
        self.display = False  # appears with the first per-OSD bench; until then the history has the room
        self.border_title = "Per-OSD bench (o): ceph tell osd.N bench"
        for c, w in views.OSD_COLUMNS:
            self.add_column(c, key=c or "flag", width=w)

    def start(self, client: Cluster, audit: ops.AuditLog, p: OSDBenchParams, ids: tuple[int, ...] | None,
              on_done: Callable[[str], None]) -> None:
        """Bench `ids` (None: every OSD of `osd ls`) one at a time; `on_done(failure)` on the UI thread at the end."""
        self.results = ()
        self.display = True
        self.progress = "starting"
        self.run_worker(lambda: self._run(client, audit, p, ids, on_done), thread=True, exit_on_error=False,
                        group="osd-bench", description="per-OSD bench")

    def _run(self, client: Cluster, audit: ops.AuditLog, p: OSDBenchParams, ids: tuple[int, ...] | None,
             on_done: Callable[[str], None]) -> None:
        failure = ""
        own = None
        try:
            if ids is None:
                ids = tuple(int(i) for i in (client.mon("osd ls") or ()))
            own = bench_client(client.spec)
            runner = OSDBench(own, ids, p, on_progress=self._progressed)
            self.app.call_from_thread(setattr, self, "runner", runner)
            for r in runner.run():
                op = ops.Operation(title=f"bench osd.{r.osd}", prefix="tell bench",
                                   args=(("osd", r.osd), ("count", p.total_bytes), ("size", p.block_size)),
                                   cli=osd_bench_cli(r.osd, p))
                audit.record(op, r.ok, r.error or f"{r.mib_per_sec:.1f} MiB/s, {r.iops:.0f} IOPS")
        except CephError as e:
            failure = e.message
        except Exception as e:  # never a traceback in the UI
            log.exception("osd bench failed")
            failure = f"internal error: {e!r}"
        finally:
            if own is not None:
                own.close()
            self.app.call_from_thread(self._ended, failure, on_done)

    def _progressed(self, done: int, total: int, current: int | None, result: OSDBenchResult | None) -> None:
        text = f"{done}/{total} OSDs" + (f", benching osd.{current}" if current is not None else "")
        self.app.call_from_thread(setattr, self, "progress", text)

    def _ended(self, failure: str, on_done: Callable[[str], None]) -> None:
        self.render_ranking()
        self.runner = None
        self.progress = ""
        on_done(failure)

    def render_ranking(self) -> None:
        """The results so far, ranked (re-ranked rows rebuild the table: a few rows per OSD set)."""
        if self.runner is not None:
            self.results = self.runner.results
        ranking = rank_results(self.results)
        rows = {row.result.osd: views.osd_row(row) for row in ranking.rows}
        if [str(k.value) for k in self.rows] != [str(k) for k in rows]:
            self.clear()
        sync_table(self, rows)
        self.border_subtitle = (f"median {ranking.median_bytes_per_sec / MiB:.1f} MiB/s · "
                                f"{len(ranking.outliers)} outlier(s)" if ranking.rows else "")
