"""The config database and what the daemons really run: `config dump` (what the mons store), `config show
DAEMON` (each running value and where it came from) and `config help` (what an option is).

A value from ceph.conf, the command line or a runtime override outranks the database: `ceph config set` then
changes nothing on that daemon, silently. `shadowed` finds those cases (the sandbox's own `mon allow pool
delete = true` won over `ceph config set mon mon_allow_pool_delete false`)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cephtui.ceph.coerce import as_dict, as_list, as_str, dicts

# Lowest to highest precedence, as Ceph ranks them (md_config_t): the value a daemon runs is the last present.
SOURCES = ("default", "mon", "env", "file", "cmdline", "override")
WINS_OVER_DB = {"env": "an environment variable", "file": "its ceph.conf", "cmdline": "its command line",
                "override": "a runtime override (`ceph tell … config set` or injectargs)"}


@dataclass(frozen=True)
class ConfigEntry:
    """One stored option of `config dump`."""
    section: str  # "global", "mon", "osd.3"
    name: str
    value: str
    level: str = ""
    runtime: bool = True  # can_update_at_runtime: False means the daemons need a restart
    mask: str = ""  # "host:node2", "class:ssd"

    @property
    def who(self) -> str:
        """The target as `ceph config set/rm` takes it: `osd/class:ssd` for a masked entry."""
        return f"{self.section}/{self.mask}" if self.mask else self.section


@dataclass(frozen=True)
class RunningValue:
    """One value of `config show DAEMON`: what it runs, from where, and what lost to it."""
    name: str
    value: str
    source: str
    overrides: tuple[tuple[str, str], ...] = ()  # (source, value) of lower levels that lost

    def from_source(self, source: str) -> str | None:
        return next((v for s, v in self.overrides if s == source), None)


@dataclass(frozen=True)
class Shadow:
    """A database value a daemon does not run, because a higher source wins there."""
    daemon: str
    name: str
    running: str
    source: str  # file / cmdline / override / env
    db_value: str

    @property
    def text(self) -> str:
        return (f"{self.daemon} runs {self.name} = {self.running} from {WINS_OVER_DB.get(self.source, self.source)}; "
                f"the database's {self.db_value} has no effect there")

    @property
    def remedy(self) -> str:
        if self.source == "file":
            return (f"remove `{self.name}` from ceph.conf on {self.daemon}'s host and restart it, or move it into the "
                    f"database first: `ceph config assimilate-conf -i /etc/ceph/ceph.conf`")
        if self.source == "override":
            return f"`ceph tell {self.daemon} config set {self.name} {self.db_value}` (or restart {self.daemon})"
        return f"restart {self.daemon} without the {self.source} setting"


def parse_dump(d: Any) -> tuple[ConfigEntry, ...]:
    return tuple(ConfigEntry(section=as_str(e.get("section")), name=as_str(e.get("name")), value=as_str(e.get("value")),
                             level=as_str(e.get("level")), runtime=bool(e.get("can_update_at_runtime", True)),
                             mask=as_str(e.get("mask")))
                 for e in dicts(d))


def parse_show(d: Any) -> tuple[RunningValue, ...]:
    """`config show DAEMON` (a list; a dict keyed by name on some releases)."""
    items = dicts(d) if isinstance(d, list) else [{"name": k, **as_dict(v)} for k, v in as_dict(d).items()]
    return tuple(RunningValue(name=as_str(e.get("name")), value=as_str(e.get("value")), source=as_str(e.get("source")),
                              overrides=tuple((as_str(o.get("source")), as_str(o.get("value")))
                                              for o in dicts(e.get("overrides"))))
                 for e in items)


def read_running(client: Any, daemon: str) -> tuple[RunningValue, ...]:
    """`config show DAEMON` (served by the mgr from the daemon's reports); blocking: call off the UI thread."""
    return parse_show(client.mgr("config show", who=daemon))


def shadowed(daemon: str, running: Sequence[RunningValue]) -> tuple[Shadow, ...]:
    """The database values this daemon does not run: a higher source won, with another value."""
    out = []
    for v in running:
        if v.source not in WINS_OVER_DB:
            continue
        db = v.from_source("mon")
        if db is not None and db != v.value:
            out.append(Shadow(daemon=daemon, name=v.name, running=v.value, source=v.source, db_value=db))
    return tuple(out)


def blocked_set(daemon: str, running: Sequence[RunningValue], name: str, value: str) -> str | None:
    """Why `ceph config set … name value` would not change what `daemon` runs, or None if it would."""
    v = next((r for r in running if r.name == name), None)
    if v is None or v.source not in WINS_OVER_DB or v.value == value:
        return None
    return (f"{daemon} runs {name} = {v.value} from {WINS_OVER_DB[v.source]}, which outranks the database: this "
            f"change will not reach it. {Shadow(daemon, name, v.value, v.source, value).remedy}")


def daemons_for(who: str, mons: Sequence[str], mgr: str) -> list[str]:
    """The daemons a `config set WHO` should reach that cephtui checks (a few; never every OSD)."""
    base = who.split("/", 1)[0]
    if base in ("global", "mon"):
        out = [f"mon.{m}" for m in mons]
        return out + ([f"mgr.{mgr}"] if base == "global" and mgr else [])
    if base == "mgr":
        return [f"mgr.{mgr}"] if mgr else []
    return [base] if "." in base else []


def not_default(running: Sequence[RunningValue]) -> tuple[RunningValue, ...]:
    return tuple(v for v in running if v.source and v.source != "default")


def help_lines(d: Any) -> list[str]:
    """`config help NAME` to read: what it is, its type and range, default, whether it needs a restart."""
    d = as_dict(d)
    lines = [f"{as_str(d.get('name'))} ({as_str(d.get('type'))}, {as_str(d.get('level'))})"]
    for key in ("desc", "long_desc"):
        if as_str(d.get(key)).strip():
            lines.append(as_str(d.get(key)).strip())
    default = as_str(d.get("default"))
    daemon_default = as_str(d.get("daemon_default"))
    lines.append(f"default {default!r}" + (f", for daemons {daemon_default!r}" if daemon_default else ""))
    lo, hi = as_str(d.get("min")), as_str(d.get("max"))
    if lo or hi:
        lines.append(f"range {lo or '-'} … {hi or '-'}")
    enum = [as_str(x) for x in as_list(d.get("enum_values"))]
    if enum:
        lines.append("one of " + ", ".join(enum))
    lines.append("changes at runtime" if d.get("can_update_at_runtime") else
                 "read at startup only: the daemons need a restart to use a new value")
    services = [as_str(x) for x in as_list(d.get("services"))]
    if services:
        lines.append("used by " + ", ".join(services))
    see = [as_str(x) for x in as_list(d.get("see_also"))]
    if see:
        lines.append("see also " + ", ".join(see))
    return lines
