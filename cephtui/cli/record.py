"""`cephtui record`: the UI's history recorder, headless, for a service or a cron job."""
from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from types import FrameType
from typing import TYPE_CHECKING

from cephtui.ceph.cluster import Cluster
from cephtui.ceph.errors import CephError
from cephtui.cli.table import Invocation

if TYPE_CHECKING:  # the recorder is imported when it runs (cephtui/cli/table.py: keep the parsers cheap)
    from cephtui.ceph.history.model import Sample

HELP = "keep the cluster's history while nobody has the UI open"
DESCRIPTION = ("Record what the UI's history shows (cluster IO and recovery, PG states, health checks raised and "
               "cleared, the cluster log, per-OSD latency and usage, per-pool IO) every 5 s into "
               "$CEPHTUI_DATA_DIR/history/FSID.sqlite (else $XDG_DATA_HOME/cephtui/history), until SIGTERM or "
               "Ctrl-C. Read-only on the cluster. Safe beside an open UI or another recorder on the same file: a 5-s "
               "interval is recorded once. Exit status: 0 stopped; 1 cannot connect or cannot write the history "
               "file.")

REPORT_EVERY = 600.0  # seconds between two "still recording" lines


def add_arguments(h: argparse.ArgumentParser) -> None:
    h.add_argument("--once", action="store_true", help="record one sample and exit (for a cron job)")
    h.add_argument("--quiet", action="store_true", help="print only errors")


def run(inv: Invocation) -> int:
    return record_command(inv.client, inv.args)


def record_command(client: Cluster, args: argparse.Namespace) -> int:
    from cephtui.ceph.history import recorder
    from cephtui.ceph.history.model import INTERVAL
    from cephtui.ceph.history.store import HistoryError, HistoryStore, history_path
    from cephtui.paths import data_dir

    base = data_dir()
    if args.once:
        try:
            sample = recorder.Recorder(client).take()
            store = HistoryStore.for_cluster(base, sample.fsid)
            new = store.write(sample)
        except HistoryError as e:
            print(f"cephtui record: {e}", file=sys.stderr)
            return 1
        except CephError as e:
            print(f"cephtui record: {e.prefix + ': ' if e.prefix else ''}{e.message}", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"recorded cluster {sample.fsid} into {store.path}"
                  + ("" if new else f" (this {INTERVAL}-s interval was already recorded)"))
        return 0

    stop = threading.Event()

    def ask_to_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, ask_to_stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    counts = {"new": 0, "taken": 0}
    said: dict[str, float] = {"at": 0.0}
    told = {"path": ""}

    def on_sample(sample: Sample, new: bool) -> None:
        counts["new" if new else "taken"] += 1
        path = str(history_path(base, sample.fsid))
        if args.quiet:
            return
        if not told["path"]:
            print(f"recording cluster {sample.fsid} into {path} every {INTERVAL} s (SIGTERM or Ctrl-C stops)",
                  flush=True)
            told["path"], said["at"] = path, time.monotonic()
        elif time.monotonic() - said["at"] >= REPORT_EVERY:
            said["at"] = time.monotonic()
            print(f"{time.strftime('%H:%M:%S')} {counts['new']} samples recorded, {counts['taken']} intervals "
                  "already recorded by another recorder", flush=True)

    def on_error(why: str) -> None:
        if why:
            print(f"{time.strftime('%H:%M:%S')} cephtui record: {why} (retrying every {INTERVAL} s)",
                  file=sys.stderr, flush=True)
        elif not args.quiet:
            print(f"{time.strftime('%H:%M:%S')} recording again", flush=True)

    recorder.run(client, lambda fsid: HistoryStore.for_cluster(base, fsid), stop, on_sample, on_error)
    if not args.quiet:
        print(f"stopped: {counts['new']} samples recorded, {counts['taken']} intervals already recorded by "
              "another recorder")
    return 0

