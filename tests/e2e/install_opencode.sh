#!/usr/bin/env bash
# Install the opencode-ai CLI pinned for the e2e scenarios into DIR (default:
# $HOME/.cache/reflection-ci/opencode), outside the source tree, and print the path
# of its `opencode` binary. Skips the download when DIR already holds the pinned version.
# Usage: tests/e2e/install_opencode.sh [DIR]
set -euo pipefail
VERSION=1.18.33
DIR=${1:-"$HOME/.cache/reflection-ci/opencode"}
BIN="$DIR/node_modules/.bin/opencode"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "$BIN"
    exit 0
fi
mkdir -p "$DIR"
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "opencode-ai@$VERSION" >&2
if ! "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "install_opencode.sh: $BIN does not report version $VERSION" >&2
    exit 1
fi
echo "$BIN"
