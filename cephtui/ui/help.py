"""`?`: the keys of the tab shown (read from its bindings, so never stale), what it shows, and the keys
that work everywhere; `a` in the help shows every tab's keys."""
from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from cephtui.ui.widgets.dialog import Dialog

# (key, what it does) for the keys that work on every tab.
EVERYWHERE = (
    ("1…9", "switch tab: Health, PGs, OSDs, CRUSH, Pools, Users, Maintenance, Bench, Activity"),
    (":", "jump: a tab (`:osds`, `:pools`), an OSD (`:osd.3`), a PG (`:1.2f`), a pool, a user "
          "(`:client.admin`), a host or bucket; `tab` completes"),
    ("/", "filter the table (PGs, OSDs, Users) or search it (other tabs)"),
    ("n / N", "next / previous row matching the filter or search, wrapping"),
    ("g / G", "first / last row;  `↑ ↓ pgup pgdn home end` move too"),
    ("enter / space", "open / mark the row, where the tab has that"),
    ("r", "refresh now"),
    ("ctrl+p", "command palette: every action of every tab, themes, screenshot"),
    ("?", "this help"),
    ("escape", "clear the filter / close a dialog"),
    ("q", "close the dialog or prompt on top; on the main screen, quit (asks again while a bench runs)"),
    ("ctrl+q", "quit at once"),
    ("mouse", "click tabs, rows, buttons and footer keys; the wheel scrolls; double-click opens a row"),
)

# Longer words for some actions than their footer label: (tab, action) -> text.
ACTION_TEXT: dict[tuple[str, str], str] = {
    ("pgs", "focus_filter"): "filter: words match the PG id, state or pool name (`degraded`, `undersized 2.`, "
                             "`rbd`); `osd=3` keeps PGs on osd.3; `3.` means pool 3",
    ("osds", "focus_filter"): "filter: `osd.3` or `3`, a host or bucket, a class (`ssd`), a state (`up`, `down`, "
                              "`in`, `out`, `destroyed`) or a flag (`noout`, `nearfull` …)",
    ("osds", "detail"): "detail of the OSD under the cursor: metadata, its PGs by state",
    ("osds", "mark"): "mark / unmark an OSD; actions apply to the marked OSDs, else to the cursor row "
                      "(a bucket row means every OSD under it)",
    ("osds", "sort"): "sort: tree, utilisation, latency, PG count",
    ("osds", "shadow"): "show / hide the device-class shadow trees (`default~hdd`)",
    ("osds", "collapse"): "fold the bucket under the cursor (or the OSD's host)",
    ("osds", "expand"): "unfold the bucket under the cursor",
    ("osds", "fold_hosts"): "fold or unfold every host",
    ("osds", "out"): "mark out, with a preview of the PGs that remap",
    ("osds", "crush_weight"): "CRUSH weight (previewed)",
    ("osds", "reweight"): "reweight (0..1)",
    ("osds", "device_class"): "set the device class (previewed)",
    ("osds", "noout"): "toggle per-OSD noout",
    ("osds", "remove"): "guided removal or replacement of the selected OSD(s)",
    ("osds", "removals"): "the removal queue: every removal or replacement (colleagues' too), enter opens one",
    ("crush", "move"): "move a bucket or an OSD",
    ("crush", "remove_bucket"): "remove an empty bucket",
    ("crush", "remove_rule"): "remove an unused rule",
    ("crush", "new_ec"): "new EC profile and its rule",
    ("crush", "edit_text"): "edit the map as text: `ctrl+s` compiles and shows the diff, `ctrl+a` previews "
                            "and applies",
    ("pools", "create"): "create-pool wizard: name, type (replicated / erasure), application, size and min_size, "
                         "pg_num from the PG calculator (its working shown), autoscale mode",
    ("pools", "detail"): "every setting of the pool (`ceph osd pool get POOL all`)",
    ("pools", "size"): "size and min_size",
    ("pools", "pg_num"): "pg_num (split or merge: data moves)",
    ("pools", "quota"): "quotas (`10G`; `0` removes)",
    ("pools", "delete"): "delete (type the pool's name)",
    ("users", "new_user"): "create a user from a template (RBD client, CephFS client, RGW, read-only monitoring, "
                           "custom); every cap checked before sending",
    ("users", "edit_caps"): "edit caps (Ceph replaces all of them: old and new side by side first)",
    ("users", "export_keyring"): "export the keyring to a new file with mode 0600",
    ("users", "delete"): "delete (typed name)",
    ("users", "force_delete"): "force-delete a daemon's key or the identity cephtui uses",
    ("users", "toggle_daemons"): "show or hide daemons' and bootstrap keys",
    ("users", "focus_filter"): "filter by name or cap text",
    ("maintenance", "enter_maintenance"): "enter maintenance for a host or OSDs (ok-to-stop checked; noout on "
                                          "that host only, plus the flags you pick)",
    ("maintenance", "exit_maintenance"): "exit maintenance (unsets only what it set)",
    ("maintenance", "toggle_flag"): "toggle the cluster flag under the cursor",
    ("bench", "new_run"): "new run: pool (or a temporary size-1 pool), write / seq / rand, seconds, ops in "
                          "flight, op and object size; shows the equivalent `rados bench` command",
    ("bench", "latency_run"): "latency run: 4 KiB, one op at a time (what most workloads feel)",
    ("bench", "repeat"): "repeat the last run",
    ("bench", "stop"): "stop the run (ops in flight finish; partial results are kept)",
    ("bench", "osd_bench"): "per-OSD bench: `ceph tell osd.N bench` on every (or chosen) OSD, one at a time, "
                            "ranked, outliers flagged",
    ("bench", "mark"): "mark a run in the history",
    ("bench", "compare"): "compare two marked runs side by side",
    ("bench", "export"): "export the marked (or all) runs as CSV or JSON",
    ("activity", "copy"): "copy the selected command's CLI line",
    ("activity", "copy_all"): "copy all of this session's commands",
    ("activity", "export"): "write this session's commands, the monitor's answers as comments, to a 0600 script",
}

