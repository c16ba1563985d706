#!/usr/bin/env bash
# The test command: sets up .venv with the package and its test extras, makes sure
# Chromium and Firefox ESR are there for the end-to-end tests and ESLint and web-ext for the
# JavaScript, then runs the whole suite (the JavaScript's own tests and lint run in it,
# tests/unit/test_extension_js.py).
#   bash tests/run.sh            all tests (unit, protocol, e2e in real Chromium and Firefox)
#   bash tests/run.sh -k vault   extra arguments go to pytest
#   bash tests/run.sh --fresh   the same in a fresh clone of the committed HEAD with a new venv
#                               (what CI and a new machine see; tests/README.md)
#   bash tests/run.sh --fresh --busy   ... with one core kept busy by a Python loop meanwhile
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--fresh" ]; then
    shift
    busy=""
    if [ "${1:-}" = "--busy" ]; then
        shift
        python3 -c 'while True: pass' &
        busy=$!
    fi
    fresh=$(mktemp -d "${TMPDIR:-/tmp}/whiteboard-fresh.XXXXXX")
    trap '[ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$fresh"' EXIT
    git clone --quiet "$PWD" "$fresh/whiteboard"
    # The benchmarks' data sits beside the checkout, as on CI.
    [ -d ../shared ] && ln -s "$(cd .. && pwd)/shared" "$fresh/shared"
    echo "fresh clone of $(git rev-parse --short HEAD) in $fresh/whiteboard" >&2
    status=0
    (cd "$fresh/whiteboard" && env -u VIRTUAL_ENV -u WHITEBOARD_TEST_VENV bash tests/run.sh "$@") || status=$?
    exit "$status"
fi

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

# The Firefox end-to-end tests drive Debian's Firefox ESR over WebDriver BiDi (no driver and
# no browser build downloaded; tests/README.md). They fail, not skip, when it is missing.
FIREFOX=${WHITEBOARD_FIREFOX:-/usr/bin/firefox-esr}
if [ ! -x "$FIREFOX" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr >/dev/null
    else
        echo "Firefox ESR is missing at $FIREFOX: install it (sudo apt-get install firefox-esr)" \
             "or set WHITEBOARD_FIREFOX to a Firefox binary." >&2
        exit 1
    fi
fi

# The extension's JavaScript is linted with ESLint, installed with npm into
# tools/eslint/node_modules (git-ignored); tests/unit/test_extension_js.py runs it and
# node's test runner on tests/js. Node 20 or later is needed.
if ! command -v npm >/dev/null; then
    echo "node and npm are missing: install Node.js 20 or later (sudo apt-get install nodejs npm)." >&2
    exit 1
fi
if [ ! -x tools/eslint/node_modules/.bin/eslint ] || \
        [ tools/eslint/package-lock.json -nt tools/eslint/node_modules/.package-lock.json ]; then
    npm ci --prefix tools/eslint --no-audit --no-fund --loglevel=error
fi
# The real editor libraries the chat sites run, for tests/e2e/test_editor_input.py.
if [ ! -d tests/e2e/editors/node_modules/quill ] || \
        [ tests/e2e/editors/package-lock.json -nt tests/e2e/editors/node_modules/.package-lock.json ]; then
    npm ci --prefix tests/e2e/editors --no-audit --no-fund --loglevel=error
fi
# The extension is also linted by Firefox's add-on linter, web-ext, in tools/web-ext/node_modules (git-ignored).
if [ ! -x tools/web-ext/node_modules/.bin/web-ext ] || \
        [ tools/web-ext/package-lock.json -nt tools/web-ext/node_modules/.package-lock.json ]; then
    npm ci --prefix tools/web-ext --no-audit --no-fund --loglevel=error
fi

exec "$VENV/bin/python" -m pytest "$@"
