#!/usr/bin/env bash
# Install the Claude Code CLI pinned for the e2e scenarios into DIR (default:
# $HOME/.cache/reflection-ci/claude-code), outside the source tree, and print the
# path of its `claude` binary. Skips the download when DIR already holds the pinned
# version. Usage: tests/e2e/install_claude.sh [DIR]
set -euo pipefail
VERSION=2.1.328
DIR=${1:-"$HOME/.cache/reflection-ci/claude-code"}
BIN="$DIR/node_modules/.bin/claude"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "$BIN"
    exit 0
fi
mkdir -p "$DIR"
# The package declares node >=22 but ships a native binary; npm's engine warning is harmless.
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$VERSION" >&2
if ! "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "install_claude.sh: $BIN does not report version $VERSION" >&2
    exit 1
fi
echo "$BIN"
