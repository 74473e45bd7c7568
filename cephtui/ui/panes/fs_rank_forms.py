"""The File systems tab's rank forms: max_mds and failing a rank over, each a form then the confirmation of the
operation it builds (ceph/cephfs/ranks.py says what each does and refuses)."""
from __future__ import annotations

from cephtui.ceph.cephfs import ranks as fs_ranks
from cephtui.ceph.cephfs.model import FileSystem, FsStatus
from cephtui.ui.dialog_types import Field
from cephtui.ui.services import AppServices


def max_mds(services: AppServices, fs: FileSystem, st: FsStatus) -> None:
    services.form_then_confirm(
        f"Active ranks of {fs.name} (max_mds {fs.max_mds})",
        [Field("max_mds", "active ranks (max_mds)", str(fs.max_mds))],
        lambda v: [fs_ranks.build_max_mds(fs, st.standbys, v["max_mds"])],
        help=f"{len(fs.active)} active rank(s); standby daemons: {', '.join(st.standbys) or 'none'}. A new rank "
             "takes a standby; a rank above max_mds stops and hands its subtrees over.")


def fail_rank(services: AppServices, fs: FileSystem, st: FsStatus) -> None:
    """The pane has checked that `fs` has an active rank."""
    ranks = tuple(str(r.rank) for r in fs.active)
    services.form_then_confirm(
        f"Fail a rank of {fs.name}",
        [Field("rank", "rank", ranks[0], choices=ranks, labels=tuple(f"{r.rank} (mds.{r.name})" for r in fs.active)),
         Field("override", "even if nobody would take it over", "no", choices=("no", "yes"))],
        lambda v: [fs_ranks.build_fail_rank(fs, st.standbys, v["rank"], v["override"])],
        help=f"Its daemon restarts as a standby and another takes the rank: standby-replay "
             f"{', '.join(n for n, _ in fs.standby_replay) or 'none'}; standbys {', '.join(st.standbys) or 'none'}.")
