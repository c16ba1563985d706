#!/usr/bin/env bash
# The test command: sets up .venv with the package and its test extras, makes sure
# Chromium is there for the end-to-end tests, then runs the whole suite.
#   bash tests/run.sh            all tests (unit, protocol, e2e in real Chromium)
#   bash tests/run.sh -k vault   extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${WHITEBOARD_TEST_VENV:-.venv}

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e '.[test]'

# The end-to-end tests drive Debian's Chromium (Playwright's own browser download
# cannot work offline). They fail, not skip, when it is missing.
CHROMIUM=${WHITEBOARD_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "Chromium is missing at $CHROMIUM: install it (sudo apt-get install chromium)" \
             "or set WHITEBOARD_CHROMIUM to a Chromium binary." >&2
        exit 1
    fi
fi

exec "$VENV/bin/python" -m pytest "$@"
