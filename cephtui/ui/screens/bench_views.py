"""Bench views: the live and final summaries, table rows, and the dialogs (confirm a run, one run's full
summary, two runs side by side). Rendering only: the Bench pane keeps the state."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from cephtui.ceph.bench.blockparams import BlockParams
from cephtui.ceph.bench.blockreport import FLUSH_WORTH_SAYING
from cephtui.ceph.bench.history import comparable, compare
from cephtui.ceph.bench.hoststats import HostSample, bottleneck_hint
from cephtui.ceph.bench.osdbench import OSDBenchResult, RankedOSD, rank_results
from cephtui.ceph.bench.params import MiB
from cephtui.ceph.bench.results import STALL_NOTABLE, BenchResult, Progress, Sample, summary_lines
from cephtui.ceph.format import human_bytes, human_rate
from cephtui.ceph.ops import Operation
from cephtui.ui import palette
from cephtui.ui.screens.confirm import command_block
from cephtui.ui.screens.dialog import Dialog, YesNoDialog

MODAL_CSS = """
{name} > Vertical {{ width: 110; }}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} VerticalScroll {{ height: auto; }}
"""


def _with_unit(unit: str) -> Callable[[float], str]:
    return lambda v: f"{v:.2f} {unit}".strip()


# ------------------------------------------------------------------ the pane's live view and tables

HISTORY_COLUMNS = (("when", 16), ("mode", 6), ("pool", 14), ("op size", 7), ("thr", 3), ("MiB/s", 8),
                   ("IOPS", 7), ("avg ms", 8), ("p99 ms", 8), ("status", 7))
OSD_COLUMNS = (("#", 2), ("osd", 7), ("MiB/s", 8), ("IOPS", 6), ("time", 6), ("×median", 7), ("", 34))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def is_block(r: BenchResult) -> bool:
    return getattr(r.params, "kind", "rados") == "rbd"


def mode_label(r: BenchResult) -> str:
    """The history's mode column: rados bench's mode, or rbd-w / rbd-r / rbd-rw for a block run."""
    if not is_block(r):
        return r.params.mode
    return "rbd-" + {"write": "w", "read": "r", "readwrite": "rw"}.get(r.params.mode, r.params.mode)


def target_label(r: BenchResult) -> str:
    """Where a run ran: the pool, or pool/image (a temporary image's name says it was one)."""
    image = getattr(r.params, "image", "") if is_block(r) else ""
    return f"{r.params.pool}/{image}" if image else r.params.pool


def cache_label(r: BenchResult) -> str:
    """'cache off' / 'cache writeback' for a block run: the number means nothing without it."""
    return f"cache {getattr(r.params, 'cache', '?')}" if is_block(r) else ""


def size_text(n: int) -> str:
    return human_bytes(n).replace(" ", "").replace(".0", "")


def stall_text(r: BenchResult) -> str:
    """'stalled 12 s (from second 3)': the longest stretch with ops in flight and none completing."""
    stall = r.longest_stall
    if stall is None or stall[1] < STALL_NOTABLE:
        return ""
    first, length = stall
    return f"stalled {length} s from second {first} (ops in flight, none completed)"


def progress_text(p: Progress, phase: str) -> Text:
    """The live line under the sparklines while a run goes on."""
    mib = p.finished * p.op_size / MiB / p.elapsed if p.elapsed > 0 else 0.0
    t = Text()
    t.append(f"{phase or p.phase}", style=palette.style("bold warn"))
    t.append(f" · {p.elapsed:.0f}/{p.seconds:.0f} s · {p.finished} ops")
    if p.failed:
        t.append(f" ({p.failed} failed)", style=palette.style("err"))
    t.append(f" · {p.in_flight} in flight · avg {mib:.2f} MiB/s · avg lat {ms(p.avg_latency)}")
    return t


def final_text(r: BenchResult) -> Text:
    """The line a finished run leaves under the sparklines."""
    t = Text()
    t.append(f"{r.status} ",
             style=palette.style("bold err" if r.error else "bold warn" if r.stopped else "bold ok"))
    t.append(f"{mode_label(r)} at {time.strftime('%H:%M:%S', time.localtime(r.started_at))} · {r.ops} ops "
             f"in {r.total_time_run:.2f} s")
    if r.flush_seconds >= FLUSH_WORTH_SAYING:  # block writes: inside that time, as rbd bench counts it
        t.append(f" ({r.flush_seconds:.2f} s of it the final flush)")
    if is_block(r):
        t.append(f" · {cache_label(r)}", style="bold")
    if r.failed_ops:
        t.append(f" ({r.failed_ops} failed)", style=palette.style("err"))
    stall = stall_text(r)
    if stall:
        t.append(f" · {stall}", style=palette.style("bold warn"))
    t.append(f" · {r.bandwidth:.2f} MiB/s (σ {r.stddev_bandwidth:.2f}) · {r.average_iops:.0f} IOPS · "
             f"lat avg {ms(r.average_latency)} p50 {ms(r.latency_p50)} p95 {ms(r.latency_p95)} "
             f"p99 {ms(r.latency_p99)}" + (f" p99.9 {ms(r.latency_p999)}" if r.latency_p999 else "")
             + f" max {ms(r.max_latency)}")
    return t


def spark_series(samples: Sequence[Sample]) -> list[tuple[str, list[float], Text]]:
    """(widget key, data, label) for the three sparklines."""
    bw = [s.mib_s for s in samples]
    iops = [float(s.ops) for s in samples]
    lat = [s.avg_lat * 1000 for s in samples]
    out = []
    # The numbers before any note: on 80 columns the end of the line is cut.
    for key, data, label, fmt, note in (("bw", bw, "MiB/s", "{:.1f}", ""), ("iops", iops, "IOPS", "{:.0f}", ""),
                                        ("lat", lat, "latency ms", "{:.2f}", "  (avg of each second)")):
        cur = fmt.format(data[-1]) if data else "-"
        top = fmt.format(max(data)) if data else "-"
        low = fmt.format(min(data)) if data else "-"
        out.append((key, data, Text.assemble((label, "bold"), f"  now {cur}  min {low}  max {top}",
                                             (note, palette.style("muted")))))
    return out


def host_table(h: HostSample, mib_s: float) -> Table:
    """This host's load beside the run, with a bottleneck hint when the host is what limits it."""
    t = Table.grid(padding=(0, 1))
    t.add_column(style="bold")
    t.add_column()
    cores = " ".join(f"{c:.0f}" for c in h.per_core_percent)
    t.add_row("CPU", f"{h.cpu_percent or 0:.0f}% (cores {cores})")
    t.add_row("cephtui", f"{h.process_cpu_percent or 0:.0f}% of a core")
    t.add_row("memory", f"{human_bytes(h.mem_used)} / {human_bytes(h.mem_total)}")
    t.add_row("disk", f"{human_rate(h.disk_read_bps or 0)} rd, {human_rate(h.disk_write_bps or 0)} wr")
    t.add_row("network", f"{human_rate(h.net_rx_bps or 0)} rx, {human_rate(h.net_tx_bps or 0)} tx")
    t.add_row("loopback", f"{human_rate(h.loopback_rx_bps or 0)}")
    hint = bottleneck_hint(h, mib_s)
    if hint:
        t.add_row(Text("bottleneck", style=palette.style("bold err")), Text(hint, style=palette.style("err")))
    return t


def status_text(running: str | None, osd_progress: str | None, message: Text) -> Text:
    """The pane's top line: what runs (its command, or its phase) or the per-OSD bench's progress, else the keys;
    then the last message."""
    t = Text(" ")
    if running is not None:
        t.append("RUNNING ", style=palette.badge("warn"))
        t.append(running, style=palette.style("info"))
        t.append("  x stops")
    elif osd_progress is not None:
        t.append("OSD BENCH ", style=palette.badge("warn"))
        t.append(osd_progress + "  x stops after the current OSD")
    else:
        t.append("idle", style="bold")
        t.append(" · b new run · l latency probe · k objects/block · o per-OSD bench")
    if message.plain:
        t.append("  ")
        t.append_text(message)
    return t


def run_message(result: BenchResult | None, failure: str) -> tuple[str, str]:
    """What the status line says when a run ends, and its palette spec ("" and "" when there is nothing)."""
    if result is not None and result.error:
        return f"✖ {result.error} {failure}".strip(), "bold err"
    if failure:
        return f"✖ {failure}", "bold err"
    if result is None:
        return "", ""
    stall = stall_text(result)
    return (f"{'⚠' if stall else '✔'} {'stopped early: partial results' if result.stopped else 'done'} · "
            + (f"{stall} · " if stall else "") + f"{result.cleanup_note or ''}", "warn" if stall else "ok")


def osd_bench_message(results: Sequence[OSDBenchResult], failure: str) -> tuple[str, str]:
    """What the status line says when the per-OSD bench ends, and its palette spec."""
    if failure:
        return f"✖ per-OSD bench: {failure}", "bold err"
    errors = [r for r in results if not r.ok]
    slow = [f"osd.{r.osd}" for r in rank_results(results).outliers if r.flag == "slow"]
    return (f"✔ per-OSD bench: {len(results)} OSD(s)" + (f", {len(errors)} failed" if errors else "")
            + (f", slow: {', '.join(slow)}" if slow else ", no slow outlier"), "warn" if slow or errors else "ok")


def history_row(r: BenchResult, marked: bool) -> tuple[str | Text, ...]:
    style = palette.style("err" if r.error else "warn" if r.stopped else "")
    mark = "✔ " if marked else "  "
    return (Text(mark + time.strftime("%m-%d %H:%M:%S", time.localtime(r.started_at)),
                 style="bold" if marked else ""), mode_label(r), target_label(r),
            size_text(r.op_size), str(r.params.threads), f"{r.bandwidth:.2f}", f"{r.average_iops:.0f}",
            f"{r.average_latency * 1000:.2f}", f"{r.latency_p99 * 1000:.2f}", Text(r.status, style=style))


def osd_row(row: RankedOSD) -> tuple[str | Text, ...]:
    r = row.result
    s = palette.style
    flag = {"slow": Text("◀ slow (< 0.7 × median): rerun to confirm", style=s("bold err")),
            "fast": Text("▶ fast (> 1.5 × median)", style=s("warn")),
            "error": Text(r.error or "error", style=s("err"))}.get(row.flag, Text(""))
    return (str(row.rank or "-"), f"osd.{r.osd}", f"{r.mib_per_sec:.1f}" if r.ok else "-",
            f"{r.iops:.0f}" if r.ok else "-", f"{r.elapsed_sec:.1f}s" if r.ok else "-",
            f"{row.ratio:.2f}" if row.ratio is not None else "-", flag)


class BenchConfirmScreen(YesNoDialog):
    """The commands a run amounts to, what it does to the cluster, Run or Cancel."""

    BINDINGS = [Binding("escape", "no", "Cancel")]
    YES, NO, FOCUS = "bench-confirm-run", "bench-confirm-cancel", "bench-confirm-run"
    DEFAULT_CSS = MODAL_CSS.format(name="BenchConfirmScreen")

    def __init__(self, title: str, operations: Sequence[Operation], explain: str) -> None:
        super().__init__()
        self.title_text = title
        self.operations = tuple(operations)
        self.explain = explain

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            yield Static(Group(Text("This runs, in order (the equivalent commands):", style="bold"),
                               command_block(self.operations), Text(self.explain)), id="bench-confirm-body")
            with Horizontal():
                yield Button("Cancel", id="bench-confirm-cancel")
                yield Button("Run", id="bench-confirm-run", variant="primary")


def run_title(r: BenchResult) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.started_at))
    if isinstance(r.params, BlockParams):
        return (f"{when} · {mode_label(r)} {r.params.io_pattern} · image {target_label(r)} · {r.op_size} B × "
                f"{r.params.threads} · {cache_label(r)}")
    return f"{when} · {r.params.mode} · pool {r.params.pool} · {r.op_size} B × {r.params.threads}"


