"""The block (RBD) bench form: an image or a temporary one, `rbd bench`'s options, the client cache mode.

It shows, as the operator types, the commands the run amounts to (the temporary image's `rbd create` and
`rbd rm` around the `rbd bench` equivalent, with its CEPH_ARGS cache setting) and, as a note, the `fio
--ioengine=rbd` command that measures the same. A write on an existing image destroys its data: the form
asks for the image's name typed before it lets the run go on.
"""
from __future__ import annotations

from collections.abc import Callable

from cephtui.ceph import ops
from cephtui.ceph.bench.blockparams import CACHE_MODES, IO_PATTERNS, IO_TYPES, BlockParams
from cephtui.ceph.bench.params import BenchError, parse_size
from cephtui.ceph.bench.service import plan_operations
from cephtui.ceph.images.listing import ImageList
from cephtui.ui.dialog_types import Field
from cephtui.ui.screens.bench_forms import float_field as _float
from cephtui.ui.screens.bench_forms import int_field as _int
from cephtui.ui.screens.bench_views import size_text
from cephtui.ui.screens.wizards.form import FormScreen

TEMP = "temp:"  # a target value: a temporary image in the pool that follows
CACHE_LABELS = ("off (rbd_cache=false: a VM with cache=none/directsync)", "writeback (librbd's cache)")
DEFAULT_TEMP_SIZE = 2 << 30


def target_choices(images: ImageList) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The picker's values and labels: a temporary image in each rbd pool, then the pools' images."""
    values = tuple(f"{TEMP}{p}" for p in images.rbd_pools) + images.images
    labels = tuple(f"a temporary image in {p}" for p in images.rbd_pools) + images.images
    return values, labels


def split_target(target: str, other: str) -> tuple[str, str, bool]:
    """(pool, image, temporary?) from the picker, or from `pool/name` typed when the image is not listed."""
    typed = other.strip()
    if typed:
        pool, sep, name = typed.partition("/")
        if not sep or not pool or not name or "/" in name:
            raise ValueError(f"image: {typed[:60]!r} is not pool/name")
        return pool, name, False
    if not target:
        raise ValueError("choose an image, or a temporary image")
    if target.startswith(TEMP):
        return target[len(TEMP):], "", True
    pool, _, name = target.partition("/")
    return pool, name, False


def block_run_form(*, images: ImageList, last: BlockParams | None, pick: str = ""
                   ) -> tuple[FormScreen, Callable[[dict[str, str]], BlockParams]]:
    """The block run form and how to read its BlockParams. `last`: this session's last block run; `pick`: an
    image (pool/image) chosen in the Images tab."""
    values, labels = target_choices(images)
    if pick:
        target = pick
    elif last is not None:
        target = f"{TEMP}{last.pool}" if not last.image else f"{last.pool}/{last.image}"
    else:
        target = values[0] if values else ""
    typed = pick if pick else ("" if last is None or not last.image else f"{last.pool}/{last.image}")
    fields = [
        Field("target", "Image", target if target in values else "", choices=values, labels=labels),
        Field("other", "…or type pool/image", "" if target in values else typed,
              placeholder="when the image is not listed"),
        Field("temp_size", "Temporary image size", size_text(last.temp_image_size) if last and
              last.temp_image_size else size_text(DEFAULT_TEMP_SIZE)),
        Field("io_type", "IO type", last.io_type if last else "write", choices=IO_TYPES),
        Field("io_pattern", "IO pattern", last.io_pattern if last else "seq",
              choices=IO_PATTERNS),
        Field("io_size", "IO size (e.g. 4K, 4M)", size_text(last.io_size) if last else "4K"),
        Field("io_threads", "IOs in flight (threads)", str(last.io_threads) if last else "16"),
        Field("io_total", "Total bytes (rbd bench: 1G)", size_text(last.io_total) if last else "1G"),
        Field("seconds", "Also stop after (s, empty: no)", f"{last.seconds:g}" if last and last.seconds else ""),
        Field("rw_mix_read", "Read share of readwrite (%)", str(last.rw_mix_read) if last else "50"),
        Field("cache", "Client cache", last.cache if last else "off", choices=CACHE_MODES, labels=CACHE_LABELS),
        Field("confirm", "Type the image name to overwrite it", "",
              placeholder="only for writes to an existing image"),
    ]

    def params_of(v: dict[str, str]) -> BlockParams:
        pool, image, temp = split_target(v.get("target", ""), v.get("other", ""))
        io_type = v.get("io_type") or "write"
        if image and io_type != "read" and v.get("confirm", "").strip() != image:
            raise ValueError(f"a {io_type} run overwrites the data of {pool}/{image}: type its name ({image}) "
                             "to confirm, or pick a temporary image")
        try:
            return BlockParams(
                pool=pool, image=image, temp_image_size=parse_size(v["temp_size"]) if temp else 0,
                io_type=io_type, io_pattern=v.get("io_pattern") or "seq", io_size=parse_size(v["io_size"]),
                io_threads=_int(v["io_threads"], "IOs in flight"), io_total=parse_size(v["io_total"]),
                seconds=_float(v["seconds"], "seconds") if v["seconds"].strip() else 0.0,
                rw_mix_read=_int(v["rw_mix_read"], "read share"), cache=v.get("cache") or "off")
        except BenchError as e:
            raise ValueError(str(e)) from None

    def build(v: dict[str, str]) -> list[ops.Operation]:
        return plan_operations(params_of(v), False, 0)

    def warn(v: dict[str, str]) -> list[str]:
        notes = []
        try:
            _, image, temp = split_target(v.get("target", ""), v.get("other", ""))
        except ValueError:
            return []
        if temp and v.get("io_type") != "write":
            notes.append("a temporary image starts empty: reads of it measure little (librbd knows the "
                         "objects do not exist); write first, or pick an image")
        if image and v.get("io_type") != "read":
            notes.append("the image's data in the written range is lost; the run is refused while a VM or "
                         "a mapped device has it open (watchers)")
        return notes

    def notes(v: dict[str, str]) -> list[str]:
        try:
            p = params_of(v)
        except ValueError:
            return []
        return [f"fio equivalent: {p.fio_cli()}"]

    title = "New block (RBD) benchmark run"
    form = FormScreen(title, fields, build, warn=warn, notes=notes,
                      help="`rbd bench` semantics through librbd, as a VM's disk sees the cluster. The client cache "
                           "decides what it measures: off is what a VM with cache=none feels (Proxmox's default).")
    return form, params_of


def explain_block_run(p: BlockParams) -> str:
    """What a block run does to the cluster, for its confirmation."""
    what = {"write": "Writes", "read": "Reads", "readwrite": "Reads and writes"}.get(p.io_type, p.io_type)
    target = f"a temporary {size_text(p.temp_image_size)} image in pool {p.pool} (removed afterwards, whatever " \
             f"happens)" if not p.image else f"image {p.pool}/{p.image}"
    stop = f"{size_text(p.io_total)} in total" + (f" or {p.seconds:g} s, whichever comes first" if p.seconds else "")
    text = (f"{what} {size_text(p.io_size)} IOs, {p.io_threads} at a time, {p.io_pattern}, {stop}, on {target}, "
            f"client cache {p.cache}. Clients of that pool will feel the load.")
    if p.image and p.io_type != "read":
        text += f" The data of {p.pool}/{p.image} in the written range is overwritten."
    return text
