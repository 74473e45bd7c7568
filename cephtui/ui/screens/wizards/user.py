"""Create a cephx user from a capability template, or replace an entity's caps; both validated before sending.

Step 1 (TemplateForm) picks the name and a template (RBD client, CephFS client,
RGW gateway, read-only monitoring, custom) with only that template's inputs
shown. Step 2 (a FormScreen) shows the template's caps per service, editable;
every cap string goes through caps.validate, and a wrong one is shown with a
caret under the place where Ceph's parser would stop. The confirmation dialog
then shows the exact `ceph auth get-or-create` command.

Editing caps is one `ceph auth caps` command that REPLACES every cap of the
entity: the confirmation shows the old and new caps side by side, with the
services that lose their caps in the error colour.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.dom import DOMNode
from textual.widgets import Select

from cephtui.ceph import ops
from cephtui.ceph.ops import caps as caps_mod
from cephtui.ceph.snapshot.cluster_snapshot import ClusterSnapshot
from cephtui.ceph.snapshot.users import AuthEntity
from cephtui.ui import palette
from cephtui.ui.dialog_types import Field
from cephtui.ui.screens.wizards.form import FormScreen
from cephtui.ui.services import services_of

TEMPLATES: tuple[tuple[str, str], ...] = (
    ("rbd", "RBD client (profile rbd on chosen pools)"),
    ("cephfs", "CephFS client restricted to a path"),
    ("rgw", "RGW gateway"),
    ("monitoring", "Read-only monitoring (mon/mgr allow r)"),
    ("custom", "Custom (write every cap yourself)"),
)
TEMPLATE_LABELS = dict(TEMPLATES)
# Which step-1 fields each template uses (the others are hidden).
TEMPLATE_FIELDS: dict[str, tuple[str, ...]] = {
    "rbd": ("pools",), "cephfs": ("fs", "path", "access"), "rgw": (), "monitoring": (), "custom": (),
}
PARAM_FIELDS = ("pools", "fs", "path", "access")


def entity_name(text: str) -> str:
    """What the operator typed, as a client entity: 'alice' means client.alice."""
    text = text.strip()
    if text and "." not in text:
        text = f"client.{text}"
    name = ops.check_entity(text)
    if not name.startswith("client."):
        raise ValueError(f"{name}: the wizard creates client users (client.NAME); daemons' keys are made "
                         "by the tools that deploy them")
    return name


def split_pools(text: str) -> list[str]:
    return [p for p in (w.strip() for w in text.replace(",", " ").split()) if p]


def template_caps(template: str, values: Mapping[str, str], pools: Sequence[str]) -> dict[str, str]:
    """The caps a template proposes for the step-1 values; ValueError when an input is missing or unknown."""
    known = set(pools)
    if template == "rbd":
        chosen = split_pools(values.get("pools", ""))
        if not chosen:
            raise ValueError("name at least one pool the RBD client may use (comma-separated)")
        unknown = [p for p in chosen if p not in known]
        if unknown:
            raise ValueError(f"no pool named {', '.join(unknown)} (pools: {', '.join(pools) or 'none'})")
        return dict(caps_mod.rbd_client(chosen))
    if template == "cephfs":
        fs = values.get("fs", "").strip()
        path = values.get("path", "").strip() or "/"
        if not fs:
            raise ValueError("give the CephFS file system name (ceph fs ls)")
        fs = ops.check_name(fs, "CephFS file system name")  # it goes into the caps unquoted (fsname=…)
        if not path.startswith("/"):
            raise ValueError(f"the path must be absolute inside the file system (got '{path}')")
        return dict(caps_mod.cephfs_client(fs, path, write=values.get("access", "rw") != "r"))
    if template == "rgw":
        return dict(caps_mod.rgw_gateway())
    if template == "monitoring":
        return dict(caps_mod.read_only_monitoring())
    if template == "custom":
        return {}
    raise ValueError("choose a template")


class Snapshotted(Protocol):
    @property
    def snapshot(self) -> ClusterSnapshot | None: ...


def mon_release(app: Snapshotted) -> int:
    """The monitors' Ceph major version from the last snapshot (Pacific's grammar when not known yet)."""
    snap = app.snapshot
    release = snap.mons.release if snap is not None else 0
    return release or caps_mod.PACIFIC


def validated_caps(values: Mapping[str, str], release: int = caps_mod.PACIFIC) -> dict[str, str]:
    """The non-empty caps per service, each checked by caps.validate as the monitors of `release` parse them;
    the error shows where a cap is wrong."""
    out: dict[str, str] = {}
    for svc in ops.CAP_SERVICES:
        text = values.get(svc, "").strip()
        if not text:
            continue
        try:
            caps_mod.validate(svc, text, release=release)
        except caps_mod.CapsError as e:
            raise ValueError(caps_error_text(svc, e)) from None
        out[svc] = text
    return out


def caps_error_text(svc: str, e: Any) -> str:
    pointer = ""
    try:
        pointer = e.pointer()
    except Exception:  # a pointer is a nicety: the message alone still says what is wrong
        pass
    head = f"{svc} cap refused: {e}"
    if pointer:
        head += "\n" + "\n".join("    " + line for line in str(pointer).splitlines())
    return head


# ------------------------------------------------------------------ step 1

class TemplateForm(FormScreen):
    """A FormScreen that shows only the inputs of the chosen template."""

    def _validate(self) -> list[ops.Operation] | None:
        try:
            w = self.query_one("#field-template", Select)
            template = "" if w.value in (Select.NULL, None) else str(w.value)
            wanted = TEMPLATE_FIELDS.get(template, ())
            for key in PARAM_FIELDS:
                field = self.query_one(f"#field-{key}")
                if field.parent is not None:
                    field.parent.display = key in wanted
        except Exception:  # not composed yet
            pass
        return super()._validate()


async def create_user(node: DOMNode, pools: Sequence[str], existing: set[str],
                      template: str = "rbd") -> str | None:
    """Template and name, then the caps per service, then the confirmation dialog with the command.

    A flow (await it from a worker of `node`, the Users pane): the new user's name once the monitor created it,
    else None.
    """
    services = services_of(node)
    pools = tuple(pools)
    default_pool = "rbd" if "rbd" in pools else (pools[0] if pools else "")
    fields = [
        Field("name", "User name (client.NAME)", "client.", placeholder="e.g. client.vm-host1"),
        Field("template", "Template", template, choices=tuple(k for k, _ in TEMPLATES)),
        Field("pools", "RBD: pools (comma-separated)", default_pool, placeholder="e.g. rbd, vms"),
        Field("fs", "CephFS: file system name", "cephfs", placeholder="ceph fs ls"),
        Field("path", "CephFS: path the user is confined to", "/", placeholder="e.g. /projects/a"),
        Field("access", "CephFS: access (osd data and mds)", "rw", choices=("rw", "r")),
    ]
    help = ("Templates: " + "; ".join(f"{k}: {label}" for k, label in TEMPLATES)
            + ". The next step shows the caps and lets you edit them.")

    def chosen(v: dict[str, str]) -> tuple[str, str, dict[str, str]]:  # name, template, caps
        name = entity_name(v["name"])
        if name in existing:
            raise ValueError(f"{name} already exists: select it and press e to edit its caps")
        return name, v["template"], template_caps(v["template"], v, pools)

    def step1(v: dict[str, str]) -> list[ops.Operation]:
        name, _, caps = chosen(v)
        if caps:
            return [ops.auth_get_or_create(name, caps)]
        return [ops.Operation(title=f"Create {name}", prefix="auth get-or-create", args=(("entity", name),),
                              cli=f"ceph auth get-or-create {name} …(caps in the next step)")]

    first = TemplateForm("New cephx user: step 1 of 2, name and template", fields, step1, help=help)
    if not await node.app.push_screen_wait(first):
        return None
    name, template, caps = chosen(first.submitted_values)

    def step2(v: dict[str, str]) -> list[ops.Operation]:
        return [ops.auth_get_or_create(name, validated_caps(v, mon_release(services)))]

    help = (f"Template: {TEMPLATE_LABELS.get(template, template)}. Edit any cap; an empty field gives no "
            "access to that service. Every cap is checked as Ceph's parser would before anything is sent.")
    result = await node.app.push_screen_wait(FormScreen(
        f"New cephx user {name}: step 2 of 2, capabilities",
        [Field(svc, f"{svc} cap", caps.get(svc, ""), placeholder=PLACEHOLDERS[svc]) for svc in ops.CAP_SERVICES],
        step2, help=help))
    if not result:
        return None
    created = str(result[0].command.get("entity", ""))
    explain = Text.assemble(
        ("The monitor creates a new secret key for ", ""), (created, "bold"),
        (". cephtui does not show it here: select the user and press k to reveal it or x to export "
         "its keyring to a file (mode 0600).", ""))
    outcome = await services.ask_confirm(result, explain=explain)
    return created if getattr(outcome, "ok", False) else None


PLACEHOLDERS = {
    "mon": "e.g. profile rbd, allow r",
    "mgr": "e.g. profile rbd pool=rbd, allow r",
    "osd": "e.g. profile rbd pool=rbd, allow rw pool=data",
    "mds": "e.g. allow rw path=/projects/a",
}


# ------------------------------------------------------------------ edit caps

def caps_diff(entity: str, old: Mapping[str, str], new: Mapping[str, str], is_self: bool = False,
              is_daemon: bool = False) -> RenderableType:
    """Old | new per service; services that lose their caps in the error colour, changed ones in the warning one."""
    t = Table(title=f"Ceph replaces every cap of {entity} at once: afterwards it has exactly the 'new' column",
              title_justify="left", title_style="bold", expand=True, show_lines=False)
    t.add_column("service", style="bold", width=8)
    t.add_column("old (now)", ratio=1)
    t.add_column("new (after)", ratio=1)
    services = list(ops.CAP_SERVICES) + sorted(s for s in old if s not in ops.CAP_SERVICES)
    lost: list[str] = []
    s = palette.style
    for svc in services:
        a, b = old.get(svc, ""), new.get(svc, "")
        if not a and not b:
            t.add_row(Text(svc, style=s("muted")), Text("-", style=s("muted")), Text("-", style=s("muted")))
        elif a == b:
            t.add_row(svc, Text(a, style=s("muted")), Text(b, style=s("muted")))
        elif a and not b:
            lost.append(svc)
            t.add_row(Text(svc, style=s("bold err")), Text(a, style=s("err")),
                      Text("(none: loses access)", style=s("bold err")))
        elif not a:
            t.add_row(Text(svc, style=s("ok")), Text("-", style=s("muted")), Text(b, style=s("bold ok")))
        else:
            t.add_row(Text(svc, style=s("warn")), Text(a, style=s("warn")), Text(b, style=s("bold warn")))
    notes: list[RenderableType] = [t]
    if lost:
        notes.append(Text(f"{entity} loses every {', '.join(lost)} capability.", style=palette.style("bold err")))
    if is_self:
        notes.append(Text(f"cephtui is connected as {entity}: narrower caps may lock this session (and you) out.",
                          style=palette.style("bold err")))
    if is_daemon:
        notes.append(Text(f"{entity} is a daemon's or bootstrap key: its daemon or deployment tool needs "
                          "these caps to work.", style=palette.style("bold warn")))
    return Group(*notes)


async def edit_caps_form(entity: AuthEntity, node: DOMNode) -> list[ops.Operation] | None:
    """The caps form (await it from a worker of `node`): the `auth caps` operation, or None when cancelled."""
    services = services_of(node)
    old = entity.caps_dict

    def build(v: dict[str, str]) -> list[ops.Operation]:
        new = validated_caps(v, mon_release(services))
        if new == {s: c for s, c in old.items() if s in ops.CAP_SERVICES} and set(old) <= set(ops.CAP_SERVICES):
            raise ValueError("no change: edit a cap first")
        return [ops.auth_caps(entity.name, new)]

    fields = [Field(svc, f"{svc} cap", old.get(svc, ""), placeholder=PLACEHOLDERS[svc]) for svc in ops.CAP_SERVICES]
    help = ("Ceph replaces ALL caps at once: a service left empty loses its caps. The next screen shows old "
            "and new side by side.")
    return await node.app.push_screen_wait(FormScreen(f"Edit the caps of {entity.name}", fields, build, help=help))
