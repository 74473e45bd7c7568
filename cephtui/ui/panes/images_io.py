"""The Images tab's IO view: per-image IO from the mgr (`rbd perf image stats`, what `rbd perf image iostat`
shows), a table that owns what it last heard and asks again once per mgr stats period while it is shown. Under
"mgr down" it shows no numbers at all, never the last ones."""
from __future__ import annotations

import time
from collections.abc import Callable

from rich.markup import escape
from textual import work

from cephtui.ceph.errors import CephError, CephMgrDown, CephTimeout
from cephtui.ceph.images import perf
from cephtui.ui import palette
from cephtui.ui.services import services_of
from cephtui.ui.widgets.image_info import io_cells
from cephtui.ui.widgets.virtualtable import VirtualTable

IO_COLUMNS = (("image", 32), ("WR", 9), ("RD", 9), ("WR_BYTES", 11), ("RD_BYTES", 11), ("WR_LAT", 11),
              ("RD_LAT", 11))
IO_EVERY = 5.0  # mgr_stats_period's default, until the cluster's own value is read


class ImageIOTable(VirtualTable[perf.ImageIO]):
    def __init__(self, changed: Callable[[], None], **kw: object) -> None:
        """`changed`: called on the UI thread when new numbers (or a problem) arrive, for the pane's texts."""
        super().__init__(IO_COLUMNS, io_cells, key=lambda r: r.spec, **kw)  # type: ignore[arg-type]
        self._changed = changed
        self.io: perf.IOReport | None = None
        self.io_problem = ""
        self.io_asked_at = 0.0
        self.io_key = "write_ops"
        self.stats_period: float | None = None  # mgr_stats_period, read when the view is first shown
        self._polled = 0.0

    @property
    def every(self) -> float:
        return self.stats_period or IO_EVERY

    def opened(self) -> None:
        """The view is shown: ask at once."""
        self.io_asked_at = time.monotonic() if self.io is None else self.io_asked_at
        self._polled = 0.0

    def tick(self, pool_spec: str) -> None:
        """Once a second while shown: ask the mgr again when a stats period has passed."""
        if time.monotonic() - self._polled > self.every:
            self._polled = time.monotonic()
            self._poll(pool_spec, self.io_key)

    def next_sort(self) -> None:
        keys = perf.SORT_KEYS
        self.io_key = keys[(keys.index(self.io_key) + 1) % len(keys)]
        self._polled = 0.0
        if self.io is not None:
            self.set_rows(perf.ranked(self.io, self.io_key))

    def title(self) -> str:
        return f"IO per image (rbd perf image iostat, sorted by {self.io_key}, every {self.every:g} s)"

    def subtitle(self) -> str:
        return f"{len(self.io.images) if self.io else 0} busy images · o: sort"

    def state(self) -> str:
        """One markup phrase for the tab's summary line."""
        if self.io_problem:
            return palette.markup("bold warn", f"⚠ {escape(self.io_problem)}")
        waited = time.monotonic() - self.io_asked_at
        if self.io is None or not self.io.images:
            if waited < perf.FIRST_DATA_S + IO_EVERY:
                return f"[i]waiting for the mgr's first numbers ({waited:.0f} s of about {perf.FIRST_DATA_S} s)[/]"
            return "no image has had IO in the last period"
        return f"{len(self.io.images)} busy image(s)"

    @work(thread=True, group="images-io", exclusive=True, exit_on_error=False)
    def _poll(self, pool_spec: str, key: str) -> None:
        client = services_of(self).client
        if self.stats_period is None:  # the mgr's stats period: asking more often shows the same numbers
            try:
                self.stats_period = max(1.0, float(client.mon("config get", who="mgr", key="mgr_stats_period")))
            except (CephError, TypeError, ValueError):
                self.stats_period = IO_EVERY
        try:
            report, problem = perf.image_stats(client, pool_spec, key), ""
        except CephMgrDown as e:
            report, problem = None, f"mgr down: no per-image IO ({e.message})"
        except CephTimeout as e:
            report, problem = None, f"mgr down or busy: no per-image IO (rbd perf image stats: {e.message})"
        except CephError as e:
            report, problem = None, f"rbd perf image stats: {e.message}"
        except ValueError as e:
            report, problem = None, str(e)
        self.app.call_from_thread(self._got, report, problem)

    def _got(self, report: perf.IOReport | None, problem: str) -> None:
        self.io_problem = problem
        self.io = report  # never the last numbers under "mgr down": no numbers at all
        self.set_rows(perf.ranked(report, self.io_key) if report is not None else ())
        self._changed()
