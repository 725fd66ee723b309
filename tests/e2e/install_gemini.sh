#!/usr/bin/env bash
# Install the @google/gemini-cli CLI pinned for the e2e scenarios into DIR (default:
# $HOME/.cache/reflection-ci/gemini), outside the source tree, and print the path
# of its `gemini` binary. Skips the download when DIR already holds the pinned version.
# Usage: tests/e2e/install_gemini.sh [DIR]
set -euo pipefail
VERSION=0.61.0
DIR=${1:-"$HOME/.cache/reflection-ci/gemini"}
BIN="$DIR/node_modules/.bin/gemini"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "$BIN"
    exit 0
fi
mkdir -p "$DIR"
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "@google/gemini-cli@$VERSION" >&2
if ! "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "install_gemini.sh: $BIN does not report version $VERSION" >&2
    exit 1
fi
echo "$BIN"
