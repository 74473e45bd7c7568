"""Wrappers around the `crushtool` and `osdmaptool` binaries: offline copies of the maps.

Everything runs in a private temporary directory with a timeout; failures raise
CrushToolError (or CrushCompileError with the compiler's own message and line).

`decompile` writes weights exactly by default. `crushtool -d` prints them with three
decimals, so an untouched decompile/compile round trip changes every weight that is
not a multiple of 1/1000 (0.00980 -> 0.010) and moves data. We rewrite item weights
and weight-set rows from the same binary's JSON dump so a round trip is lossless.
"""
from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cephtui.ceph.coerce import as_dict, as_float, as_int, as_list, as_str, dicts

TOOLS = ("crushtool", "osdmaptool")
TIMEOUT = 120.0
NONE_OSD = 2147483647  # CRUSH_ITEM_NONE: an EC position CRUSH could not fill


class CrushToolError(RuntimeError):
    """A crushtool/osdmaptool run failed; the message is the tool's own output."""


class CrushCompileError(CrushToolError):
    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(message)


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def _run(argv: Sequence[str], cwd: Path, timeout: float = TIMEOUT) -> str:
    if shutil.which(argv[0]) is None:
        raise CrushToolError(f"{argv[0]} is not installed (it ships with ceph-base / ceph-common)")
    try:
        res = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CrushToolError(f"{argv[0]} did not finish within {timeout:.0f}s") from None
    if res.returncode < 0:  # killed by a signal: its output is a crash dump, which says nothing to an admin
        raise CrushToolError(
            f"{argv[0]} crashed ({_signal_name(-res.returncode)}) reading this cluster's map: this "
            f"{argv[0]} ({tool_version(argv[0]) or 'unknown version'}) is probably older than the cluster; "
            "install the cluster's own release of ceph-common")
    if res.returncode != 0:
        msg = "\n".join(s.strip() for s in (res.stderr, res.stdout) if s.strip())
        if "error decoding" in msg:  # the map's encoding is newer than this tool (Pacific's on Tentacle's)
            msg += (f"\n{argv[0]} ({tool_version(argv[0]) or 'unknown version'}) cannot decode this cluster's "
                    "map, probably written by a newer Ceph release: install the cluster's own release of "
                    "ceph-common")
        raise CrushToolError(msg or f"{argv[0]} failed with exit code {res.returncode}")
    return res.stdout


def _signal_name(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def tool_version(tool: str) -> str:
    """`osdmaptool --version` as '14.2.21 nautilus'; '' when it cannot tell."""
    try:
        res = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    m = re.search(r"ceph version (\S+) \(\w+\) (\w+)", res.stdout)
    return f"{m.group(1)} {m.group(2)}" if m else ""


def _tmp() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="cephtui-crush-")


# ------------------------------------------------------------------ crush maps

def dump(binary: bytes) -> dict[str, Any]:
    """`crushtool --dump`: the same JSON as `osd crush dump`, for an offline map."""
    with _tmp() as d:
        p = Path(d)
        (p / "in").write_bytes(binary)
        return tool_json(_run(["crushtool", "-i", "in", "--dump", "-f", "json"], p), "crushtool --dump")


def decompile(binary: bytes, exact: bool = True) -> str:
    with _tmp() as d:
        p = Path(d)
        (p / "in").write_bytes(binary)
        _run(["crushtool", "-d", "in", "-o", "out.txt"], p)
        text = (p / "out.txt").read_text()
        if not exact:
            return text
        dumped = tool_json(_run(["crushtool", "-i", "in", "--dump", "-f", "json"], p), "crushtool --dump")
    return exact_weights(text, dumped)


def _w(v: float) -> str:
    return repr(float(v))  # 16.16 values are dyadic: repr is exact and parses back to the same bits


_BUCKET_HEAD = re.compile(r"^(\S+)\s+(\S+)\s*\{\s*$")
_ITEM = re.compile(r"^(\s*item\s+\S+\s+weight\s+)(-?[0-9.]+)(.*)$")
_CHOOSE_ARGS = re.compile(r"^choose_args\s+(\d+)\s*\{")
_BUCKET_ID = re.compile(r"^\s*bucket_id\s+(-?\d+)")
_ROW = re.compile(r"^(\s*)\[([-0-9.\s]*)\](\s*)$")


def exact_weights(text: str, dumped: dict[str, Any]) -> str:
    """Replace the 3-decimal weights of `crushtool -d` text by exact ones from its JSON dump."""
    # Lenient: a part of the dump in another shape keeps crushtool's own 3-decimal text for it.
    dumped = as_dict(dumped)
    items = {as_str(b["name"]): [as_int(it.get("weight")) / 0x10000 for it in dicts(b.get("items"))]
             for b in dicts(dumped.get("buckets")) if "name" in b}
    wsets: dict[tuple[int, int], list[list[float]]] = {}
    for key, entries in as_dict(dumped.get("choose_args")).items():
        k = as_int(key) % (1 << 64)  # the text prints the "no pool" key -1 as an unsigned 64-bit number
        for e in dicts(entries):
            wsets[(k, as_int(e.get("bucket_id")))] = [[as_float(v) for v in r] for r in as_list(e.get("weight_set"))
                                                      if isinstance(r, list)]
    out: list[str] = []
    bucket: str | None = None
    idx = 0
    cargs: int | None = None
    cbucket: int | None = None
    row = 0
    for line in text.splitlines():
        stripped = line.strip()
        m = _CHOOSE_ARGS.match(line)
        if m:
            cargs, bucket = int(m.group(1)), None
        elif cargs is None and bucket is None:
            h = _BUCKET_HEAD.match(line)
            if h and h.group(1) not in ("rule", "choose_args"):
                bucket, idx = h.group(2), 0
        elif bucket is not None:
            im = _ITEM.match(line)
            if im and idx < len(items.get(bucket, [])):
                line = f"{im.group(1)}{_w(items[bucket][idx])}{im.group(3)}"
                idx += 1
            elif stripped == "}":
                bucket = None
        else:  # inside choose_args
            bm = _BUCKET_ID.match(line)
            if bm:
                cbucket, row = int(bm.group(1)), 0
            rm = _ROW.match(line)
            if rm and cbucket is not None:
                rows = wsets.get((cargs or 0, cbucket), [])
                if row < len(rows) and len(rows[row]) == len(rm.group(2).split()):
                    line = f"{rm.group(1)}[ {' '.join(_w(v) for v in rows[row])} ]{rm.group(3)}"
                row += 1
            if line.startswith("}"):
                cargs = cbucket = None
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