PROSE: dict[str, str] = {
    "health": "Cluster name and fsid, the health badge (OK / WARN / ERR), the connection state and the age of the "
              "data shown are in the header. When the monitors stop answering, the last data stays on screen "
              "with its age and cephtui keeps retrying; it recovers by itself.",
    "pgs": "The filters apply at every keystroke; on 200,000 PGs a keystroke's rows are on screen within tens of "
           "ms. The PG table, stuck PGs, OSD usage and latency are fetched only while their tab is shown; stuck "
           "PGs every 10 s (a PG is stuck after `mon_pg_stuck_threshold`, 5 minutes by default) and at once on "
           "`r`.",
    "osds": "The removal wizard: preflight (capacity after the move, ok-to-stop, other PGs, flags that stall "
            "recovery), drain (mark out, or CRUSH weight 0), wait until `ceph osd safe-to-destroy` says yes, stop "
            "the daemon (`--osd-stop-cmd`, the orchestrator, systemd here, or you), destroy (replacement) or purge, "
            "then for a replacement wait for the new OSD with the same id, and follow backfill to active+clean. "
            "`p` pauses or resumes, `a` aborts (OSDs not yet destroyed are marked back in). The state is saved "
            "after every step; a restarted cephtui offers to resume.",
    "crush": "Changes to CRUSH are previewed offline with `crushtool` and `osdmaptool`: how many PGs per pool "
             "change their up set and roughly how much data would move. Without those tools (or when the preview "
             "fails) applying needs a second confirmation.",
    "pools": "If a step of a multi-step change fails, the dialog says which, what already happened, and offers "
             "Undo.",
    "users": "Every action shows the exact `ceph` command first and asks; destroying ones want the name typed. "
             "Keys never enter a snapshot: a key is fetched only when you ask to see or export it.",
    "maintenance": "While maintenance or a risky flag is on, the header shows it and since when.",
    "bench": "Runs use `rados bench` semantics (16 × 4 MiB by default, same object names and metadata), so native "
             "`rados bench seq|rand` reads what cephtui wrote with cleanup off, `rados cleanup` removes it, and "
             "the other way round. Every run is saved to `~/.local/share/cephtui/bench-history.jsonl`. Headless: "
             "`cephtui bench --pool P --seconds S --mode write|seq|rand [--json]`.",
    "activity": "What the cluster answered, accepted or refused, also goes to the audit log "
                "(`~/.local/state/cephtui/audit.log`, or `$CEPHTUI_AUDIT_LOG`, mode 0600).",
}

# (key display, action, footer label, tooltip) of one binding
KeyRow = tuple[str, str, str, str]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def tab_section(tab: str, title: str, keys: Sequence[KeyRow], read_only: bool = False) -> str:
    lines = [f"## {title} tab", "", "| key | does |", "|---|---|"]
    for key, action, label, tooltip in keys:
        text = ACTION_TEXT.get((tab, action)) or tooltip or label
        lines.append(f"| `{_cell(key)}` | {_cell(text)} |")
    if not keys:
        lines.append("| | this tab only shows; the keys below work here |")
    lines += ["", PROSE.get(tab, "")]
    if read_only:
        lines += ["", "cephtui runs with `--read-only`: keys that would change the cluster are dimmed and say why."]
    return "\n".join(lines)


def everywhere() -> str:
    rows = "\n".join(f"| `{_cell(k)}` | {_cell(v)} |" for k, v in EVERYWHERE)
    return f"## Everywhere\n\n| key | does |\n|---|---|\n{rows}\n"


class HelpScreen(Dialog[None]):
    """The help of one tab; `a` switches to every tab's keys and back."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close"), Binding("a", "toggle_all", "All tabs")]
    DEFAULT_CSS = """
    HelpScreen > VerticalScroll { height: 1fr; border: round $primary; padding: 0; }
    """

    def __init__(self, current: str, sections: dict[str, str]) -> None:
        """`sections`: tab key -> its markdown (tab_section), in tab order; `current` is shown first."""
        super().__init__()
        self.current, self.sections, self.show_all = current, sections, False

    def _markdown(self) -> str:
        head = "# cephtui keys\n\n`a` every tab · `escape` close · `ctrl+p` every action by name\n\n"
        if self.show_all:
            return head + "\n\n".join(self.sections.values()) + "\n\n" + everywhere()
        return head + self.sections[self.current] + "\n\n" + everywhere()

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self._markdown())

    def action_toggle_all(self) -> None:
        self.show_all = not self.show_all
        self.query_one(Markdown).update(self._markdown())
