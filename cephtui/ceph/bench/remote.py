"""The parent's side of the bench worker (worker.py): a run in a process of its own.

`RemoteEngine` offers what `engine.BenchEngine` offers (`stop()`, `progress()`, `run()`, `abandoned`),
so service.BenchRun, `cephtui bench` and the Bench tab drive a run in the worker as they drove one in
a thread: `on_start` gets this proxy, `on_sample` the samples, in the parent.

The child is ours: it runs in its own session (a Ctrl-C on the terminal reaches the parent, which then
asks it to stop, instead of killing it mid-op), writes only into a log file and the protocol pipe, and
is ended by its pid when it stops answering or does not exit after its result. It is spawned so that
it works from an editable install, a wheel and the one-file cephtui.pyz (child_command).
"""
from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import fields
from typing import IO, Any, Protocol

from cephtui.ceph.bench import worker
from cephtui.ceph.bench.params import BenchError
from cephtui.ceph.bench.results import BenchResult, Progress, Sample

log = logging.getLogger("cephtui")

# Set by the one-file build's __main__ to its own path (launcher.PYZ_ENV; not imported: that module is the
# entry point and stays out of the cluster side).
PYZ_ENV = "CEPHTUI_PYZ"
# The child's code: the directory holding the `cephtui` package first on sys.path (argv[1]; "" in the
# pyz, whose bootstrap has set sys.path up already), then the worker.
CHILD_CODE = ("import sys\nif sys.argv[1]: sys.path.insert(0, sys.argv[1])\n"
              "from cephtui.ceph.bench.worker import main\nmain()")
SILENCE_LIMIT = 30.0  # seconds without a line (a progress line comes every 0.2 s): the child is hung
EXIT_GRACE = 5.0  # seconds for the child to exit once it has sent its result, or been asked to stop


_live_workers: set[int] = set()  # pids of the worker processes running now (hoststats counts their CPU)


def worker_pids() -> tuple[int, ...]:
    """The bench worker processes this process runs now: their CPU is cephtui's too."""
    return tuple(_live_workers)


class EngineHandle(Protocol):
    """What a caller holds of a running engine: engine.BenchEngine in this process, RemoteEngine in a worker."""

    abandoned: bool

    def stop(self) -> None: ...

    def progress(self) -> Progress: ...


def package_root() -> str:
    """The directory that holds this `cephtui` package (a checkout, site-packages)."""
    import cephtui

    return os.path.dirname(os.path.dirname(os.path.abspath(cephtui.__file__)))