def result_table(r: BenchResult) -> Table:
    t = Table(box=None, show_header=False, padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    for label, value in summary_lines(r):
        t.add_row(label, value)
    t.add_row("Status", Text(r.status, style=palette.style("err" if r.error else "warn" if r.stopped else "ok")))
    if r.error:
        t.add_row("Error", Text(r.error, style=palette.style("err")))
    stall = r.longest_stall
    if stall is not None and stall[1] >= STALL_NOTABLE:
        t.add_row("Stall", Text(f"{stall[1]} s from second {stall[0]}: ops in flight, none completed "
                                "(an OSD down or hung, PGs peering)", style=palette.style("warn")))
    if r.cleanup_note:
        t.add_row("Cleanup", r.cleanup_note)
    t.add_row("Command", Text(r.params.cli(), style=palette.style("info")))
    t.add_row("Cluster", r.cluster or "?")
    return t


def samples_table(r: BenchResult, limit: int = 600) -> Table:
    t = Table(box=None, padding=(0, 2), header_style="bold")
    pct = any(s.p50 for s in r.samples)  # per-second percentiles: runs since block benchmarks came
    for c in ("sec", "Cur ops", "finished", "MiB/s", "IOPS", "avg lat(s)", "max lat(s)",
              *(("p50(s)", "p99(s)", "p99.9(s)") if pct else ())):
        t.add_column(c, justify="right")
    for s in r.samples[:limit]:
        t.add_row(str(s.sec), str(s.in_flight), str(s.finished), f"{s.mib_s:.2f}", str(s.ops), f"{s.avg_lat:.6f}",
                  f"{s.max_lat:.6f}", *((f"{s.p50:.6f}", f"{s.p99:.6f}", f"{s.p999:.6f}") if pct else ()))
    return t


class RunDetailScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,enter", "dismiss", "Close")]
    DEFAULT_CSS = MODAL_CSS.format(name="RunDetailScreen")

    def __init__(self, result: BenchResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(run_title(self.result) + "  (escape closes)", classes="title")
            with VerticalScroll():
                yield Static(Group(result_table(self.result), Text("\nPer second", style="bold"),
                                   samples_table(self.result)), id="bench-detail-body")


def compare_renderable(a: BenchResult, b: BenchResult) -> RenderableType:
    t = Table(box=None, padding=(0, 2), header_style="bold")
    t.add_column("")
    t.add_column("A", justify="right")
    t.add_column("B", justify="right")
    t.add_column("B vs A", justify="right")
    for row in compare(a, b):
        fmt = (lambda v: f"{v * 1000:.2f} ms") if row.unit == "s" and "Total" not in row.label else (
            _with_unit(row.unit) if row.unit else (lambda v: f"{v:.0f}"))
        change = "" if row.change is None else f"{row.change * 100:+.1f}%"
        style = "" if row.better is None else palette.style("ok" if row.better else "err")
        t.add_row(row.label, fmt(row.a), fmt(row.b), Text(change, style=style))
    head = Text()
    head.append("A  ", style="bold")
    head.append(run_title(a) + "\n")
    head.append("B  ", style="bold")
    head.append(run_title(b) + "\n")
    why = comparable(a, b)
    if why:
        head.append(f"⚠ these runs measure different things: {why}\n", style=palette.style("warn"))
    legend = Text.assemble(("B is better", palette.style("ok")), "; ", ("B is worse", palette.style("err")),
                           style=palette.style("muted"))
    return Group(head, t, legend)


class CompareScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,enter", "dismiss", "Close")]
    DEFAULT_CSS = MODAL_CSS.format(name="CompareScreen")

    def __init__(self, a: BenchResult, b: BenchResult) -> None:
        super().__init__()
        self.a, self.b = a, b

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Two runs side by side  (escape closes)", classes="title")
            with VerticalScroll():
                yield Static(compare_renderable(self.a, self.b), id="bench-compare-body")
