"""What bench and bench rbd share on the command line: a run in a thread that Ctrl-C stops (partial results, the
temporary pool or image removed) instead of killing it mid-op, and the latency probe's table and words."""
from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from cephtui.ceph.bench.params import BenchError
from cephtui.ceph.errors import CephError

if TYPE_CHECKING:  # imported when a run starts (cephtui/cli/table.py: keep the parsers cheap)
    from cephtui.ceph.bench.probe import LatencyProbe
    from cephtui.ceph.bench.probe_result import ProbeResult
    from cephtui.ceph.bench.service import BenchRun, RunOutcome


def run_in_thread(run: BenchRun, out: TextIO) -> RunOutcome:
    """Run in a thread so Ctrl-C stops the run (partial results, the temporary pool deleted) instead of
    killing it mid-op."""
    outcome: RunOutcome = in_thread(run.run, run.stop, out)
    return outcome


def run_and_report(run: BenchRun, who: str, as_json: bool, as_dict: Callable[[Any], Any],
                   print_text: Callable[[Any], None]) -> int:
    """A run to its end (Ctrl-C stops it), its problems said, then its result as JSON or as text; the exit status:
    0 done, 1 failed or no result."""
    err = sys.stderr
    outcome = run_in_thread(run, err)
    for problem in outcome.problems:
        print(f"{who}: {problem}", file=err)
    result = outcome.result
    if result is None:
        return 1
    if as_json:
        json.dump(as_dict(result), sys.stdout, indent=2, default=str)
        print()
    else:
        print_text(result)
    return 0 if result.ok else 1


def in_thread(fn: Callable[[], Any], stop: Callable[[], None], out: TextIO) -> Any:
    """`fn()` in a thread (Ctrl-C calls `stop()`); its result, or its exception raised here."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as e:  # handed to the main thread
            box["error"] = e

    wait_stoppable(target, stop, out)
    if "error" in box:
        raise box["error"]
    return box["result"]


def wait_stoppable(target: Any, stop: Any, out: TextIO) -> None:
    """`target()` in a thread; Ctrl-C calls `stop()` (the ops in flight finish) instead of killing it mid-op."""
    t = threading.Thread(target=target, name="bench", daemon=True)
    t.start()
    while t.is_alive():
        try:
            t.join(0.2)
        except KeyboardInterrupt:
            print("stopping: waiting for the ops in flight…", file=out)
            stop()


def run_probe(probe: LatencyProbe, problems: list[str], as_json: bool, who: str) -> int:
    """Run a latency probe (Ctrl-C stops it), then print its table and words, or its JSON."""
    err = sys.stderr
    result: ProbeResult | None = None
    error: BaseException | None = None
    try:
        result = in_thread(probe.run, probe.stop, err)
    except BaseException as e:  # said after the problems the runs reported
        error = e
    for problem in problems:
        print(f"{who}: {problem}", file=err)
    if isinstance(error, (BenchError, CephError)):
        print(f"{who}: {getattr(error, 'message', '') or error}", file=err)
        return 1
    if error is not None or result is None:
        raise error or RuntimeError("the probe returned nothing")
    if as_json:
        json.dump({**result.to_dict(), "runs": [r.to_dict() for r in result.results]}, sys.stdout, indent=2,
                  default=str)
        print()
    else:
        print_probe(result, sys.stdout)
    done = result.read is not None and not result.read.error and not result.write.error
    return 0 if done else 1


def print_probe(r: ProbeResult, out: TextIO) -> None:
    """The probe's table (milliseconds; IOPS one op in flight allows), then its words."""
    from cephtui.ceph.bench.probe_result import write_floor

    print(f"{'':<8}{'p50':>10}{'p99':>10}{'p99.9':>10}{'max':>10}{'IOPS@p50':>10}{'IOPS@mean':>11}"
          f"{'net floor':>10}", file=out)
    for d, floor in ((r.write, write_floor(r.floor, r.shape)), (r.read, r.floor.client_rtt)):
        if d is None:
            continue
        print(f"{d.name:<8}" + "".join(f"{v * 1000:>10.3f}" for v in (d.p50, d.p99, d.p999, d.max))
              + f"{d.iops_p50:>10.0f}{d.iops_mean:>11.0f}{floor * 1000:>10.3f}", file=out)
    print("(in ms; net floor: the network's part alone, the network floor the words below hold each op "
          "against)", file=out)
    print(file=out)
    for line in r.words:
        print(line, file=out)
