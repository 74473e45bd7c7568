"""The TUI's start from the command line: the app on a connected client, and quitting when the terminal goes."""
from __future__ import annotations

import os
import signal
import threading
from typing import Any

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.connection import ConnectionSpec


def run_tui(client: Cluster, spec: ConnectionSpec, refresh: float, osd_stop_cmd: str = "",
            read_only: bool = False, theme: str | None = None, bench_defaults: Any = None,
            read_only_why: str = "", config_file: str | None = None, prometheus: str = "") -> int:
    from cephtui.ceph.secrets import log_to_file
    from cephtui.ui.app import CephTUI

    log_to_file()  # errors the UI summarises ("see the log") land here, secrets masked
    app = CephTUI(client=client, refresh=refresh, cluster=spec.cluster, osd_stop_cmd=osd_stop_cmd,
                  read_only=read_only, theme=theme, bench_defaults=bench_defaults, read_only_why=read_only_why,
                  config_file=config_file, prometheus=prometheus)
    skew = client.release_skew()
    if skew:
        app.startup_notes.append(skew)
    HANGUP.app = app
    try:
        app.run()
    finally:
        # Whatever ended the app (q, ctrl+q, an error): a removal it drove is paused in the cluster's queue, not
        # left `running` with nothing driving it. The UI is gone, so waiting on the cluster here blocks nobody.
        app.removals.pause_driven("cephtui ended")
    return 0


class Hangup:
    """Quit when the terminal goes away (a dropped ssh session), or on SIGTERM.

    Textual keeps running after a hangup: its writer thread dies on the dead
    terminal and the UI thread then waits forever on a full output queue. A
    Python signal handler would never run there (the signal lands in some other
    thread while the main one is stuck in a lock), so SIGHUP and SIGTERM are
    blocked in every thread from the start and one watcher thread waits for
    them: it pauses any removal this cephtui drives (saved in the cluster's
    queue, as `cephtui remove` does on SIGTERM), asks the app to exit and, if
    that has not happened within two seconds, ends the process. After a hangup
    there is no terminal left to restore; after SIGTERM the app restores it.
    """

    app: Any = None
    SIGNALS = frozenset({signal.SIGHUP, signal.SIGTERM})

    def install(self) -> None:
        # Before librados starts its threads: they inherit the blocked mask.
        signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)
        threading.Thread(target=self._watch, name="sighup-watcher", daemon=True).start()

    def _watch(self) -> None:
        signum = signal.sigwait(self.SIGNALS)
        if signum == signal.SIGHUP:
            # The terminal is gone (or going): what is still written to it, down to the interpreter's
            # last flush of stdout, would fail with EIO, and a failed final flush makes Python exit
            # with status 120 (seen on 3.13) instead of ours. Nobody can read it any more.
            try:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (1, 2):
                    os.dup2(null, fd)
                os.close(null)
            except OSError:
                pass
        if self.app is not None:
            try:  # before the exit timer: the pause is bounded by the client's own op timeouts
                self.app.removals.pause_driven(f"cephtui got {signal.Signals(signum).name}")
            except Exception:
                pass
        timer = threading.Timer(2.0, os._exit, args=(128 + signum,))
        timer.daemon = True
        timer.start()
        if self.app is not None:
            try:
                self.app.call_from_thread(self.app.exit)
            except Exception:
                pass
        else:
            os._exit(128 + signum)


HANGUP = Hangup()
