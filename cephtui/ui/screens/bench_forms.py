"""Bench forms: a new run, the per-OSD bench, the history export (the latency probe's form: bench_probe.py).

Each builder returns the FormScreen and, where the caller needs more than the commands, how to read
the submitted values: the Bench pane awaits the form, then reads them.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from cephtui.ceph import ops
from cephtui.ceph.bench.osdbench import OSDBenchParams
from cephtui.ceph.bench.osdbench import cli as osd_bench_cli
from cephtui.ceph.bench.params import BenchError, BenchParams, parse_size
from cephtui.ceph.bench.pool import temp_pool_pg_num
from cephtui.ceph.bench.service import plan_operations
from cephtui.config.model import BenchDefaults
from cephtui.ui.dialog_types import Field
from cephtui.ui.screens.bench_views import size_text
from cephtui.ui.screens.wizards.form import FormScreen

YES_NO = ("yes", "no")


def run_form(*, last: BenchParams | None, defaults: BenchDefaults, pools: Sequence[str],
             osds_in: int, temp_name: str) -> tuple[FormScreen, Callable[[dict[str, str]], tuple[BenchParams, bool]]]:
    """The new-run form, filled from this session's last run, else the config file's [bench]; and how to read
    (params, temporary pool?) from its values. `osds_in` (the last snapshot's) sizes the temporary pool in the
    live preview only: the confirmation asks the cluster."""
    d = defaults
    pool = last.pool if last and last.pool in pools else d.pool if d.pool and (d.pool in pools or not pools) \
        else next((p for p in pools if p == "rbd"), "")
    op_size, threads = (last.op_size, last.threads) if last else (d.block_size, d.threads)
    object_size = 0 if last else d.object_size
    fields = [
        Field("pool", "Pool (or a temporary pool below)", pool, choices=("", *pools) if pools else ()),
        Field("temp", "Temporary size-1 pool, deleted after", "no", choices=YES_NO),
        Field("mode", "Mode", last.mode if last else d.mode,
              choices=("write", "seq", "rand")),
        Field("seconds", "Seconds", f"{last.seconds if last else d.seconds:g}"),
        Field("threads", "Concurrent ops (threads)", str(threads)),
        Field("op_size", "Op size (e.g. 4K, 4M)", size_text(op_size)),
        Field("object_size", "Object size (empty: = op size)",
              size_text(object_size) if object_size and object_size != op_size else ""),
        Field("run_name", "Run name (metadata object)", last.run_name if last else ""),
        Field("cleanup", "Remove the objects afterwards", "yes" if d.cleanup else "no", choices=YES_NO),
        Field("op_timeout", "Op timeout (s)", f"{last.op_timeout if last else d.op_timeout:g}"),
    ]

    def params_of(v: dict[str, str]) -> tuple[BenchParams, bool]:
        temp = v.get("temp") == "yes"
        if not temp and not v.get("pool"):
            raise ValueError("choose a pool, or a temporary pool")
        if temp and v.get("mode") != "write":
            raise ValueError("a temporary pool starts empty: only write makes sense there")
        if not v["run_name"].strip().isprintable():  # zero-width and bidi characters would hide in the name
            raise ValueError("run name: only printable characters (no control, zero-width or bidi characters)")
        try:
            p = BenchParams(pool=temp_name if temp else v["pool"], mode=v.get("mode") or "write",
                            seconds=float_field(v["seconds"], "seconds"), threads=int_field(v["threads"], "threads"),
                            op_size=parse_size(v["op_size"]),
                            object_size=parse_size(v["object_size"]) if v["object_size"].strip() else 0,
                            run_name=v["run_name"].strip(), cleanup=v.get("cleanup") != "no",
                            op_timeout=float_field(v["op_timeout"], "op timeout"))
        except BenchError as e:
            raise ValueError(str(e)) from None
        return p, temp

    def build(v: dict[str, str]) -> list[ops.Operation]:
        p, temp = params_of(v)
        return plan_operations(p, temp, temp_pool_pg_num(osds_in))

    def warn(v: dict[str, str]) -> list[str]:
        notes = []
        if v.get("mode") in ("seq", "rand"):
            notes.append("reads need objects a write left with cleanup off (same run name)")
        if v.get("cleanup") == "no" and v.get("mode") == "write":
            notes.append("the objects stay in the pool until a cleanup (they use space)")
        return notes

    form = FormScreen("New benchmark run", fields, build,
                      help="The same engine and semantics as `rados bench` (16 × 4 MiB by default). Latency, "
                           "not peak throughput, is what most workloads feel: try l.", warn=warn)
    return form, params_of


def explain_run(p: BenchParams, temp: bool) -> str:
    """What a run does to the cluster, for its confirmation."""
    if p.mode == "write":
        explain = (f"Writes {size_text(p.op_size)} ops, {p.threads} at a time, for {p.seconds:g} s into pool "
                   f"{p.pool}: clients of that pool will feel the load. "
                   + ("The objects are removed afterwards." if p.cleanup else
                      "The objects stay (for seq/rand reads) until a cleanup."))
    else:
        explain = f"Reads the objects of the last write run in pool {p.pool} for up to {p.seconds:g} s."
    if temp:
        explain += " The temporary pool is deleted at the end, whatever happens."
    return explain


OSD_BENCH_EXPLAIN = ("Each OSD writes the given bytes to its disk (then deletes them); client IO on that OSD slows "
                     "down meanwhile.")


def osd_bench_form(total: int, osds: str = "all") -> tuple[FormScreen,
                                        Callable[[dict[str, str]], tuple[OSDBenchParams, tuple[int, ...] | None]]]:
    """The per-OSD bench form (`total`: how many OSDs the cluster has); and how to read (params, OSD ids or
    None for every OSD) from its values."""

    def params_of(v: dict[str, str]) -> tuple[OSDBenchParams, tuple[int, ...] | None]:
        try:
            p = OSDBenchParams(parse_size(v["total"]), parse_size(v["block"]))
        except BenchError as e:
            raise ValueError(str(e)) from None
        which = v["osds"].strip().lower()
        if which in ("", "all"):
            return p, None
        ids = []
        for part in which.replace(" ", ",").split(","):
            if part:
                part = part.removeprefix("osd.")
                # isdigit() alone takes '²' and 4,300-digit numbers, which int() then refuses obscurely
                if not (part.isascii() and part.isdigit()) or len(part) > 9:
                    raise ValueError(f"OSDs: '{part[:20]}' is not an OSD id (use all, or ids like 0,3,osd.7)")
                ids.append(int(part))
        return p, tuple(dict.fromkeys(ids))

    def build(v: dict[str, str]) -> list[ops.Operation]:
        p, ids = params_of(v)
        if ids is None:  # every OSD (ids need not be contiguous): the shell loop an admin would type
            each = osd_bench_cli(0, p).replace("osd.0", "osd.$id")
            return [ops.Operation(title=f"bench all {total} OSDs", prefix="tell bench", args=(),
                                  cli=f"for id in $(ceph osd ls); do {each}; done")]
        return [ops.Operation(title=f"bench osd.{i}", prefix="tell bench", args=(), cli=osd_bench_cli(i, p))
                for i in ids]

    def warn(v: dict[str, str]) -> list[str]:
        try:
            p, _ = params_of(v)
        except ValueError:
            return []
        w = p.default_limit_warning()
        return [w] if w else []

    form = FormScreen("Per-OSD bench", [
        Field("osds", "OSDs (all, or ids: 0,3,osd.7)", osds),
        Field("total", "Bytes per OSD", "1G"),
        Field("block", "Block size", "4M")], build,
        help="Each OSD writes to its own disk, one OSD at a time (in parallel they would measure each "
             "other). The fastest way to find the one slow disk. Defaults are ceph's.", warn=warn)
    return form, params_of


def export_form(marked: bool, default_path: str) -> FormScreen:
    """Where and how to export the history; the form refuses a file that exists."""

    def build(values: dict[str, str]) -> list[ops.Operation]:
        fmt = values.get("format") or ""
        path = values.get("path", "").strip()
        if fmt not in ("csv", "json"):
            raise ValueError("choose csv or json")
        if not path:
            raise ValueError("give a file name")
        if os.path.exists(os.path.expanduser(path)):
            raise ValueError(f"{path} already exists; choose another name")
        return []  # a local file, no cluster command

    return FormScreen("Export bench history", [
        Field("format", "Format", "csv", choices=("csv", "json")),
        Field("which", "Runs", "marked" if marked else "all", choices=("all", "marked")),
        Field("path", "File (created new, mode 0600)", default_path)], build,
        help="CSV has one row per run (the rados bench summary fields); JSON has every field and the "
             "per-second samples.")


def float_field(text: str, what: str) -> float:
    try:
        return ops.number(text, what)  # "0." and other half-typed numbers refused, not read as 0
    except ops.IncompleteNumber:
        raise
    except ValueError:
        raise ValueError(f"{what}: '{text}' is not a number") from None


def int_field(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{what}: '{text}' is not a whole number") from None
