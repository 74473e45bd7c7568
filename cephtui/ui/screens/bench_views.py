"""Bench dialogs: confirm a run, one run's full summary, two runs side by side."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from cephtui.benchcli import summary_lines
from cephtui.ceph.bench.engine import STALL_NOTABLE, BenchResult
from cephtui.ceph.bench.history import comparable, compare
from cephtui.ceph.ops import Operation
from cephtui.ui import palette
from cephtui.ui.widgets.confirm import command_block
from cephtui.ui.widgets.dialog import Dialog

MODAL_CSS = """
{name} > Vertical {{ width: 110; }}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} VerticalScroll {{ height: auto; }}
"""


def _with_unit(unit: str) -> Callable[[float], str]:
    return lambda v: f"{v:.2f} {unit}".strip()


class BenchConfirmScreen(Dialog[bool]):
    """The commands a run amounts to, what it does to the cluster, Run or Cancel."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
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

    def on_mount(self) -> None:
        self.query_one("#bench-confirm-run", Button).focus()

    @on(Button.Pressed, "#bench-confirm-run")
    def _run(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#bench-confirm-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


def run_title(r: BenchResult) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.started_at))
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
    for c in ("sec", "Cur ops", "finished", "MiB/s", "IOPS", "avg lat(s)", "max lat(s)"):
        t.add_column(c, justify="right")
    for s in r.samples[:limit]:
        t.add_row(str(s.sec), str(s.in_flight), str(s.finished), f"{s.mib_s:.2f}", str(s.ops), f"{s.avg_lat:.6f}",
                  f"{s.max_lat:.6f}")
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
