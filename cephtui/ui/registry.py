"""Which pane fills each tab of ui/tabs.py: the one module that loads every pane, read by the app alone
(the tab facts that `:`, `?` and the palette need are in ui/tabs.py, without the panes)."""
from __future__ import annotations

from cephtui.ui.pane import Pane
from cephtui.ui.panes.activity import ActivityPane
from cephtui.ui.panes.bench import BenchPane
from cephtui.ui.panes.crush import CrushPane
from cephtui.ui.panes.doctor import DoctorPane
from cephtui.ui.panes.filesystems import FileSystemsPane
from cephtui.ui.panes.health import HealthPane
from cephtui.ui.panes.images import ImagesPane
from cephtui.ui.panes.maintenance import MaintenancePane
from cephtui.ui.panes.osds import OSDsPane
from cephtui.ui.panes.pgs import PGsPane
from cephtui.ui.panes.pools import PoolsPane
from cephtui.ui.panes.users import UsersPane
from cephtui.ui.tabs import TABS

PANES: dict[str, type[Pane]] = {
    "health": HealthPane,
    "pgs": PGsPane,
    "osds": OSDsPane,
    "crush": CrushPane,
    "pools": PoolsPane,
    "users": UsersPane,
    "maintenance": MaintenancePane,
    "bench": BenchPane,
    "activity": ActivityPane,
    "doctor": DoctorPane,
    "images": ImagesPane,
    "fs": FileSystemsPane,
}

if set(PANES) != {t.key for t in TABS}:  # a tab without a pane (or a pane without a tab) is a bug at import
    raise RuntimeError(f"ui/registry.py and ui/tabs.py disagree: {sorted(set(PANES) ^ {t.key for t in TABS})}")