_LINE = re.compile(r":(\d+)\s+error:|\bline\s+(\d+)\b")


def compile_text(text: str) -> bytes:
    """Compile map source; raise CrushCompileError with crushtool's message (and line when it gives one)."""
    with _tmp() as d:
        p = Path(d)
        (p / "crushmap.txt").write_text(text)
        try:
            _run(["crushtool", "-c", "crushmap.txt", "-o", "out"], p)
        except CrushToolError as e:
            msg = str(e)
            # crushtool prints "crushmap.txt:52 error: parse error at '...'"; semantic errors have no line.
            m = _LINE.search(msg)
            line = int(m.group(1) or m.group(2)) if m else None
            msg = "\n".join(ln.replace("crushmap.txt:", "line ") for ln in msg.splitlines()
                            if not ln.startswith("crushtool:"))
            raise CrushCompileError(msg.strip() or "the map does not compile", line) from None
        return (p / "out").read_bytes()


def apply_edit(binary: bytes, args: Sequence[str]) -> bytes:
    """`crushtool -i IN <args> -o OUT`: one offline modification (add/move/remove/reweight, rules)."""
    with _tmp() as d:
        p = Path(d)
        (p / "in").write_bytes(binary)
        _run(["crushtool", "-i", "in", *args, "-o", "out"], p)
        out = p / "out"
        if not out.exists():  # crushtool writes nothing when the edit changed nothing
            return binary
        return out.read_bytes()


# ------------------------------------------------------------------ osdmaps

def export_crush(osdmap: bytes) -> bytes:
    with _tmp() as d:
        p = Path(d)
        (p / "osdmap").write_bytes(osdmap)
        _run(["osdmaptool", "osdmap", "--export-crush", "crush"], p)
        return (p / "crush").read_bytes()


_UP = re.compile(r"^(\d+\.[0-9a-f]+)\s+raw\s+\(\[([-0-9,]*)\].*?\)\s+up\s+\(\[([-0-9,]*)\]")


def map_pgs(osdmap: bytes, crush: bytes | None = None, mark_out: int | None = None,
            mark_up_in: bool = False) -> dict[str, tuple[int, ...]]:
    """pgid -> up set, as the mons would compute it (upmaps and primary affinity applied, pg_temp not).

    Uses `--test-map-pgs-dump-all` because plain `--test-map-pgs-dump` prints the acting set.
    Works on a copy: --import-crush rewrites the file. Holes in EC up sets are NONE_OSD.
    `mark_out` marks one OSD out first (osdmaptool keeps only the last --mark-out given).
    `mark_up_in` is for synthetic maps (`osdmaptool --createsimple`), whose OSDs are all down and
    out: CRUSH then exhausts its retries on every PG (minutes for a big map) and maps nothing.
    """
    with _tmp() as d:
        p = Path(d)
        (p / "osdmap").write_bytes(osdmap)
        argv = ["osdmaptool", "osdmap"]
        if crush is not None:
            (p / "crush").write_bytes(crush)
            argv += ["--import-crush", "crush"]
        if mark_up_in:
            argv.append("--mark-up-in")
        if mark_out is not None:
            argv += ["--mark-out", str(int(mark_out))]
        out = _run([*argv, "--test-map-pgs-dump-all"], p)
    return parse_pg_map(out)


def parse_pg_map(out: str) -> dict[str, tuple[int, ...]]:
    """pgid -> up set from `--test-map-pgs-dump-all` output; lines that do not parse are skipped."""
    result: dict[str, tuple[int, ...]] = {}
    for line in out.splitlines():
        m = _UP.match(line)
        if m:
            try:
                result[m.group(1)] = tuple(int(x) for x in m.group(3).split(",") if x)
            except ValueError:  # "[-,1]": the character class lets a lone '-' through
                continue
    return result


def osdmap_dump(osdmap: bytes) -> dict[str, Any]:
    """`osdmaptool --dump json`: the same JSON as `osd dump`, for an offline map."""
    with _tmp() as d:
        p = Path(d)
        (p / "osdmap").write_bytes(osdmap)
        out = _run(["osdmaptool", "osdmap", "--dump", "json"], p)
    start = out.find("{")  # a banner line ("osdmaptool: osdmap file ...") comes first
    if start < 0:
        raise CrushToolError("osdmaptool --dump printed no JSON")
    return tool_json(out[start:], "osdmaptool --dump")


def tool_json(out: str, what: str) -> dict[str, Any]:
    """A tool's JSON output as an object; CrushToolError (what callers catch) when it is not one."""
    try:
        data = json.loads(out)
    except ValueError as e:
        raise CrushToolError(f"{what} printed something that is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise CrushToolError(f"{what} printed {type(data).__name__}, not a JSON object")
    return data
