#!/usr/bin/env bash
# The whole test suite, as CI runs it:
#   scripts/test.sh            set up; lint (ruff), type-check (mypy); the whole pytest suite against a
#                              real sandbox cluster of this host's release, in two stages (the unit tier,
#                              then the cluster and ui tiers; tests/conftest.py); then the release matrix:
#                              the unit and replay suites on Python 3.9, 3.13 and 3.14, and the release
#                              tier on Reef and Tentacle, each in its Debian chroot (scripts/chroot.sh,
#                              built first when not cached).
#   scripts/test.sh ARGS...    set up, lint, type-check, then only `pytest ARGS` on this host (development).
# CEPHTUI_MATRIX=0 skips the release matrix.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Bytecode is written (into __pycache__/, ignored by git): with PYTHONDONTWRITEBYTECODE set, as it was in CI's
# environment, every pytest worker rewrote the asserts of ~280 test modules (collection took 8.6 s per worker,
# 3.7 s with bytecode) and every `cephtui` a test starts compiled cephtui again.
unset PYTHONDONTWRITEBYTECODE
"$ROOT/scripts/setup.sh"
VENV=${CEPHTUI_VENV:-$ROOT/.venv}
cd "$ROOT"
matrix=${CEPHTUI_MATRIX:-1}
[ "$#" -eq 0 ] || matrix=0
[ "$(id -u)" -eq 0 ] || { [ "$matrix" = 1 ] && echo "test.sh: not root: no chroots, so no release matrix" >&2; matrix=0; }

started=$(date +%s)
failed=0
times=()
stage() {  # stage NAME CMD...: run, time, remember; a failure does not stop the others
    local name=$1 t0 rc
    shift
    t0=$(date +%s)
    echo "test.sh: == $name" >&2
    set +e
    "$@"
    rc=$?
    set -e
    times+=("$(printf '%-34s %5ss  %s' "$name" "$(($(date +%s) - t0))" "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")")")
    return $rc
}

if [ "$matrix" = 1 ]; then
    # Built first (cached afterwards), so that the host suite's cross-release tests (the one file on each
    # chroot's Python, this librados against a Tentacle cluster) run rather than skip.
    for suite in trixie forky bullseye; do
        stage "chroot $suite" bash "$ROOT/scripts/chroot.sh" build "$suite" || { matrix=0; failed=1; }
    done
fi

# Lint and types first: quick, and a red one needs no cluster to show.
stage "ruff check" "$VENV/bin/ruff" check . || failed=1
# mypy runs on 3.10+ only (a venv of Python 3.9 has none): it checks for 3.9 from the newer Python.
if "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    stage "mypy cephtui" "$VENV/bin/python" -m mypy cephtui || failed=1
else
    echo "test.sh: no mypy on Python 3.9 (pyproject.toml); the host's type check covers 3.9" >&2
fi
pytest_stage() {  # pytest_stage NAME ARGS...: a pytest run as a stage; collecting nothing is a failure too
    local name=$1 rc=0
    shift
    # `|| rc=$?`: a failing stage must not end the script under set -e (stage re-enables it); the
    # matrix and the timing table still run
    stage "$name" "$VENV/bin/python" -m pytest "$@" || rc=$?
    if [ "$rc" -eq 5 ]; then
        echo "test.sh: pytest ($name) collected no tests; that is a failure" >&2
        failed=1
    elif [ "$rc" -ne 0 ]; then
        failed=1
    fi
}
release=$(ceph --version 2>/dev/null | awk '{print $3, $5}')
# The cluster and ui tiers run in WORKERS processes (pytest-xdist), each with its own sandbox cluster;
# most of a test's time is spent waiting on the cluster or the UI, not computing (tests/conftest.py):
# three on 2 cores took 685 s where two took 956-1020 s.
workers=${CEPHTUI_WORKERS:-3}
if [ "$#" -eq 0 ]; then
    # The tiers (tests/conftest.py) as stages: the fast unit tier first, so a red one shows in seconds.
    # The no-cluster tiers: unit, then look (the app on replayed captures, screen snapshots; tests/look).
    # Four workers on 2 cores: a look test waits as much as it computes (Pilot waits for the app to go idle
    # after each key; the look tier's settle looks 5 times 50 ms apart), so two left a third of the CPU
    # idle: 276 s with two, 208 s with four (2026-12-05, the same tree).
    pytest_stage "pytest unit+look tiers" -m "unit or look" -n 4
    # Then everything else: the sandbox tiers, and the walk tier (no cluster, but minutes of CPU: the hostile
    # form walk) beside them. --durations: the slowest tests, to keep tests/conftest.py's LONG_FIRST order true
    pytest_stage "pytest cluster+ui tiers (host: $release)" -m "not unit and not look" -n "$workers" --durations=20
else
    pytest_stage "pytest (host: $release)" "$@"
fi

if [ "$matrix" = 1 ]; then
    # The three run side by side, each in its own chroot with its own cluster: about 5 minutes instead of
    # 11 (CEPHTUI_MATRIX_SIDE_BY_SIDE=0: one after another). Each one's output is kept in a file and shown
    # whole at the end.
    side=${CEPHTUI_MATRIX_SIDE_BY_SIDE:-1}
    logs=$(mktemp -d "${TMPDIR:-/tmp}/cephtui-matrix.XXXXXX")
    names=("Python 3.9 / 3.13 / 3.14 unit+replay" "release tier: reef" "release tier: tentacle")
    cmds=("scripts/test_pythons.sh" "scripts/test_release.sh reef" "scripts/test_release.sh tentacle")
    pids=()
    for i in "${!names[@]}"; do
        # A subshell each: its timing line comes back through a file.
        (
            rc=0
            # shellcheck disable=SC2086  # the command's words
            stage "${names[$i]}" bash "$ROOT/"${cmds[$i]} || rc=$?
            printf '%s\n' "${times[${#times[@]}-1]}" >"$logs/$i.time"
            echo "$rc" >"$logs/$i.rc"
            exit "$rc"
        ) >"$logs/$i.log" 2>&1 &
        pids+=($!)
        [ "$side" = 1 ] || wait "$!" || true
    done
    echo "test.sh: == the release matrix ($([ "$side" = 1 ] && echo "side by side" || echo "one after another")): ${names[*]}" >&2
    for i in "${!names[@]}"; do
        wait "${pids[$i]}" 2>/dev/null || true
        rc=$(cat "$logs/$i.rc" 2>/dev/null || echo 1)
        echo "test.sh: ---- ${names[$i]} (exit $rc)" >&2
        cat "$logs/$i.log" >&2
        times+=("$(cat "$logs/$i.time" 2>/dev/null || printf '%-34s  (no time: it did not finish)' "${names[$i]}")")
        [ "$rc" -eq 0 ] || failed=1
    done
    rm -rf "$logs"
fi

echo "test.sh: summary (wall $(($(date +%s) - started)) s)" >&2
for line in "${times[@]}"; do echo "  $line" >&2; done
exit "$failed"
