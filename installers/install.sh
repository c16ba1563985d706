#!/usr/bin/env bash
# Whiteboard: from a fresh Debian/Ubuntu or macOS machine to a registered native host.
#
#   ./installers/install.sh            (or: bash installers/install.sh)
#
# Creates a virtualenv (default ~/.local/share/whiteboard/venv), installs this checkout
# into it, registers the host with every browser installed or used here, and ends by
# saying how to load extension/ and what its id is. Safe to run again: it reuses the
# environment and rewrites only what changed.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: installers/install.sh [options]

  --venv DIR          where to create the virtualenv
                      (default: $WHITEBOARD_VENV or ~/.local/share/whiteboard/venv)
  --python PATH       Python 3.11+ to build it with (default: newest python3.x found)
  --browser NAME      register only this browser (repeatable): chrome, chromium,
                      brave, edge, vivaldi, firefox or all (default: every browser found)
  --extension-id ID   allow this extension id instead of the bundled one (repeatable)
  --no-register       install only; register later with: <venv>/bin/whiteboard install
  -h, --help          this text

Exit status: 0 done; 1 failed (the message says why); 3 installed, but no browser
was found to register with.
EOF
}

say() { printf '%s\n' "$*"; }
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${WHITEBOARD_VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/whiteboard/venv}"
PYTHON="${WHITEBOARD_PYTHON:-}"
REGISTER=1
INSTALL_ARGS=()
EXTENSION_ID=""

while [ $# -gt 0 ]; do
    case "$1" in
        --venv) [ $# -ge 2 ] || fail "--venv needs a directory"; VENV="$2"; shift 2 ;;
        --python) [ $# -ge 2 ] || fail "--python needs a path"; PYTHON="$2"; shift 2 ;;
        --browser) [ $# -ge 2 ] || fail "--browser needs a name"; INSTALL_ARGS+=(--browser "$2"); shift 2 ;;
        --extension-id)
            [ $# -ge 2 ] || fail "--extension-id needs an id"
            INSTALL_ARGS+=(--extension-id "$2"); EXTENSION_ID="${EXTENSION_ID:-$2}"; shift 2 ;;
        --no-register) REGISTER=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; fail "unknown option: $1" ;;
    esac
done

[ -f "$REPO/pyproject.toml" ] && [ -d "$REPO/extension" ] || fail "run this from a Whiteboard checkout ($REPO has no pyproject.toml/extension)"
case "$VENV" in /*) ;; *) VENV="$PWD/$VENV" ;; esac

new_enough() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }

python_help() {
    if [ "$(uname -s)" = Darwin ]; then
        say "Install Python 3.11 or newer: 'brew install python@3.12' (https://brew.sh) or the python.org installer."
    else
        say "Install Python 3.11 or newer: 'sudo apt-get install python3 python3-venv' (Debian 12 / Ubuntu 23.04+)."
    fi
}

find_python() {
    if [ -n "$PYTHON" ]; then
        new_enough "$PYTHON" || { python_help >&2; fail "$PYTHON is not a working Python 3.11+"; }
        command -v "$PYTHON"
        return
    fi
    for candidate in python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 && new_enough "$candidate"; then
            command -v "$candidate"
            return
        fi
    done
    python_help >&2
    fail "no Python 3.11+ found on PATH"
}

# 1. The environment.
if [ -x "$VENV/bin/python" ] && new_enough "$VENV/bin/python"; then
    say "Using the existing environment $VENV"
else
    PY="$(find_python)"
    say "Creating the environment $VENV (with $PY)"
    mkdir -p "$(dirname "$VENV")"
    VENV_ARGS=()
    # --clear: a half-made or stale environment from an earlier run is rebuilt, not reused.
    [ -f "$VENV/pyvenv.cfg" ] && VENV_ARGS+=(--clear)
    if ! "$PY" -m venv ${VENV_ARGS[@]+"${VENV_ARGS[@]}"} "$VENV"; then
        [ "$(uname -s)" = Darwin ] || say "On Debian/Ubuntu the venv module is separate: sudo apt-get install python3-venv" >&2
        fail "could not create the environment at $VENV"
    fi
fi

# 2. This checkout, installed editable: the host stays in step with extension/ after a git pull.
say "Installing Whiteboard from $REPO"
# pip's output goes to a log, shown only when something fails.
LOG="$VENV/install.log"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check install --quiet)
"${PIP[@]}" --upgrade pip >"$LOG" 2>&1 || { cat "$LOG" >&2; fail "could not update pip (no network?)"; }
"${PIP[@]}" -e "$REPO" >>"$LOG" 2>&1 || { cat "$LOG" >&2; fail "pip could not install Whiteboard (see above)"; }

# The `whiteboard` command on PATH, the usual way for a tool in its own venv (like pipx).
BIN_DIR="${WHITEBOARD_BIN_DIR:-$HOME/.local/bin}"
mkdir -p "$BIN_DIR"
ln -sf "$VENV/bin/whiteboard" "$BIN_DIR/whiteboard"

# 3. Register with the browsers.
REGISTERED=0
if [ "$REGISTER" = 1 ]; then
    if "$VENV/bin/whiteboard" install --no-next-steps ${INSTALL_ARGS[@]+"${INSTALL_ARGS[@]}"}; then
        REGISTERED=1
    else
        say ""
        say "The host is installed but not registered with a browser yet. Install Chrome (or"
        say "Chromium, Brave, Edge, Vivaldi, Firefox), then run: $VENV/bin/whiteboard install"
    fi
fi

# 4. How to load the extension.
# The folder to load, as the installed package finds it (the same command works from a wheel).
EXTENSION_DIR="$("$VENV/bin/whiteboard" extension path)" || fail "the installed package cannot find its extension"
if [ -z "$EXTENSION_ID" ]; then
    EXTENSION_ID="$("$VENV/bin/python" -c 'from whiteboard.config import EXTENSION_ID; print(EXTENSION_ID)')"
fi
cat <<EOF

Whiteboard is installed in $VENV
Load the extension:
  1. Open chrome://extensions (Brave: brave://extensions, Edge: edge://extensions, Vivaldi: vivaldi://extensions)
  2. Turn on "Developer mode" (top right)
  3. Click "Load unpacked" and choose: $EXTENSION_DIR
  4. The extension id shown must be: $EXTENSION_ID
In Firefox: about:debugging#/runtime/this-firefox, "Load Temporary Add-on...", choose
  $EXTENSION_DIR/manifest.json (or install the zip \`whiteboard extension pack\` writes),
  then allow it on the chat sites (docs/install.md, Firefox)
Check the connection any time: whiteboard doctor
See it work in a throwaway browser profile: whiteboard demo
EOF
case ":$PATH:" in
    *":$BIN_DIR:"*) ;;
    *) say "(whiteboard is linked in $BIN_DIR, which is not on your PATH: add it, or run $VENV/bin/whiteboard)" ;;
esac
[ "$REGISTER" = 0 ] && say "Register the host when ready: $VENV/bin/whiteboard install"
[ "$REGISTER" = 1 ] && [ "$REGISTERED" = 0 ] && exit 3
exit 0
