"""The bench engine's own process: the child side of remote.py.

Why a process: the engine used to share the UI's interpreter, and so its GIL. At 4 MiB the UI's
p99 frame gap rose from 22 to 51 ms; at 4 KiB every microsecond the engine spends holding the GIL
is one the UI waits for, and the other way round. Here the engine has an interpreter of its own.

The protocol, one JSON object per line:
- stdin, from the parent: first the request `{"spec": ConnectionSpec fields, "params": {"kind": ...,
  params fields}}`, then optionally the line `stop`. EOF (the parent died, or closed the pipe) stops
  the run too: the in-flight ops finish and the engine cleans up as after a stop.
- stdout, to the parent: `{"t": "progress", ...}` a few times a second (also while connecting: a
  heartbeat), `{"t": "started"}` once the engine exists, `{"t": "sample", ...}` each second,
  and last `{"t": "result", "result": BenchResult.to_dict(), "abandoned": bool}` or
  `{"t": "error", "message": ..., "internal": bool}`.
- stderr is a file the parent chose (never its terminal); fd 1 is pointed there too, so that nothing
  but the protocol reaches the pipe (a C library printing to stdout would garble it).

Imports stay light (no textual, no UI): the startup is what every run waits for.
"""
from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
import traceback
from dataclasses import asdict, fields
from typing import IO, Any

# kind -> (module, function with run_bench's signature). Imported when a run of that kind starts: the
# block engine needs python3-rbd, which a machine that only benchmarks RADOS may not have.
ENGINES: dict[str, tuple[str, str]] = {
    "rados": ("cephtui.ceph.bench.engine", "run_bench"),
    "rbd": ("cephtui.ceph.bench.rbdengine", "run_block_bench"),
}
# kind -> (module, class) of the run's parameters, imported lazily for the same reason.
PARAMS: dict[str, tuple[str, str]] = {
    "rados": ("cephtui.ceph.bench.params", "BenchParams"),
    "rbd": ("cephtui.ceph.bench.blockparams", "BlockParams"),
}
# CEPHTUI_BENCH_NICE=N: the worker's priority below the UI's (its own nice). The worker stays in the UI's
# session, so in its autogroup: the pair shares one group's CPU against the OSDs, as a thread would, and the
# nice only orders the two inside it. 0 (the default): the same as the UI's.
NICE_ENV = "CEPHTUI_BENCH_NICE"
PROGRESS_EVERY = 0.2  # seconds between progress lines: the UI redraws at about this rate
STOP = "stop"


def kind_of(params: Any) -> str:
    return str(getattr(params, "kind", "rados"))


def params_class(kind: str) -> type:
    """The parameters' class for `kind`; ValueError for a kind this build does not have."""
    where = PARAMS.get(kind)
    if where is None:
        raise ValueError(f"unknown bench kind {kind!r}")
    return getattr(importlib.import_module(where[0]), where[1])


def engine_function(kind: str) -> Any:
    where = ENGINES.get(kind)
    if where is None:
        raise ValueError(f"unknown bench kind {kind!r}")
    return getattr(importlib.import_module(where[0]), where[1])


def encode_params(params: Any) -> dict[str, Any]:
    return {"kind": kind_of(params), **asdict(params)}


def decode_params(d: dict[str, Any]) -> Any:
    """The parameters sent by encode_params (their __post_init__ checks them again)."""
    cls = params_class(str(d.get("kind", "rados")))
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in known})


def encode_spec(spec: Any) -> dict[str, Any]:
    return asdict(spec)


def decode_spec(d: dict[str, Any]) -> Any:
    from cephtui.ceph.connection import ConnectionSpec

    known = {f.name for f in fields(ConnectionSpec)}
    values = {k: v for k, v in d.items() if k in known}
    values["extra_args"] = tuple(values.get("extra_args") or ())  # JSON has lists only
    return ConnectionSpec(**values)


def progress_fields(progress: Any) -> dict[str, Any]:
    """A Progress without its samples: those travel once each, as sample lines. Field by field, not
    asdict(): that would deep-copy every sample of the run so far, five times a second, to drop them."""
    return {f.name: getattr(progress, f.name) for f in fields(progress) if f.name != "samples"}


