#!/usr/bin/env bash
# Install promptfoo (pinned) and the Node 22 it needs into DIR (default:
# $HOME/.cache/reflection-ci/promptfoo), outside the source tree, and print the
# bin dir to put first on PATH. promptfoo 0.123.1 needs Node >= 22.22; the `node`
# package from the npm registry provides one without touching the system Node.
# Skips the download when DIR already holds both pinned versions (~1.5 GB, ~2 min
# to install). Usage: evals/install_promptfoo.sh [DIR]
set -euo pipefail
NODE_VERSION=22.23.3
PROMPTFOO_VERSION=0.123.1
DIR=${1:-"$HOME/.cache/reflection-ci/promptfoo"}
BIN="$DIR/node_modules/.bin"
installed() {
    [ -x "$BIN/node" ] && [ -x "$BIN/promptfoo" ] \
        && [ "$("$BIN/node" --version 2>/dev/null)" = "v$NODE_VERSION" ] \
        && [ "$(PATH="$BIN:$PATH" PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 \
            "$BIN/promptfoo" --version 2>/dev/null | tail -n 1)" = "$PROMPTFOO_VERSION" ]
}
if installed; then
    echo "$BIN"
    exit 0
fi
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"name": "reflection-promptfoo", "private": true}' >"$DIR/package.json"
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error --save-exact \
    "node@$NODE_VERSION" >&2
PATH="$BIN:$PATH" npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error \
    --save-exact "promptfoo@$PROMPTFOO_VERSION" >&2
if ! installed; then
    echo "install_promptfoo.sh: $BIN lacks node v$NODE_VERSION or promptfoo $PROMPTFOO_VERSION" >&2
    exit 1
fi
echo "$BIN"
