"""CRUSH hierarchy, rules, EC profiles and the whole map: each operation carries crush_edit for the preview."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cephtui.ceph.ops.core import DESTROYS, MOVES_DATA, Operation
from cephtui.ceph.validate import check_name, cli_line, loc_args, loc_edit

EC_PLUGINS = ("jerasure", "isa", "lrc", "shec", "clay")


def crush_add_bucket(name: str, type_: str, location: Sequence[tuple[str, str]] = ()) -> Operation:
    name, type_ = check_name(name, "bucket name"), check_name(type_, "bucket type")
    loc = loc_args(location)
    where = f" under {location[0][1]}" if location else " (top level)"
    return Operation(title=f"Add {type_} bucket {name}{where}", prefix="osd crush add-bucket",
                     args=(("name", name), ("type", type_), *((("args", loc),) if loc else ())),
                     cli=cli_line("osd", "crush", "add-bucket", name, type_, *loc),
                     crush_edit=("--add-bucket", name, type_, *loc_edit(location)))


def crush_move(name: str, location: Sequence[tuple[str, str]]) -> Operation:
    name = check_name(name, "item")
    if not location:
        raise ValueError("choose where to move it")
    loc = loc_args(location)
    return Operation(title=f"Move {name} to {', '.join(loc)}", prefix="osd crush move",
                     args=(("name", name), ("args", loc)), cli=cli_line("osd", "crush", "move", name, *loc),
                     impact=MOVES_DATA, crush_edit=("--move", name, *loc_edit(location)))


def crush_rename_bucket(src: str, dst: str, bucket_type: str = "") -> Operation:
    src, dst = check_name(src, "bucket name"), check_name(dst, "new name")
    if src == dst:
        raise ValueError("the new name is the same as the old one")
    # Names are not hashed by CRUSH: a rename moves no data now. crushtool has no rename, so no edit. But an OSD
    # that starts places itself at its crush location (osd_crush_update_on_start, true by default), which names
    # buckets: "root=default host=<its short hostname>" unless crush_location is set.
    later = ""
    if src == "default" and bucket_type in ("root", ""):
        later = (f"every OSD that restarts with the default crush location (root=default) creates a new root "
                 f"`default` and moves there, out of {dst} and every rule that takes it: data moves then. Set "
                 f"crush_location (root={dst} host=…) on the OSDs first, or keep the name")
    elif bucket_type == "host":
        later = (f"if {src} is its OSDs' hostname, each of them that restarts creates a new host {src} under "
                 f"root default and moves there, out of {dst}: data moves then. Set crush_location (host={dst}) "
                 "on them first")
    effect = "no data moves now: CRUSH places by bucket ids, not names" + (f"; but {later}" if later else "")
    return Operation(title=f"Rename bucket {src} to {dst}", prefix="osd crush rename-bucket",
                     args=(("srcname", src), ("dstname", dst)), cli=cli_line("osd", "crush", "rename-bucket", src, dst),
                     effect=effect, confirm_text=src if later else "")


def crush_remove_bucket(name: str) -> Operation:
    name = check_name(name, "bucket name")
    return Operation(title=f"Remove bucket {name}", prefix="osd crush rm", args=(("name", name),),
                     cli=cli_line("osd", "crush", "rm", name), impact=DESTROYS, confirm_text=name,
                     crush_edit=("--remove-item", name))


def rule_create_replicated(name: str, root: str, failure_domain: str, device_class: str = "") -> Operation:
    name, root = check_name(name, "rule name"), check_name(root, "root")
    failure_domain = check_name(failure_domain, "failure domain")
    cls = check_name(device_class, "device class") if device_class.strip() else ""
    edit: tuple[str, ...] = ("--create-replicated-rule", name, root, failure_domain)
    if cls:
        edit += ("--device-class", cls)
    return Operation(title=f"Create replicated rule {name}", prefix="osd crush rule create-replicated",
                     args=(("name", name), ("root", root), ("type", failure_domain),
                           *((("class", cls),) if cls else ())),
                     cli=cli_line("osd", "crush", "rule", "create-replicated", name, root, failure_domain,
                              *((cls,) if cls else ())), crush_edit=edit)


def ec_profile_set(name: str, k: str | int, m: str | int, failure_domain: str = "host", device_class: str = "",
                   plugin: str = "jerasure", root: str = "default") -> Operation:
    name = check_name(name, "profile name")
    # Each checked on its own so the message names the one that is wrong; the upper bound is the
    # pool wizard's (a 400-digit k would otherwise reach the mon).
    k_, m_ = _chunks(k, "k", 2), _chunks(m, "m", 1)
    if plugin not in EC_PLUGINS:
        raise ValueError(f"plugin must be one of {', '.join(EC_PLUGINS)}")
    profile = [f"k={k_}", f"m={m_}", f"plugin={plugin}",
               f"crush-failure-domain={check_name(failure_domain, 'failure domain')}",
               f"crush-root={check_name(root, 'root')}"]
    if device_class.strip():
        profile.append(f"crush-device-class={check_name(device_class, 'device class')}")
    return Operation(title=f"Create erasure-code profile {name} ({k_}+{m_})", prefix="osd erasure-code-profile set",
                     args=(("name", name), ("profile", profile)),
                     cli=cli_line("osd", "erasure-code-profile", "set", name, *profile))


def _chunks(text: str | int, what: str, low: int, high: int = 32) -> int:
    raw = str(text).strip()
    if not (raw.isascii() and raw.lstrip("+-").isdigit()) or len(raw) > 6:
        raise ValueError(f"k and m must be whole numbers ({what} is '{raw[:20]}')")
    value = int(raw)
    if value < low:
        raise ValueError(f"{what} must be at least {low} (got {value})")
    if value > high:
        raise ValueError(f"{what} must be at most {high} (got {value})")
    return value


def rule_create_erasure(name: str, profile: str) -> Operation:
    name, profile = check_name(name, "rule name"), check_name(profile, "profile")
    return Operation(title=f"Create erasure rule {name} from profile {profile}", prefix="osd crush rule create-erasure",
                     args=(("name", name), ("profile", profile)),
                     cli=cli_line("osd", "crush", "rule", "create-erasure", name, profile), crush_edit=())


def rule_remove(name: str) -> Operation:
    name = check_name(name, "rule name")
    return Operation(title=f"Remove CRUSH rule {name}", prefix="osd crush rule rm", args=(("name", name),),
                     cli=cli_line("osd", "crush", "rule", "rm", name), impact=DESTROYS, confirm_text=name,
                     crush_edit=("--remove-rule", name))


def set_crush_map(compiled: bytes, prior_version: int | None = None, source: str = "crushmap.bin") -> Operation:
    """Install a compiled map. With prior_version the mon refuses if the map changed meanwhile (EPERM)."""
    if not compiled:
        raise ValueError("the compiled map is empty")
    args: tuple[tuple[str, Any], ...] = (("prior_version", prior_version),) if prior_version is not None else ()
    extra = (str(prior_version),) if prior_version is not None else ()
    return Operation(title="Install an edited CRUSH map", prefix="osd setcrushmap", args=args,
                     cli=cli_line("osd", "setcrushmap", "-i", source, *extra), impact=MOVES_DATA, inbuf=compiled,
                     crush_edit=())


def ec_profile_remove(name: str) -> Operation:
    name = check_name(name, "profile name")
    return Operation(title=f"Remove erasure-code profile {name}", prefix="osd erasure-code-profile rm",
                     args=(("name", name),), cli=cli_line("osd", "erasure-code-profile", "rm", name))