class _Channel:
    """Lines to the parent, from several threads; a parent that is gone makes writes no-ops."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._lock = threading.Lock()
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, default=str) + "\n"
        with self._lock:
            if self.closed:
                return
            try:
                self._out.write(line)
                self._out.flush()
            except (BrokenPipeError, OSError, ValueError):  # the parent is gone: finish the run quietly
                self.closed = True


class _Child:
    def __init__(self, channel: _Channel) -> None:
        self.channel = channel
        self.engine: Any = None
        self.stop_asked = threading.Event()
        self.done = threading.Event()
        self._lock = threading.Lock()

    def on_start(self, engine: Any) -> None:
        with self._lock:
            self.engine = engine
        if self.stop_asked.is_set():  # stopped while connecting
            engine.stop()
        self.channel.send({"t": "started"})

    def on_sample(self, sample: Any) -> None:
        self.channel.send({"t": "sample", "sample": asdict(sample)})

    def stop(self) -> None:
        self.stop_asked.set()
        with self._lock:
            engine = self.engine
        if engine is not None:
            engine.stop()

    def listen(self, stdin: IO[str]) -> None:
        """The parent's lines: `stop`, or EOF (the parent is gone: stop, clean up, exit)."""
        try:
            for line in stdin:
                if line.strip() == STOP:
                    self.stop()
        except (OSError, ValueError):
            pass
        self.stop()

    def report(self) -> None:
        """Progress a few times a second, from the start: also the parent's sign that this process lives."""
        while not self.done.wait(PROGRESS_EVERY):
            engine = self.engine
            if engine is None:
                self.channel.send({"t": "progress", "progress": None})
                continue
            try:
                progress = engine.progress()
            except Exception:  # never let the heartbeat die
                continue
            self.channel.send({"t": "progress", "progress": progress_fields(progress)})


def serve(stdin: IO[str], out: IO[str]) -> int:
    """One run: the request from stdin, the messages to `out`. The exit status: 0 result, 1 error."""
    from cephtui.ceph.bench.params import BenchError

    channel = _Channel(out)
    child = _Child(channel)
    try:
        request = json.loads(stdin.readline() or "null")
        if not isinstance(request, dict):
            raise ValueError("no request on stdin")
        spec = decode_spec(request["spec"])
        kind = str(request["params"].get("kind", "rados"))
        run = engine_function(kind)
        params = decode_params(request["params"])
    except ImportError as e:
        channel.send({"t": "error", "message": f"this cephtui has no bench engine for that kind of run ({e})",
                      "internal": True})
        return 1
    except Exception as e:  # a parameter check (BenchError) or a malformed request
        channel.send({"t": "error", "message": str(e), "internal": not isinstance(e, BenchError)})
        return 1
    threading.Thread(target=child.listen, args=(stdin,), name="bench-stdin", daemon=True).start()
    threading.Thread(target=child.report, name="bench-progress", daemon=True).start()
    try:
        result = run(spec, params, on_start=child.on_start, on_sample=child.on_sample)
    except Exception as e:
        child.done.set()
        internal = not isinstance(e, BenchError)
        if internal:
            traceback.print_exc()  # to the log file the parent gave as stderr
        channel.send({"t": "error", "message": f"{type(e).__name__}: {e}" if internal else str(e),
                      "internal": internal})
        return 1
    child.done.set()
    engine = child.engine
    channel.send({"t": "result", "result": result.to_dict(),
                  "abandoned": bool(getattr(engine, "abandoned", False))})
    return 0


def lower_priority(nice: str) -> None:
    """Yield the CPU to the UI inside the autogroup they share (the group's own nice is left alone: it is the
    UI's too)."""
    try:
        n = int(nice or 0)
    except ValueError:
        return
    if n <= 0:
        return
    try:
        os.nice(n)
    except OSError:
        pass


def main() -> None:
    """The child's entry point (remote.child_command). Ends with os._exit: after an abandoned run,
    librados' handle may still hold ops, and tearing it down at interpreter exit can hang."""
    # The parent (cli._Hangup) blocks SIGHUP and SIGTERM in every thread and the mask is inherited:
    # unblock them, so that a SIGTERM ends this process. SIGINT is the parent's to handle (it says stop).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP, signal.SIGTERM})
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lower_priority(os.environ.get(NICE_ENV, ""))
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything else written to stdout lands in the log, not in the protocol
    sys.stdout = sys.stderr
    status = 1
    try:
        status = serve(sys.stdin, out)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            out.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(status)
