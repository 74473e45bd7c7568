#!/usr/bin/env bash
# The long soaks: fault loops and healthy runs too long for CI, which keeps a short version of each
# (tests/ui/test_faults_kills.py kills each daemon CEPHTUI_KILLS=6 times there; the fail-slow and memory
# soaks have CI tests of the same code on shorter runs). Run by hand, on a quiet machine:
#
#   scripts/soak.sh                    all of them, one after another (about 2 hours)
#   scripts/soak.sh kills failslow     only those
#
#   kills     the active mgr, then the leader mon, SIGTERMed 30 times each at random moments while cephtui
#             polls and a headless `cephtui snapshot --json` loop runs (tests/ui/test_faults_kills.py with
#             CEPHTUI_KILLS=30; about 20 minutes; CEPHTUI_KILL_SEED replays one run)
#   failslow  30 minutes of healthy load on a 6-OSD sandbox, judged every 5 s as `cephtui doctor` would:
#             every OSD named is a false positive (scripts/failslow_soak.py)
#   failslow-sizes  the late-onset fail-slow test (150 s of healthy recorded load, then one OSD throttled:
#             named within two minutes, then cleared) on a 4-OSD and a 6-OSD sandbox; CI runs it on 3
#             (tests/cluster/test_failslow.py with CEPHTUI_FAILSLOW_OSDS=4, then 6; about 10 minutes)
#   memory    the real cephtui in tmux for 60 minutes, switching tabs: RSS must stay flat (scripts/soak.py)
#
# Each soak starts its own sandbox and stops (purges) only that one. It ends with a table of each soak's
# time and result; the exit status is 1 when any failed. README ("Soaks") keeps the last results.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
VENV=${CEPHTUI_VENV:-$ROOT/.venv}
cd "$ROOT"
soaks=("$@")
[ "${#soaks[@]}" -gt 0 ] || soaks=(kills failslow failslow-sizes memory)

failslow() {
    local box rc=0
    box=$(mktemp -d "${TMPDIR:-/tmp}/ctsoak-slow.XXXXXX")
    /usr/bin/python3 scripts/sandbox.py start "$box/sb" --osds 6 --pool rbd:32
    PYTHONPATH=. "$VENV/bin/python" scripts/failslow_soak.py "$box/sb" --minutes "${CEPHTUI_SOAK_MINUTES:-30}" || rc=$?
    /usr/bin/python3 scripts/sandbox.py stop "$box/sb" --purge || true
    rm -rf "$box"
    return "$rc"
}

results=()
failed=0
for soak in "${soaks[@]}"; do
    t0=$(date +%s)
    echo "soak.sh: == $soak ($(date +%H:%M:%S))" >&2
    rc=0
    case "$soak" in
        kills) CEPHTUI_KILLS=${CEPHTUI_KILLS:-30} "$VENV/bin/python" -m pytest -s -q -p no:cacheprovider \
                   tests/ui/test_faults_kills.py || rc=$?;;
        failslow) failslow || rc=$?;;
        failslow-sizes) for n in 4 6; do
                   CEPHTUI_FAILSLOW_OSDS=$n "$VENV/bin/python" -m pytest -s -q -p no:cacheprovider \
                       tests/cluster/test_failslow.py -k turning_slow || rc=$?
               done;;
        memory) "$VENV/bin/python" scripts/soak.py --minutes "${CEPHTUI_SOAK_MINUTES:-60}" || rc=$?;;
        *) echo "soak.sh: unknown soak '$soak' (kills, failslow, failslow-sizes or memory)" >&2; exit 2;;
    esac
    [ "$rc" -eq 0 ] || failed=1
    results+=("$(printf '%-10s %6ss  %s' "$soak" "$(($(date +%s) - t0))" "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")")")
done
echo "soak.sh: summary" >&2
for line in "${results[@]}"; do echo "  $line" >&2; done
exit "$failed"
