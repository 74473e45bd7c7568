"""The bench worker's protocol (bench/worker.py, bench/remote.py) with a fake engine in a real child process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cephtui.ceph.bench import remote, worker
from cephtui.ceph.bench.params import BenchError, BenchParams
from cephtui.ceph.bench.remote import RemoteEngine, child_command, worker_pids
from cephtui.ceph.bench.results import Progress, Sample
from cephtui.ceph.connection import ConnectionSpec

ROOT = Path(__file__).resolve().parents[2]
SPEC = ConnectionSpec(conffile="/nonexistent/ceph.conf", name="client.bench", extra_args=("--mon-host", "1.2.3.4"))
FAKE_CODE = ("import sys\nsys.path.insert(0, sys.argv[1])\nfrom cephtui.ceph.bench import worker\n"
             "worker.ENGINES['rados'] = ('tests.unit.fake_bench_engine', 'run_fake')\nworker.main()")


def fake_command() -> tuple[list[str], dict[str, str]]:
    """The worker as child_command starts it, with the fake engine in place of librados."""
    argv, env = child_command()
    return [argv[0], "-c", FAKE_CODE, str(ROOT)], env


def fake(pool: str = "ok", seconds: float = 60, **kw: Any) -> RemoteEngine:
    return RemoteEngine(SPEC, BenchParams(pool=pool, seconds=seconds, op_size=4096), command=fake_command, **kw)


def gone(pid: int) -> bool:
    return not os.path.exists(f"/proc/{pid}")


def test_params_spec_and_progress_cross_the_boundary_as_json() -> None:
    p = BenchParams(pool="rbd", mode="write", seconds=2.5, threads=3, op_size=8192, object_size=16384,
                    run_name="r1", cleanup=False, op_timeout=7, verify=False)
    wire = json.loads(json.dumps(worker.encode_params(p)))
    assert wire["kind"] == "rados"
    assert worker.decode_params(wire) == p
    assert worker.decode_spec(json.loads(json.dumps(worker.encode_spec(SPEC)))) == SPEC  # extra_args a tuple again
    s = Sample(sec=1, finished=5, ops=5, mib_s=1.0, avg_lat=0.1, max_lat=0.2, in_flight=2)
    prog = Progress(phase="running", elapsed=1.0, seconds=2.0, started=7, finished=5, failed=0, in_flight=2,
                    avg_latency=0.1, samples=(s,), op_size=4096)
    fields = json.loads(json.dumps(worker.progress_fields(prog)))
    assert "samples" not in fields  # each sample travels once, as its own line
    assert remote._decode_progress(fields, (s,)) == prog
    with pytest.raises(ValueError, match="unknown bench kind"):
        worker.decode_params({"kind": "tape", "pool": "x"})


def test_the_child_command_finds_this_cephtui_and_the_pyz(tmp_path: Path) -> None:
    argv, env = child_command({"PATH": "/bin"})
    assert argv[:2] == [sys.executable, "-c"] and (Path(argv[3]) / "cephtui" / "ceph" / "bench" / "worker.py").is_file()
    assert Path(argv[3]) == Path(remote.__file__).parents[3]  # this checkout's copy, not another install's
    pyz = tmp_path / "cephtui.pyz"
    pyz.write_bytes(b"")
    argv, env = child_command({"CEPHTUI_PYZ": str(pyz)})
    assert argv == [sys.executable, str(pyz), "-c", remote.CHILD_CODE, ""] and env["SHIV_INTERPRETER"] == "1"
    argv, _ = child_command({"CEPHTUI_PYZ": str(tmp_path / "gone.pyz")})  # a stale variable: not the pyz
    assert argv[1] == "-c"


def test_the_worker_imports_no_textual() -> None:
    argv, env = child_command()
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import cephtui.ceph.bench.worker, "
            "cephtui.ceph.bench.engine; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('textual', 'rich') or m.startswith('cephtui.ui')))")
    res = subprocess.run([argv[0], "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_a_run_streams_samples_and_progress_and_returns_the_childs_result() -> None:
    started: list[Any] = []
    samples: list[Sample] = []
    engine = fake(seconds=0.4, on_start=started.append, on_sample=samples.append)
    assert engine.progress().phase == "connecting"
    result = engine.run()
    assert started == [engine]  # on_start gets the proxy, in this process
    assert result.ok and not result.stopped and result.ops == len(samples) >= 3
    assert result.samples == tuple(samples) == engine.progress().samples
    assert result.pid != os.getpid()  # it ran over there
    assert result.host == "client.bench|/nonexistent/ceph.conf|tuple:--mon-host 1.2.3.4"
    assert result.params == engine.p and result.cleanup_note == "fake cleanup"
    assert engine.pid is None and gone(result.pid) and result.pid not in worker_pids()


def test_stop_mid_run_gives_the_partial_result() -> None:
    box: dict[str, RemoteEngine] = {}

    def on_sample(s: Sample) -> None:
        if s.sec == 3:
            box["e"].stop()
    box["e"] = engine = fake(on_sample=on_sample)
    t0 = time.monotonic()
    result = engine.run()
    assert result.stopped and result.ok and 3 <= result.ops < 20 and time.monotonic() - t0 < 30
    assert gone(result.pid)


def test_stop_before_the_child_starts_still_stops_it() -> None:
    engine = fake()
    engine.stop()
    result = engine.run()
    assert result.stopped and result.ops <= 2


def test_errors_come_back_as_messages_never_tracebacks(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(BenchError, match="^pool refuse is full: the fake says no$"):
        fake("refuse").run()
    with pytest.raises(BenchError, match="^RuntimeError: a bug in the fake engine$"):
        fake("boom").run()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err  # the child's stderr is a file, read into our log


def test_a_child_that_dies_mid_run_is_reported() -> None:
    engine = fake("crash")
    with pytest.raises(BenchError, match="exited with status 3 before reporting a result"):
        engine.run()
    assert engine.pid is None and not worker_pids()


def test_a_frozen_child_is_ended_by_its_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    pids: list[int] = []

    def started(e: Any) -> None:  # the limit shortened once the child has spoken: a start slowed by a loaded
        pids.append(e.pid)         # machine (imports > 1 s) is not the freeze this is about (a flake under CI)
        monkeypatch.setattr(remote, "SILENCE_LIMIT", 1.0)
    engine = fake("freeze", on_start=started)
    with pytest.raises(BenchError, match="was ended after 1 s without a word"):
        engine.run()
    assert engine.killed and pids and gone(pids[0])


def test_eof_on_its_stdin_stops_the_child_which_reports_and_exits() -> None:
    """The parent died (or closed the pipe): the run stops as after `stop`, cleans up, and the child exits."""
    argv, env = fake_command()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, text=True, start_new_session=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"spec": worker.encode_spec(SPEC),
                                     "params": worker.encode_params(BenchParams(pool="ok", seconds=60))}) + "\n")
        proc.stdin.flush()
        kinds = []
        while "sample" not in kinds:
            kinds.append(json.loads(proc.stdout.readline())["t"])
        assert kinds.index("started") < kinds.index("sample")  # the engine exists before its first second
        proc.stdin.close()
        last = [json.loads(line) for line in proc.stdout][-1]
        assert last["t"] == "result" and last["result"]["stopped"] is True and last["abandoned"] is False
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_rbd_kind_goes_through_the_same_worker() -> None:
    blockparams = pytest.importorskip("cephtui.ceph.bench.blockparams")
    p = blockparams.BlockParams(pool="rbd", temp_image_size=1 << 30)
    wire = json.loads(json.dumps(worker.encode_params(p)))
    assert wire["kind"] == "rbd"
    assert worker.decode_params(wire) == p
    assert worker.engine_function("rbd").__name__ == "run_block_bench"


def test_the_worker_can_yield_the_cpu_to_the_ui() -> None:
    # CEPHTUI_BENCH_NICE (off by default): the worker's own nice, raised (its autogroup is the UI's: left alone)
    argv, env = child_command()
    code = (f"import os, sys; sys.path.insert(0, {str(ROOT)!r}); from cephtui.ceph.bench.worker import lower_priority; "
            "before = os.nice(0); lower_priority(sys.argv[1]); print(os.nice(0) - before)")
    for value, raised in (("7", "7"), ("", "0"), ("x", "0"), ("-5", "0")):
        res = subprocess.run([argv[0], "-c", code, value], capture_output=True, text=True, env=env, timeout=60)
        assert res.returncode == 0 and res.stdout.strip() == raised, (value, res.stderr)
