#!/usr/bin/env bash
# Set everything up, then lint (ruff), type-check (mypy) and run the whole test suite against a real
# sandbox cluster (started by the tests).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
VENV=${CEPHTUI_VENV:-$ROOT/.venv}
cd "$ROOT"
# Lint and types first: quick, and a red one needs no cluster to show.
echo "test.sh: ruff check" >&2
"$VENV/bin/ruff" check .
# mypy runs on 3.10+ only (a venv of Python 3.9 has none): it checks for 3.9 from the newer Python.
if "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "test.sh: mypy cephtui" >&2
    "$VENV/bin/python" -m mypy cephtui
else
    echo "test.sh: no mypy on Python 3.9 (pyproject.toml); the host's type check covers 3.9" >&2
fi
set +e
"$VENV/bin/python" -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests; that is a failure" >&2
    exit 1
fi
exit "$rc"
