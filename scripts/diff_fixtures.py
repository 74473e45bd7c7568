#!/usr/bin/env python3
"""Compare the JSON key structure of the same captures across Ceph releases.

    python3 scripts/diff_fixtures.py [--base pacific] [--releases reef,tentacle] [--markdown] [--by-file]
                                     [FIXTURES_DIR]

Reads every release directory under tests/fixtures/ (one holding a RELEASE.json), flattens each
recorded answer into paths and value types (`pools[].stats.stored: number`; list elements are
merged under `[]`, keys that are data such as health check codes or OSD names under `{key}`), and
prints, per command, what each release has that the base release has not, and the other way round,
and where a path's type differs. Answers of the same command in several captures of one release are
merged, so a field seen in any of them counts (`--by-file` compares file by file instead).

A path inside a list that is empty in every capture of one release cannot be compared and is not
reported as missing; a missing subtree is reported once, at its top; the I/O and recovery rates
Ceph prints only when non-zero are not compared. int and float are one type (`number`): Ceph prints 0
for a float that happens to be zero.

Exit status 0; the differences are the output. Pure Python, no cephtui import.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Keys of these objects are data (names, codes, ids), not fields: they are merged under {key}.
DATA_KEYED = [
    re.compile(p) for p in (
        r"^(.*\.)?checks$",                # health: check codes
        r"^servicemap\.services$",         # status: service names
        r"^servicemap\.services\.\{key\}\.daemons$",
        r"^(.*\.)?mutes$",
        r"^(.*\.)?services$",              # mgr dump: module -> URL
        r"^(.*\.)?metadata$",
        r"^(.*\.)?always_on_modules$",     # mgr dump: release -> modules
        r"^(.*\.)?num_per_pool_osds$",
        r"^(.*\.)?num_per_pool_omap_osds$",
        r"^(.*\.)?features\.[a-z_]+$",
        r"^(.*\.)?erasure_code_profiles$",
        r"^(.*\.)?application_metadata$",
        r"^(.*\.)?application_metadata\.\{key\}$",
        r"^(.*\.)?options$",
        r"^(.*\.)?module_options$",       # mgr dump: option name -> its description
        r"^(.*\.)?crush_version$",
        r"^(.*\.)?progress_events$",
        r"^(.*\.)?last_pg_merge_meta\.\{key\}$",
    )
]
# Fields Ceph prints only when non-zero (PGMap's client I/O and recovery rates, degraded/misplaced
# counts): whether a capture has them says how busy the cluster was, not which release it runs.
WHEN_NONZERO = re.compile(r"^(.*\.)?(pgmap|pg_summary)\."
                          r"(\w+_sec|\w+_per_sec|(recovering|degraded|misplaced|unfound)_\w+)$")
NAME_LIKE = re.compile(r"^(osd|mon|mgr|mds|client)\.|^[0-9]+$|^[A-Z][A-Z0-9_]+$")

Shape = dict[str, set[str]]  # path -> value types


def type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    return "object"


def data_keyed(path: str, obj: dict[str, Any]) -> bool:
    if any(p.match(path) for p in DATA_KEYED):
        return True
    # An object whose keys all look like names or ids (osd.0, 12, OSD_DOWN) is a map, not a record.
    return bool(obj) and all(NAME_LIKE.match(k) for k in obj)


def walk(v: Any, path: str, shape: Shape, nonempty: set[str]) -> None:
    shape.setdefault(path or ".", set()).add(type_name(v))
    if isinstance(v, dict):
        keyed = data_keyed(path, v)
        if v:
            nonempty.add(path or ".")
        for k, sub in v.items():
            name = "{key}" if keyed else k
            walk(sub, f"{path}.{name}" if path else name, shape, nonempty)
    elif isinstance(v, list):
        if v:
            nonempty.add(path)
        for sub in v:
            walk(sub, f"{path}[]", shape, nonempty)


# Arguments whose values are names picked at capture time (the objects `osd map` was asked about).
VARYING_ARGS = ("object",)


def command_label(key: str) -> str:
    k = json.loads(key)
    args = " ".join(f"{a}={'*' if a in VARYING_ARGS else v if not isinstance(v, list) else ','.join(map(str, v))}"
                    for a, v in sorted(k.items()) if a not in ("prefix", "target", "format"))
    return f"{k['target']}: {k['prefix']}" + (f" {args}" if args else "")


def load_release(d: Path, by_file: bool) -> dict[str, tuple[Shape, set[str]]]:
    """label -> (shape, paths of non-empty containers), merged over the release's captures."""
    out: dict[str, tuple[Shape, set[str]]] = {}
    for f in sorted(d.glob("*.json")):
        doc = json.loads(f.read_text())
        if not isinstance(doc, dict) or "commands" not in doc:
            continue
        for key, rec in doc["commands"].items():
            label = command_label(key)
            if by_file:
                label = f"{f.stem} / {label}"
            shape, nonempty = out.setdefault(label, ({}, set()))
            if "out" not in rec:
                shape.setdefault("<error>", set()).add(str(rec.get("errno")))
                continue
            text = re.sub(r"(?<![\w\"])-?(nan|inf)\b", "null", rec["out"])
            try:
                walk(json.loads(text) if text.strip() else None, "", shape, nonempty)
            except ValueError:
                shape.setdefault("<not json>", set()).add("text")
    # The CRUSH captures (scripts/capture_crush_fixtures.py): plain answers, one file per command.
    # Pacific's live in tests/fixtures/crush/, where the CRUSH tests read them.
    crush = d / "crush" if (d / "crush").is_dir() else d.parent / "crush" if d.name == "pacific" else None
    for name, command in (("crush_dump.json", "mon: osd crush dump"),
                          ("osd_dump.json", "mon: osd dump (CRUSH capture)")):
        if crush is not None and (crush / name).is_file():
            shape, nonempty = out.setdefault(command, ({}, set()))
            walk(json.loads((crush / name).read_text()), "", shape, nonempty)
    return out


