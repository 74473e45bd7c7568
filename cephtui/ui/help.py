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
| `1`…`8` | switch tab: Health, PGs, OSDs, CRUSH, Pools, Users, Maintenance, Bench |
| `r` | refresh now |
| `ctrl+p` | command palette (every tab, refresh, theme) |
| `/` | PGs tab: filter the PG table |
| `escape` | clear the filter / close this help |
| `?` | this help |
| `q` | quit |

## The header
Cluster name and fsid, the health badge (OK / WARN / ERR), the connection state and the age of the
data shown. When the monitors stop answering, the last data stays on screen with its age and cephtui
keeps retrying; it recovers by itself.

## PG filter
Words must all match the PG id, state or pool name: `degraded`, `undersized 2.`, `rbd`.
`osd=3` keeps PGs whose up or acting set contains osd.3. `3.` means pool 3 only.

Every number is read from the cluster through librados, the same source as the `ceph` CLI
(`status`, `health detail`, `df detail`, `pg stat`, `pg dump pgs_brief`, `pg dump_stuck`).
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
