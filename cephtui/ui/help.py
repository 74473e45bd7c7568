"""`?`: what every key does, and what the panes show."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# cephtui keys

| key | does |
|---|---|
| `1`…`9` | switch tab: Health, PGs, OSDs, CRUSH, Pools, Users, Maintenance, Bench, Activity |
| `r` | refresh now |
| `ctrl+p` | command palette (every tab, refresh, theme) |
| `/` | PGs / OSDs tab: filter the table |
| `escape` | clear the filter / close a dialog / close this help |
| `?` | this help |
| `q` | quit |

## The header
Cluster name and fsid, the health badge (OK / WARN / ERR), the connection state and the age of the
data shown. When the monitors stop answering, the last data stays on screen with its age and cephtui
keeps retrying; it recovers by itself.

## OSDs tab
| key | does |
|---|---|
| `enter` | detail of the OSD under the cursor: metadata, its PGs by state |
| `space` | mark / unmark an OSD; actions apply to the marked OSDs, else to the cursor row (a bucket row means every OSD under it) |
| `s` | sort: tree, utilisation, latency, PG count |
| `v` | show / hide the device-class shadow trees (`default~hdd`) |
| `-` / `+` / `z` | fold the bucket under the cursor (or the OSD's host) / unfold it / fold or unfold every host |
| `o` / `i` / `d` | mark out (with a preview of the PGs that remap) / in / down |
| `w` / `W` / `a` | reweight (0..1) / CRUSH weight (previewed) / primary affinity |
| `c` / `n` | set device class (previewed) / toggle per-OSD noout |
| `X` / `P` | guided removal or replacement of the selected OSD(s) / show the one in progress |

The removal wizard: preflight (capacity after the move, ok-to-stop, other PGs, flags that stall recovery),
drain (mark out, or CRUSH weight 0), wait until `ceph osd safe-to-destroy` says yes, stop the daemon
(`--osd-stop-cmd`, the orchestrator, systemd here, or you), destroy (replacement) or purge, then for a
replacement wait for the new OSD with the same id, and follow backfill to active+clean. `p` pauses or
resumes, `a` aborts (OSDs not yet destroyed are marked back in). The state is saved after every step;
a restarted cephtui offers to resume.

The OSD filter takes words that must all match: `osd.3` or `3`, a host or any bucket name, a class
(`ssd`), a state (`up`, `down`, `in`, `out`, `destroyed`) or a flag (`noout`, `nearfull`, `full` …).

## CRUSH tab
| key | does |
|---|---|
| `a` / `m` / `R` / `x` | add a bucket / move a bucket or an OSD / rename / remove an empty bucket |
| `u` / `e` / `X` | new replicated rule / new EC profile and its rule / remove an unused rule |
| `t` | edit the map as text: `ctrl+s` compiles and shows the diff, `ctrl+a` previews and applies |

## Pools tab
| key | does |
|---|---|
| `n` | create-pool wizard: name, type (replicated / erasure with a new or existing profile), application, size and min_size, pg_num from the PG calculator (its working shown), autoscale mode |
| `enter` | every setting of the pool (`ceph osd pool get POOL all`) |
| `s` / `p` / `Q` | size and min_size / pg_num (split or merge: data moves) / quotas (`10G`, `0` removes) |
| `a` / `R` / `D` | tag an application / rename / delete (type the pool's name) |

If a step of a multi-step change fails, the dialog says which, what already happened, and offers Undo.

## Users tab
| key | does |
|---|---|
| `n` | create a user from a template (RBD client for chosen pools, CephFS client for a path, RGW, read-only monitoring, custom); every cap is checked before sending, with a caret where it is wrong |
| `e` | edit caps (Ceph replaces all of them: old and new side by side first) |
| `k` / `x` | reveal the key / export the keyring to a new file with mode 0600 |
| `D` / `F` | delete (typed name) / force-delete a daemon's key or the identity cephtui uses |
| `d` / `/` | show or hide daemons' and bootstrap keys / filter by name or cap text |

Every action shows the exact `ceph` command first and asks; destroying ones want the name typed.
Changes to CRUSH (and marking an OSD out) are previewed offline with `crushtool` and `osdmaptool`:
how many PGs per pool change their up set and roughly how much data would move. Without those tools
(or when the preview fails) applying needs a second confirmation. What the cluster answers, accepted
or refused, stays in the dialog and goes to the audit log (`~/.local/state/cephtui/audit.log`,
or `$CEPHTUI_AUDIT_LOG`, mode 0600). With `--read-only` those keys are dimmed and say why.

## Activity tab
| key | does |
|---|---|
| `c` / `C` | copy the selected command's CLI line / all of this session's |
| `e` | write this session's commands, with the monitor's answers as comments, to a 0600 script |

## Maintenance tab
| key | does |
|---|---|
| `e` / `x` | enter maintenance for a host or OSDs (ok-to-stop checked; noout on that host only, plus the flags you pick) / exit it (unsets only what it set) |
| `s` / `u` / `enter` | set / unset / toggle the cluster flag under the cursor |

While maintenance or a risky flag is on, the header shows it and since when.

## Bench tab
| key | does |
|---|---|
| `n` | new run: pool (or a temporary size-1 pool, deleted afterwards), write / seq / rand, seconds, concurrent ops, op and object size, run name, cleanup, op timeout; shows the equivalent `rados bench` command |
| `l` | latency run: 4 KiB, one op at a time (what most workloads feel) |
| `R` / `x` | repeat the last run / stop the run (in-flight ops finish; partial results are kept) |
| `o` | per-OSD bench: `ceph tell osd.N bench` on every (or chosen) OSD, one at a time, ranked, outliers flagged |
| `enter` / `space` / `c` / `e` | history: a run's full summary and per-second samples / mark / compare two runs / export as CSV or JSON |

Runs use `rados bench` semantics (16 × 4 MiB by default, same object names and metadata), so native
`rados bench seq|rand` reads what cephtui wrote with cleanup off, `rados cleanup` removes it, and the
other way round. Beside the run: this host's CPU, memory, disk and network, with a hint when the client
(not the cluster) is the limit. Every run is saved to `~/.local/share/cephtui/bench-history.jsonl`.
Headless: `cephtui bench --pool P --seconds S --mode write|seq|rand [--threads N] [--block-size B] [--json]`.

## PG filter
Words must all match the PG id, state or pool name: `degraded`, `undersized 2.`, `rbd`.
`osd=3` keeps PGs whose up or acting set contains osd.3. `3.` means pool 3 only.

The filters apply at every keystroke; on 200,000 PGs a keystroke's rows are on screen within
tens of ms.

Every number is read from the cluster through librados, the same source as the `ceph` CLI
(`status`, `health detail`, `df detail`, `pg stat`, `pg dump pgs_brief`, `pg dump_stuck`).
The PG table, stuck PGs, OSD usage and latency are fetched only while their tab is shown; stuck
PGs every 10 s (a PG counts as stuck after `mon_pg_stuck_threshold`, 5 minutes by default) and
at once on `r`.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; max-height: 80%; border: round $primary; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP)
