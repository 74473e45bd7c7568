"""The create-pool wizard: basics, protection (replication or erasure coding), placement groups.

Each page checks its values before Next (a clear message, nothing sent); risky
but legal choices (size 2, min_size 1, more copies or chunks than failure domains) are
explained on the page; a pool none of whose PGs could ever be active is refused. The wizard
returns a PoolPlan; the confirm dialog then lists the exact commands and runs them step by step,
with undo on a failure.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Optional

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, Input, Label, Select, Static

from cephtui.ceph.crush.model import CrushMap
from cephtui.ceph.ops import AUTOSCALE_MODES, check_name, number, pgcalc, poolplan
from cephtui.ceph.ops.poolplan import ClusterDefaults, PoolPlan
from cephtui.ui import palette
from cephtui.ui.compat import Button  # relabelled (Next / Review commands): laid out again
from cephtui.ui.dialog_types import readable
from cephtui.ui.screens.dialog import Dialog

PAGES = ("basics", "replicated", "erasure", "pgs")
NEW_PROFILE = "(new profile)"
DEFAULT = "default"  # the autoscale Select's "whatever the cluster's default is" (no flag sent)


def _row(label: str, widget: Input | Select) -> Horizontal:
    return Horizontal(Label(label), widget, classes="form-row")


def _short_row(label: str, widget: Input | Select) -> Horizontal:
    """One line per field (compact widgets): the PG page has the calculator and the autoscaler's outlook
    to show below its fields, in 36 lines."""
    return Horizontal(Label(label), widget, classes="form-row short-row")


class PoolWizard(Dialog[Optional[PoolPlan]]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    PoolWizard > Vertical { width: 104; }
    PoolWizard #wiz-title { text-style: bold; margin-bottom: 1; }
    PoolWizard ContentSwitcher { height: auto; }
    PoolWizard ContentSwitcher > Vertical { height: auto; }
    PoolWizard .form-row { height: auto; }
    PoolWizard .form-row Label { width: 34; padding-top: 1; }
    PoolWizard .short-row { margin: 0; }
    PoolWizard #wiz-shares { margin-top: 0; }
    PoolWizard .short-row Label { padding-top: 0; }
    PoolWizard #wiz-confirm-row { display: none; }
    PoolWizard #wiz-confirm-row.-shown { display: block; }
    PoolWizard .form-row Input, PoolWizard .form-row Select { width: 1fr; }
    PoolWizard .note { color: $text-muted; margin-top: 1; }
    PoolWizard #wiz-status { height: auto; margin-top: 1; }
    """

    def __init__(self, existing: Sequence[str], osd_count: int, cmap: CrushMap | None,
                 pool_pgs: Sequence[tuple[int, int]] = (), shares: Sequence[pgcalc.PoolShare] = (),
                 read_defaults: Callable[[], ClusterDefaults] | None = None) -> None:
        super().__init__()
        self.existing = tuple(existing)
        self.pool_pgs = tuple(pool_pgs)  # (pg_num_target, size) of the existing pools: the mon's PG budget
        self.shares = tuple(shares)  # the existing pools' use of the raw space, shown beside the share
        self.read_defaults = read_defaults  # blocking: run in a worker
        self.defaults: ClusterDefaults | None = None  # None until read (or when there is no reader)
        self.osd_count = max(osd_count, 1)
        self.cmap = cmap
        self.plan = PoolPlan(name="")
        self.page = "basics"
        self.pg_edited = False
        self.ec_root = cmap.roots()[0].name if cmap and cmap.roots() else "default"

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        cmap = self.cmap
        rules = tuple(r.name for r in cmap.rules if r.type == "replicated") if cmap else ("replicated_rule",)
        profiles = tuple(p.name for p in cmap.ec_profiles) if cmap else ()
        types = tuple(n for _, n in cmap.types) if cmap else ("osd", "host")
        classes = cmap.classes if cmap else ()
        with Vertical():
            yield Static("", id="wiz-title")
            with ContentSwitcher(initial="basics"):
                with Vertical(id="basics"):
                    yield _row("Pool name", Input(placeholder="e.g. vms, images, backups", id="wiz-name"))
                    yield _row("Type", Select([("replicated (copies)", "replicated"),
                                               ("erasure-coded (k data + m coding chunks)", "erasure")],
                                              value="replicated", allow_blank=False, id="wiz-type"))
                    yield _row("Application", Select([(a, a) for a in (*poolplan.APPLICATIONS, "custom")],
                                                     value="rbd", allow_blank=False, id="wiz-app"))
                    yield _row("Custom application name", Input(placeholder="only for 'custom'", id="wiz-app-custom"))
                with Vertical(id="replicated"):
                    yield _row("size (copies)", Input("3", id="wiz-size"))
                    yield _row("min_size (copies to accept writes)", Input("2", id="wiz-min-size"))
                    yield _row("CRUSH rule", Select([(r, r) for r in rules], value=rules[0] if rules else Select.NULL,
                                                    allow_blank=False, id="wiz-rule"))
                with Vertical(id="erasure"):
                    yield _row("EC profile", Select([(p, p) for p in (*profiles, NEW_PROFILE)], value=NEW_PROFILE,
                                                    allow_blank=False, id="wiz-profile"))
                    yield _row("New profile name", Input(placeholder="e.g. ec42", id="wiz-profile-name"))
                    yield _row("k (data chunks)", Input("2", id="wiz-k"))
                    yield _row("m (coding chunks)", Input("1", id="wiz-m"))
                    yield _row("Failure domain", Select([(t, t) for t in types], value=self._ec_domain(types),
                                                        allow_blank=False, id="wiz-domain"))
                    yield _row("Device class (empty: any)", Select([(c, c) for c in classes], allow_blank=True,
                                                                   id="wiz-class"))
                    yield Static("Ceph creates a CRUSH rule named after the pool from the profile; min_size "
                                 "becomes k+1 (k when m is 1).", classes="note")
                with Vertical(id="pgs"):
                    yield _short_row("Share of the cluster's data (%)",
                                     Input(str(pgcalc.default_share(self.existing)), id="wiz-share", compact=True))
                    yield Static(self._shares_text(), id="wiz-shares", classes="note")
                    yield _short_row("Target PGs per OSD", Select([("100 (cluster stays this size)", "100"),
                                                                   ("200 (expected to double)", "200"),
                                                                   ("300 (expected to triple)", "300")],
                                                                  value="100", allow_blank=False, id="wiz-target",
                                                                  compact=True))
                    yield _short_row("pg_num", Input(id="wiz-pgnum", compact=True))
                    with Horizontal(classes="form-row short-row", id="wiz-confirm-row"):
                        yield Label("", id="wiz-confirm-label")
                        yield Input(placeholder="the same pg_num, to keep it", id="wiz-pg-confirm", compact=True)
                    yield _short_row("Autoscale mode", Select(self._autoscale_options(), value=DEFAULT,
                                                              allow_blank=False, id="wiz-autoscale", compact=True))
                    yield Static("", id="wiz-calc", classes="note")
                    yield Static("", id="wiz-auto", classes="note")
            yield Static("", id="wiz-status")
            with Horizontal(id="wiz-buttons"):
                yield Button("Cancel", id="wiz-cancel")
                yield Button("Back", id="wiz-back")
                yield Button("Next", id="wiz-next", variant="primary")

    def on_mount(self) -> None:
        self._show("basics")
        if self.read_defaults is not None:
            self._read_defaults()

    # ------------------------------------------------------------ the cluster's defaults
    @work(thread=True, exit_on_error=False, group="pool-wizard-defaults", description="pool defaults")
    def _read_defaults(self) -> None:
        assert self.read_defaults is not None
        try:
            found = self.read_defaults()
        except Exception as e:  # never a traceback: the wizard works without them, and says so
            found = ClusterDefaults(problems=(f"could not read the cluster's pool defaults: {e}",))
            found = replace(found, autoscale_mode="", autoscale_source="")
        self.app.call_from_thread(self._defaults_read, found)

    def _defaults_read(self, found: ClusterDefaults) -> None:
        if not self.is_attached:  # the wizard closed while the cluster answered
            return
        self.defaults = found
        select = self.query_one("#wiz-autoscale", Select)
        chosen = select.value
        with select.prevent(Select.Changed):
            select.set_options(self._autoscale_options())
            # Select redraws its label only when the value changes: pass by another value to show the new one.
            select.value = "off" if chosen != "off" else "on"
            select.value = chosen  # an operator's own choice stays
        self._refresh_pgs()

    def _autoscale_options(self) -> list[tuple[str, str]]:
        d = self.defaults
        if self.read_defaults is None or (d is not None and not d.autoscale_mode):
            label = "cluster default (unknown: the monitor applies its own)"
        elif d is None:
            label = "cluster default (reading…)"
        else:
            label = f"cluster default: {d.autoscale_mode}"
        return [(label, DEFAULT), *((m, m) for m in AUTOSCALE_MODES)]

    def _effective_autoscale(self) -> str:
        """The mode the new pool will have: the one chosen, or the cluster's default ('' if unknown yet)."""
        chosen = self._value("#wiz-autoscale")
        if chosen != DEFAULT:
            return chosen
        return self.defaults.autoscale_mode if self.defaults is not None else ""

    def _shares_text(self) -> Text:
        listed = pgcalc.shares(self.shares)
        if not listed:
            return Text("No other pools: this one starts with all of the cluster's PGs to itself.")
        if not any(f for _, f in listed):
            return Text(f"Existing pools ({', '.join(n for n, _ in listed[:8])}) hold no data yet: the share is "
                        "your estimate of what this pool will hold.")
        parts = " · ".join(f"{n} {f * 100:.0f}%" for n, f in listed[:8]) + (" …" if len(listed) > 8 else "")
        t = Text(f"Existing pools, share of the raw space used now: {parts}")
        declared = [f"{p.name} {p.target_ratio:g}" for p in self.shares if p.target_ratio > 0]
        if declared:
            t.append(f"\n  with target_size_ratio: {', '.join(declared)}")
        return t

    def _show(self, page: str) -> None:
        self.page = page
        self.query_one(ContentSwitcher).current = page
        n = {"basics": 1, "replicated": 2, "erasure": 2, "pgs": 3}[page]
        titles = {"basics": "name, type, application", "replicated": "replication", "erasure": "erasure coding",
                  "pgs": "placement groups"}
        self.query_one("#wiz-title", Static).update(Text(f"Create a pool — step {n} of 3: {titles[page]}"))
        self.query_one("#wiz-back", Button).disabled = page == "basics"
        self.query_one("#wiz-next", Button).label = "Review commands" if page == "pgs" else "Next"
        self.query_one("#wiz-status", Static).update("")
        if page == "pgs":
            self._suggest()
        first = {"basics": "#wiz-name", "replicated": "#wiz-size", "erasure": "#wiz-profile", "pgs": "#wiz-share"}
        self.query_one(first[page]).focus()

    # ------------------------------------------------------------ values
    def _value(self, selector: str) -> str:
        w = self.query_one(selector)
        if isinstance(w, Select):
            return "" if w.value in (Select.NULL, None) else str(w.value)
        return self.query_one(selector, Input).value.strip()

    def _status(self, error: str | None = None, notes: Sequence[str] = ()) -> None:
        t = Text()
        if error:
            t.append(f"✖ {readable(error)}\n", style=palette.style("bold err"))
        for n in notes:
            t.append(f"⚠ {n}\n", style=palette.style("warn"))
        self.query_one("#wiz-status", Static).update(t)

    def _ec_domain(self, types: tuple[str, ...]) -> str:
        """host, Ceph's own default, where there are hosts for the default 2+1; otherwise the OSD (a one-node
        homelab), whose chunks CRUSH can place: the form opens on values it accepts."""
        hosts = poolplan.failure_domains(self.cmap, self.ec_root, "host")
        if "host" in types and (hosts is None or hosts >= 3):
            return "host"
        return "osd" if "osd" in types else types[0]

    def _collect_basics(self) -> PoolPlan:
        name = poolplan.check_name(self._value("#wiz-name"), self.existing)
        app = self._value("#wiz-app")
        if app == "custom":
            app = check_name(self._value("#wiz-app-custom"), "application name")
        return replace(self.plan, name=name, pool_type=self._value("#wiz-type"), application=app)

    def _collect_replicated(self) -> PoolPlan:
        size, min_size = poolplan.check_replication(self._value("#wiz-size"), self._value("#wiz-min-size"))
        if not self._value("#wiz-rule"):
            raise ValueError("choose a CRUSH rule")
        return replace(self.plan, size=size, min_size=min_size, rule=self._value("#wiz-rule"),
                       ec_profile="", new_profile=None)

    def _collect_erasure(self) -> PoolPlan:
        chosen = self._value("#wiz-profile")
        if chosen != NEW_PROFILE:
            prof = self.cmap.ec_profile(chosen) if self.cmap else None
            k, m = (prof.k or 0, prof.m or 0) if prof else (0, 0)
            return replace(self.plan, ec_profile=chosen, new_profile=None, size=k + m,
                           min_size=poolplan.ec_min_size(k, m))
        name = check_name(self._value("#wiz-profile-name"), "profile name")
        if self.cmap and self.cmap.ec_profile(name) is not None:
            raise ValueError(f"profile {name} already exists: choose it above instead")
        k = poolplan.parse_int(self._value("#wiz-k"), "k", 2, 32)
        m = poolplan.parse_int(self._value("#wiz-m"), "m", 1, 32)
        return replace(self.plan, ec_profile=name, size=k + m, min_size=poolplan.ec_min_size(k, m),
                       new_profile=(k, m, self._value("#wiz-domain"), self._value("#wiz-class")))

    def _collect_pgs(self) -> PoolPlan:
        pg_num, _ = pgcalc.check_pg_num(self._value("#wiz-pgnum"))
        if not pgcalc.is_power_of_two(pg_num) and self._value("#wiz-pg-confirm") != str(pg_num):
            lo = 1 << pg_num.bit_length() - 1
            raise ValueError(f"pg_num {pg_num} is not a power of two: its PGs would differ in size and Ceph "
                             f"raises POOL_PG_NUM_NOT_POWER_OF_TWO. Choose {lo} or {lo * 2}, or type {pg_num} "
                             "in the confirmation field to keep it.")
        # The mon refuses a pool that would push PGs per OSD past mon_max_pg_per_osd: say so now.
        refusal = pgcalc.warn_pg_per_osd(pg_num, max(self.plan.size, 1), self.pool_pgs, self.osd_count)
        if refusal:
            raise ValueError(f"the monitors would refuse: {refusal}")
        chosen = self._value("#wiz-autoscale")
        return replace(self.plan, pg_num=pg_num, autoscale_mode="" if chosen == DEFAULT else chosen)

    def _suggest(self) -> None:
        calc = self.query_one("#wiz-calc", Static)
        try:
            raw = self._value("#wiz-share")
            share = number(raw, "the share (a percentage)") / 100  # "12." is half-typed, not 12
            if not 0 < share <= 1:  # also NaN and inf: pgcalc would refuse them with a less direct message
                raise ValueError(f"the share must be more than 0 and at most 100 % (got '{raw}')")
            s = pgcalc.suggest(self.osd_count, max(self.plan.size, 1), share, int(self._value("#wiz-target")))
        except ValueError as e:
            calc.update(Text(f"PG calculator: {readable(str(e))}", style=palette.style("warn")))
            return
        calc.update(Text(f"PG calculator (the classic ceph.com rule): suggested pg_num: {s.pg_num}\n"
                         + "\n".join(f"  {x}" for x in s.steps)))
        if not self.pg_edited:
            self.query_one("#wiz-pgnum", Input).value = str(s.pg_num)
            self.pg_edited = False
        self._refresh_pgs()

    def _share(self) -> float | None:
        try:
            share = float(self._value("#wiz-share")) / 100
        except ValueError:
            return None
        return share if 0 < share <= 1 else None

    def _refresh_pgs(self) -> None:
        """The confirmation row and the autoscaler's outlook for the pg_num and mode now on the page."""
        try:
            pg_num: int | None = pgcalc.check_pg_num(self._value("#wiz-pgnum"))[0]
        except ValueError:
            pg_num = None
        odd = pg_num is not None and not pgcalc.is_power_of_two(pg_num)
        self.query_one("#wiz-confirm-row").set_class(odd, "-shown")
        if odd:
            self.query_one("#wiz-confirm-label", Label).update(f"Type {pg_num} to keep it anyway")
        self.query_one("#wiz-auto", Static).update(self._outlook(pg_num))

    def _outlook(self, pg_num: int | None) -> Text:
        mode, d = self._effective_autoscale(), self.defaults
        t = Text()
        if self._value("#wiz-autoscale") == DEFAULT and d is not None and d.autoscale_source:
            t.append(f"Autoscale: the cluster's default, {d.autoscale_mode} (osd_pool_default_pg_autoscale_mode "
                     f"from {d.autoscale_source}).\n")
        for problem in d.problems if d is not None else ():
            t.append(f"⚠ {readable(problem)}\n", style=palette.style("warn"))
        if not mode:
            t.append("Autoscale: the cluster's default, still being read." if d is None else
                     "Autoscale: the cluster's default could not be read; the monitor applies its own. "
                     "Choose on, warn or off to know what the pool gets.")
            return t
        if mode == "off":
            t.append("Autoscale off: pg_num stays as chosen until someone changes it.")
            return t
        share = self._share()
        if pg_num is None or share is None:
            return t
        target = d.target_pg_per_osd if d is not None else pgcalc.DEFAULT_TARGET_PER_OSD
        try:
            outlook = pgcalc.autoscale_outlook(pg_num, max(self.plan.size, 1), self.osd_count, share, target)
        except ValueError as e:
            t.append(f"Autoscaler outlook: {readable(str(e))}", style=palette.style("warn"))
            return t
        if mode == "warn":
            t.append("Autoscale warn: the autoscaler changes nothing, but raises POOL_TOO_FEW_PGS / "
                     "POOL_TOO_MANY_PGS when its target is more than 3x away from pg_num.\n")
        if d is not None and d.noautoscale:
            t.append("The autoscaler is paused for every pool (noautoscale is set): nothing below happens "
                     "until it is unset.\n", style=palette.style("warn"))
        style = palette.style("warn") if outlook.pg_num_after != pg_num else ""
        t.append(" ".join(outlook.lines[:2]) if mode == "on" else outlook.lines[0], style=style)
        t.append("\n" + " ".join(outlook.lines[2:]), style=palette.style("muted"))
        return t

    @on(Input.Changed, "#wiz-share")
    @on(Select.Changed, "#wiz-target")
    def _calc_inputs_changed(self) -> None:
        if self.page == "pgs":
            self._suggest()

    @on(Select.Changed, "#wiz-autoscale")
    def _autoscale_changed(self) -> None:
        if self.page == "pgs":
            self._refresh_pgs()

    @on(Input.Changed, "#wiz-pgnum")
    def _pgnum_changed(self, event: Input.Changed) -> None:
        if self.page != "pgs":
            return
        self._refresh_pgs()
        if not self.query_one("#wiz-pgnum", Input).has_focus:
            return  # the calculator filled it in
        self.pg_edited = True
        try:
            _, note = pgcalc.check_pg_num(event.value)
            self._status(notes=[note] if note else [])
        except ValueError as e:
            self._status(str(e))

    # ------------------------------------------------------------ navigation
    @on(Input.Submitted)
    @on(Button.Pressed, "#wiz-next")
    def action_next(self) -> None:
        try:
            if self.page == "basics":
                self.plan = self._collect_basics()
                self._show(self.plan.pool_type)
            elif self.page in ("replicated", "erasure"):
                self.plan = self._collect_replicated() if self.page == "replicated" else self._collect_erasure()
                poolplan.check_placement(self.plan, self.cmap, self.ec_root)
                notes = poolplan.warnings(self.plan, self.cmap, self.ec_root)
                self._show("pgs")
                self._status(notes=notes)
            else:
                self.plan = self._collect_pgs()
                self.dismiss(self.plan)
        except ValueError as e:
            self._status(str(e))

    @on(Button.Pressed, "#wiz-back")
    def action_back(self) -> None:
        self._show({"pgs": self.plan.pool_type, "replicated": "basics", "erasure": "basics"}.get(self.page, "basics"))

    @on(Button.Pressed, "#wiz-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
