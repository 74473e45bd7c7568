#!/usr/bin/env bash
# The unit and replay suites under each chroot's own Python (no cluster needed):
#
#   scripts/test_pythons.sh [SUITE...]     # default: bullseye trixie forky
#
# bullseye = Python 3.9 (the oldest cephtui supports), trixie = 3.13, forky = 3.14; the host's own
# Python (bookworm, 3.11) is scripts/test.sh's. Each chroot gets its venv (.venv-SUITE) from
# scripts/setup.sh, built on first use by scripts/chroot.sh (cached). Prints one line per Python
# with its counts and time, then the totals; exits non-zero if anything failed, errored or
# collected nothing. Needs root (chroot).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SUITES=("$@")
((${#SUITES[@]})) || SUITES=(bullseye trixie forky)
REPLAY=tests/unit/test_snapshot_replay.py
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/cephtui-pythons.XXXXXX")

say() { echo "test_pythons: $*" >&2; }

# "1020 passed, 4 skipped in 42.54s" -> the count of one word (0 when absent)
count() { grep -oE "[0-9]+ $2" <<<"$1" | tail -1 | cut -d' ' -f1 | grep . || echo 0; }

rc=0 total_passed=0 total_failed=0 total_skipped=0
lines=()
start_all=$SECONDS
for suite in "${SUITES[@]}"; do
    t0=$SECONDS
    if ! bash scripts/chroot.sh run "$suite" -- bash scripts/setup.sh >"$LOGS/$suite-setup.log" 2>&1; then
        say "$suite: setup failed:"; tail -20 "$LOGS/$suite-setup.log" >&2
        lines+=("$suite: SETUP FAILED (see $LOGS/$suite-setup.log)"); rc=1; total_failed=$((total_failed + 1)); continue
    fi
    py=$(bash scripts/chroot.sh run "$suite" -- sh -c '"$CEPHTUI_VENV/bin/python" -c "import platform; print(platform.python_version())"')
    summary=""
    for part in unit replay; do
        if [ "$part" = unit ]; then args=(tests/unit --ignore "$REPLAY"); else args=("$REPLAY"); fi
        log="$LOGS/$suite-$part.log"
        bash scripts/chroot.sh run "$suite" -- sh -c '"$CEPHTUI_VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"' \
            sh "${args[@]}" >"$log" 2>&1
        prc=$?
        last=$(grep -E "^(=+ )?[0-9]+ (passed|failed|error|skipped)|no tests ran" "$log" | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')
        p=$(count "$last" passed); f=$(count "$last" failed); e=$(count "$last" error); s=$(count "$last" skipped)
        f=$((f + e))
        total_passed=$((total_passed + p)); total_failed=$((total_failed + f)); total_skipped=$((total_skipped + s))
        if [ "$prc" -ne 0 ] || [ "$p" -eq 0 ]; then
            rc=1
            say "$suite $part: pytest exit $prc (${last:-no summary}); the failures:"
            grep -E "^(FAILED|ERROR) " "$log" | head -20 >&2
            [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && f=1 && total_failed=$((total_failed + 1))  # ran nothing: a failure
        fi
        summary+=" $part $p passed, $f failed, $s skipped;"
    done
    lines+=("$suite (Python $py):${summary%;} [$((SECONDS - t0)) s]")
    say "${lines[-1]}"
done

echo
for l in "${lines[@]}"; do echo "$l"; done
echo "logs in $LOGS; $((SECONDS - start_all)) s in all"
echo "test_pythons: $total_passed passed, $total_failed failed, $total_skipped skipped"
exit "$rc"