def parents(path: str) -> list[str]:
    out = []
    p = path
    while True:
        if p.endswith("[]"):
            p = p[:-2]
        elif "." in p:
            p = p.rsplit(".", 1)[0]
        else:
            break
        out.append(p)
    return out


def comparable(path: str, other: tuple[Shape, set[str]]) -> bool:
    """False when `path` could not have been seen in the other release: an ancestor container
    there was always empty (or always null)."""
    shape, nonempty = other
    for p in parents(path):
        if p in shape:
            types = shape[p]
            if types & {"list", "object"} and p not in nonempty:
                return False
            if types == {"null"}:
                return False
            return True
    return True


def top_only(paths: list[str]) -> list[str]:
    s = set(paths)
    return [p for p in sorted(paths) if not any(q in s for q in parents(p))]


Diff = tuple[str, str, str, str, str]  # command, path, kind (added/removed/type), base types, other types


def types_of(t: set[str]) -> str:
    return "/".join(sorted(t))


def compare(base: dict[str, tuple[Shape, set[str]]], other: dict[str, tuple[Shape, set[str]]]) -> list[Diff]:
    diffs: list[Diff] = []
    for label in sorted(set(base) & set(other)):  # a command one release alone recorded: nothing to compare
        bs, os_ = base[label][0], other[label][0]
        added = [p for p in os_ if p not in bs and comparable(p, base[label]) and not WHEN_NONZERO.match(p)]
        removed = [p for p in bs if p not in os_ and comparable(p, other[label]) and not WHEN_NONZERO.match(p)]
        diffs += [(label, p, "added", "", types_of(os_[p])) for p in top_only(added)]
        diffs += [(label, p, "removed", types_of(bs[p]), "") for p in top_only(removed)]
        for p in sorted(set(bs) & set(os_)):
            # null in one release and a value in another is no structural change
            if bs[p] != os_[p] and (bs[p] - {"null"}) != (os_[p] - {"null"}):
                diffs.append((label, p, "type", types_of(bs[p]), types_of(os_[p])))
    return diffs


def major(d: Path) -> int:
    """16 for 'ceph version 16.2.15 (...) pacific (stable)'."""
    return int(json.loads((d / "RELEASE.json").read_text())["ceph_version"].split()[2].split(".")[0])


def release_dirs(root: Path) -> list[Path]:
    return sorted((d for d in root.iterdir() if (d / "RELEASE.json").exists()), key=major)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("fixtures", nargs="?", default=str(ROOT / "tests" / "fixtures"))
    p.add_argument("--base", default="pacific", help="the release the others are compared with")
    p.add_argument("--markdown", action="store_true", help="one table row per difference")
    p.add_argument("--by-file", action="store_true", help="compare capture files one by one")
    p.add_argument("--releases", help="compare only these releases with the base (comma-separated)")
    args = p.parse_args(argv)
    dirs = {d.name: d for d in release_dirs(Path(args.fixtures))}
    if args.releases:
        wanted = set(args.releases.split(",")) | {args.base}
        dirs = {n: d for n, d in dirs.items() if n in wanted}
    if args.base not in dirs:
        print(f"no {args.base} captures under {args.fixtures}", file=sys.stderr)
        return 2
    base = load_release(dirs[args.base], args.by_file)
    # (command, path, kind, base types) -> {release: its types}
    found: dict[tuple[str, str, str, str], dict[str, str]] = defaultdict(dict)
    one_sided: list[str] = []
    compared: dict[str, int] = {}
    for name, d in dirs.items():
        if name == args.base:
            continue
        other = load_release(d, args.by_file)
        common = set(base) & set(other)
        compared[name] = len(common)
        print(f"{name}: {len(common)} commands compared with {args.base}, "
              f"{sum(len(base[c][0]) for c in common)} {args.base} paths", file=sys.stderr)
        for label, path, kind, was, now in compare(base, other):
            found[(label, path, kind, was)][name] = now
        one_sided += [f"{label} ({args.base} only, not {name})" for label in sorted(set(base) - set(other))]
        one_sided += [f"{label} ({name} only)" for label in sorted(set(other) - set(base))]

    def says(kind: str, was: str, where: dict[str, str]) -> str:
        names = ", ".join(where)
        if kind == "added":
            return f"{'/'.join(sorted(set(where.values())))} on {names}; absent on {args.base}"
        if kind == "removed":
            return f"{was} on {args.base}; absent on {names}"
        return f"{was} on {args.base}; " + "; ".join(f"{t} on {n}" for n, t in where.items())

    if args.markdown:
        print("| command | path | change | what |")
        print("|---|---|---|---|")
    last = None
    for (label, path, kind, was), where in sorted(found.items()):
        if args.markdown:
            print(f"| `{label}` | `{path}` | {kind} | {says(kind, was, where)} |")
            continue
        if label != last:
            print(f"\n{label}")
            last = label
        print(f"  {kind:8} {path}: {says(kind, was, where)}")
    for line in one_sided:
        print(f"not compared, recorded by one release only: {line}", file=sys.stderr)
    others = [n for n in dirs if n != args.base]
    print(f"\n{len(found)} differences between {args.base} and {', '.join(others)} "
          f"({sum(len(w) for w in found.values())} counting each release)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
