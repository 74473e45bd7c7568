"""The Bench tab's history table: this cluster's runs from the history file (bench/history.py), newest first,
with the marks that compare and export read. The file may hold other clusters' runs: only the connected
cluster's (by fsid) are listed, and the subtitle says how many others there are."""
from __future__ import annotations

from typing import Any

from cephtui.ceph.bench.history import BenchHistory, scope
from cephtui.ceph.bench.results import BenchResult
from cephtui.ui.compat import DataTable
from cephtui.ui.screens import bench_views as views
from cephtui.ui.widgets.tables import sync_table


def run_key(r: BenchResult) -> str:
    """A run's row key: its start and its process (two runs of one second, from two processes, differ)."""
    return f"{r.started_at:.6f}-{r.pid}"


class BenchRuns(DataTable[Any]):
    def __init__(self, store: BenchHistory, **kw: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kw)
        self.store = store
        self.all_runs: list[BenchResult] = []  # every run in the file, of any cluster
        self.runs: list[BenchResult] = []  # this cluster's (scope), oldest first
        self.fsid = ""  # the connected cluster's, once known
        self.marked: set[str] = set()  # run keys

    def on_mount(self) -> None:
        self.border_title = "History (enter detail · space mark · c compare · e export)"
        for c, w in views.HISTORY_COLUMNS:
            self.add_column(c, key=c, width=w)

    def loaded(self, runs: list[BenchResult], fsid: str) -> None:
        self.all_runs = runs
        self.fsid = fsid or self.fsid
        self.rescope()

    def for_cluster(self, fsid: str) -> None:
        """The connected cluster's fsid (the first snapshot brings it): list its runs."""
        if fsid and fsid != self.fsid:
            self.fsid = fsid
            self.rescope()

    def rescope(self) -> None:
        """Show this cluster's runs only; say how many others the file holds."""
        scoped = scope(self.all_runs, self.fsid)
        self.runs = list(scoped.runs)
        self.border_subtitle = (scoped.note(self.store.path) if self.fsid
                                else "waiting for the cluster's fsid to show its runs")
        self.marked &= {run_key(r) for r in self.runs}
        self.render_runs()

    def add(self, r: BenchResult, draw: bool = True) -> None:
        """A run this session made (already in the file)."""
        self.all_runs.append(r)
        self.runs.append(r)
        if draw:
            self.render_runs()

    def render_runs(self) -> None:
        rows = {run_key(r): views.history_row(r, run_key(r) in self.marked) for r in reversed(self.runs)}
        if [str(k.value) for k in self.rows][:1] != list(rows)[:1]:
            self.clear()  # a new run goes on top: rebuild (the history is short; sync keeps order otherwise)
        sync_table(self, rows)

    def cursor_run(self) -> BenchResult | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return next((r for r in self.runs if run_key(r) == key), None)

    def toggle_mark(self) -> None:
        r = self.cursor_run()
        if r is not None:
            self.marked.symmetric_difference_update({run_key(r)})
            self.render_runs()

    def marked_runs(self) -> list[BenchResult]:
        return [r for r in self.runs if run_key(r) in self.marked]
