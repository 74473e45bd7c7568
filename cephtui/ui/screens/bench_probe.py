"""The latency probe's form (objects or an image) and its result: the table and the words.

The probe (ceph/bench/probe.py) writes 4 KiB at random one at a time, then reads, and sets the latencies
against the network's floor measured at that moment; the words say how far the cluster is from it and
where the time goes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from cephtui.ceph import ops
from cephtui.ceph.bench.blockparams import CACHE_MODES
from cephtui.ceph.bench.probe_result import ProbeResult, write_floor
from cephtui.ceph.images.listing import ImageList
from cephtui.ui.dialog_types import Field
from cephtui.ui.screens.bench_block_form import CACHE_LABELS, split_target, target_choices
from cephtui.ui.screens.bench_forms import float_field
from cephtui.ui.screens.bench_views import MODAL_CSS
from cephtui.ui.screens.dialog import Dialog
from cephtui.ui.screens.wizards.form import FormScreen

HELP = ("4 KiB, one op in flight: random writes, then random reads, for the given seconds each. What a VM with "
        "cache=none feels is this latency; the IOPS one op in flight allows is 1/latency. The result is set "
        "against this cluster's network floor, measured at that moment.")


@dataclass(frozen=True)
class ProbeChoice:
    kind: str  # "rados" or "rbd"
    pool: str
    seconds: float
    image: str = ""  # rbd: an existing image ("" = a temporary one)
    cache: str = "off"


def probe_form(*, kind: str, pools: Sequence[str] = (), images: ImageList | None = None,
               last: ProbeChoice | None = None) -> tuple[FormScreen, Callable[[dict[str, str]], ProbeChoice]]:
    """The probe's form for objects (a pool) or blocks (an image or a temporary one); and how to read it."""
    seconds = Field("seconds", "Seconds each way", f"{last.seconds:g}" if last else "10")
    if kind == "rados":
        pool = last.pool if last and last.pool in pools else next((p for p in pools if p == "rbd"), "")
        fields = [Field("pool", "Pool (objects are written, read, removed)", pool, choices=("", *pools)), seconds]
    else:
        values, labels = target_choices(images or ImageList((), ()))
        target = (f"temp:{last.pool}" if not last.image else f"{last.pool}/{last.image}") if last else \
            (values[0] if values else "")
        fields = [Field("target", "Image", target if target in values else "", choices=values, labels=labels),
                  Field("other", "…or type pool/image", "", placeholder="when the image is not listed"),
                  Field("cache", "Client cache", last.cache if last else "off", choices=CACHE_MODES,
                        labels=CACHE_LABELS),
                  seconds,
                  Field("confirm", "Type the image name to write to it", "",
                        placeholder="only for an existing image")]

    def choice_of(v: dict[str, str]) -> ProbeChoice:
        secs = float_field(v["seconds"], "seconds")
        if not 1 <= secs <= 600:
            raise ValueError("seconds each way: from 1 to 600")
        if kind == "rados":
            if not v.get("pool"):
                raise ValueError("choose a pool")
            return ProbeChoice("rados", v["pool"], secs)
        pool, image, _ = split_target(v.get("target", ""), v.get("other", ""))
        if image and v.get("confirm", "").strip() != image:
            raise ValueError(f"the probe writes 4 KiB at random into {pool}/{image}, destroying data there: type "
                             f"its name ({image}) to confirm, or pick a temporary image")
        return ProbeChoice("rbd", pool, secs, image, v.get("cache") or "off")

    def build(v: dict[str, str]) -> list[ops.Operation]:
        choice_of(v)
        return []  # the commands come with the confirmation, where the probe's own names are known

    title = "Latency probe: objects (RADOS)" if kind == "rados" else "Latency probe: an RBD image"
    return FormScreen(title, fields, build, help=HELP), choice_of


def probe_table(r: ProbeResult) -> Table:
    t = Table(box=None, padding=(0, 2), header_style="bold")
    for c in ("", "p50", "p99", "p99.9", "max", "IOPS@p50", "IOPS@mean", "net floor"):
        t.add_column(c, justify="right")
    for d, floor in ((r.write, write_floor(r.floor, r.shape)), (r.read, r.floor.client_rtt)):
        if d is None:
            continue
        t.add_row(d.name, *(f"{v * 1000:.3f} ms" for v in (d.p50, d.p99, d.p999, d.max)), f"{d.iops_p50:.0f}",
                  f"{d.iops_mean:.0f}", f"{floor * 1000:.3f} ms")
    return t


class ProbeResultScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,enter", "dismiss", "Close")]
    DEFAULT_CSS = MODAL_CSS.format(name="ProbeResultScreen")

    def __init__(self, result: ProbeResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        r = self.result
        with Vertical():
            yield Static(f"Latency probe: {r.target}" + (f" · client cache {r.cache}" if r.cache else "")
                         + "  (escape closes)", classes="title")
            with VerticalScroll():
                yield Static(Group(probe_table(r), Text(""), *(Text(line + "\n") for line in r.words)),
                             id="probe-body")