def child_command(environ: dict[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """argv and environment for the worker. The same Python as ours (which finds `rados` as we did);
    from the pyz, the pyz again in shiv's interpreter mode (its sources are unpacked on import by its own
    finder, so a plain `python -c` with its directory on sys.path would not find them all)."""
    env = dict(os.environ if environ is None else environ)
    python = sys.executable or "python3"
    pyz = env.get(PYZ_ENV, "")
    if pyz and os.path.isfile(pyz):
        env["SHIV_INTERPRETER"] = "1"
        return [python, pyz, "-c", CHILD_CODE, ""], env
    return [python, "-c", CHILD_CODE, package_root()], env


def _decode_progress(d: dict[str, Any], samples: tuple[Sample, ...]) -> Progress:
    known = {f.name for f in fields(Progress)}
    return Progress(**{k: v for k, v in d.items() if k in known and k != "samples"}, samples=samples)


class RemoteEngine:
    """One run in a worker process. `run()` from a worker thread; `stop()` and `progress()` from anywhere."""

    def __init__(self, spec: Any, params: Any, *, on_start: Callable[[RemoteEngine], None] | None = None,
                 on_sample: Callable[[Sample], None] | None = None,
                 command: Callable[[], tuple[list[str], dict[str, str]]] = child_command) -> None:
        self.spec = spec
        self.p = params
        self.on_start = on_start
        self.on_sample = on_sample
        self._command = command
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._stop_sent = False
        self._stop_asked = False
        self._samples: tuple[Sample, ...] = ()
        self._progress: dict[str, Any] | None = None
        self._last_heard = 0.0
        self._finished = threading.Event()
        self.abandoned = False
        self.pid: int | None = None  # the child's, while it runs
        self.killed = False  # the parent ended the child by its pid

    # ---- control
    def stop(self) -> None:
        """Ask the child to stop issuing ops; it reports the partial result as a stopped run does."""
        with self._lock:
            self._stop_asked = True
        self._send_stop()

    def progress(self) -> Progress:
        with self._lock:
            d, samples = self._progress, self._samples
        if d is None:
            return Progress(phase="connecting", elapsed=0.0, seconds=float(getattr(self.p, "seconds", 0.0)),
                            started=0, finished=0, failed=0, in_flight=0, avg_latency=0.0, samples=samples)
        return _decode_progress(d, samples)

    # ---- the run
    def run(self) -> BenchResult:
        """Spawn the worker, relay its messages, return its result. BenchError for a run that could not
        start (the child's message) or a child that died."""
        stderr = tempfile.TemporaryFile(mode="w+", prefix="cephtui-bench-")
        try:
            argv, env = self._command()
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                        env=env, text=True, encoding="utf-8", bufsize=1, close_fds=True,
                                        preexec_fn=os.setpgrp)
            except OSError as e:
                raise BenchError(f"cannot start the bench process ({argv[0]}): {e.strerror or e}") from None
            with self._lock:
                self.pid = proc.pid
                self._last_heard = time.monotonic()
            _live_workers.add(proc.pid)
            watchdog = threading.Thread(target=self._watch, args=(proc,), name="bench-watchdog", daemon=True)
            watchdog.start()
            try:
                self._request(proc)
                return self._relay(proc, stderr)
            finally:
                self._finished.set()
                self._reap(proc)
                if proc.stdout is not None:
                    proc.stdout.close()
        finally:
            stderr.close()

    def _request(self, proc: subprocess.Popen[str]) -> None:
        request = {"spec": worker.encode_spec(self.spec), "params": worker.encode_params(self.p)}
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        except OSError:  # it died at once: _relay reads its EOF and says so
            pass
        # Only now may `stop` reach the child: its first line must be the request.
        with self._lock:
            self._proc = proc
            stop_now = self._stop_asked
        if stop_now:
            self._send_stop()

    def _relay(self, proc: subprocess.Popen[str], stderr: IO[str]) -> BenchResult:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self._lock:
                self._last_heard = time.monotonic()
            try:
                message = json.loads(line)
                kind = message["t"]
            except (ValueError, KeyError, TypeError):
                log.warning("bench worker: unexpected line %r", line[:200])
                continue
            if kind == "progress":
                with self._lock:
                    self._progress = message.get("progress")
            elif kind == "sample":
                sample = Sample(**message["sample"])
                with self._lock:
                    self._samples = (*self._samples, sample)
                self._call(self.on_sample, sample)
            elif kind == "started":
                self._call(self.on_start, self)
            elif kind == "result":
                self.abandoned = bool(message.get("abandoned"))
                result = BenchResult.from_dict(message["result"])
                with self._lock:
                    if self._progress is not None:
                        self._progress = {**self._progress, "phase": "done"}
                return result
            elif kind == "error":
                if message.get("internal"):
                    log.error("bench worker failed: %s\n%s", message.get("message"), _tail(stderr))
                raise BenchError(str(message.get("message") or "the bench process failed"))
        # EOF without a result: the child died (killed, crashed in librados) or was ended by us.
        code = proc.wait()
        why = (f"was ended after {SILENCE_LIMIT:g} s without a word" if self.killed else
               f"was killed by signal {-code}" if code < 0 else f"exited with status {code}")
        tail = _tail(stderr)
        log.error("bench worker %s %s\n%s", proc.pid, why, tail)
        raise BenchError(f"the bench process {why} before reporting a result (see the log)")

    @staticmethod
    def _call(callback: Callable[[Any], None] | None, arg: Any) -> None:
        """A caller's callback; one that fails (a UI quitting under it) must not cut the run off from its
        child, which would then be ended before it cleans up."""
        if callback is None:
            return
        try:
            callback(arg)
        except Exception:
            log.exception("bench: a callback failed")

    def _send_stop(self) -> None:
        with self._lock:
            proc = self._proc
            if proc is None or self._stop_sent:
                return
            self._stop_sent = True
        try:
            assert proc.stdin is not None
            proc.stdin.write(worker.STOP + "\n")
            proc.stdin.flush()
        except (OSError, ValueError):  # gone already, or its pipe closed by _reap
            pass

    def _watch(self, proc: subprocess.Popen[str]) -> None:
        """End a child that has said nothing for SILENCE_LIMIT: its progress line comes every 0.2 s."""
        while not self._finished.wait(1.0):
            with self._lock:
                silent = time.monotonic() - self._last_heard
            if silent > SILENCE_LIMIT and proc.poll() is None:
                self.killed = True
                self._kill(proc)
                return

    def _reap(self, proc: subprocess.Popen[str]) -> None:
        """The child exits after its result, or after EOF on its stdin; end it by pid if it does not."""
        try:
            if proc.stdin is not None:
                proc.stdin.close()  # EOF: a child still running stops, cleans up, exits
        except OSError:
            pass
        try:
            proc.wait(timeout=EXIT_GRACE)
        except subprocess.TimeoutExpired:
            log.warning("bench worker %s did not exit: ending it", proc.pid)
            self._kill(proc)
        _live_workers.discard(proc.pid)
        with self._lock:
            self.pid = None

    @staticmethod
    def _kill(proc: subprocess.Popen[str]) -> None:
        if proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGKILL)  # ours, by its pid (a zombie until reaped, so never reused)
            except ProcessLookupError:
                pass
        try:
            proc.wait(timeout=EXIT_GRACE)
        except subprocess.TimeoutExpired:
            pass


def _tail(f: IO[str], limit: int = 4000) -> str:
    """The end of the child's log (stderr), for our log."""
    try:
        f.flush()
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - limit))
        return f.read()
    except (OSError, ValueError):
        return ""


def run_remote(spec: Any, params: Any, *, on_start: Callable[[RemoteEngine], None] | None = None,
               on_sample: Callable[[Sample], None] | None = None) -> BenchResult:
    """engine.run_bench (or the block engine's run, by params.kind) in a worker process."""
    return RemoteEngine(spec, params, on_start=on_start, on_sample=on_sample).run()
