#!/usr/bin/env bash
# Install one agent CLI pinned for the e2e scenarios into DIR (default:
# $HOME/.cache/reflection-ci/<name>), outside the source tree, and print the path of
# its binary. Skips the download when DIR already holds the pinned version.
# Usage: tests/e2e/install_cli.sh claude|gemini|opencode [DIR]
set -euo pipefail
NAME=${1:?usage: install_cli.sh claude|gemini|opencode [DIR]}
# name -> npm package, pinned version, binary, default cache folder
case "$NAME" in
    claude) PACKAGE=@anthropic-ai/claude-code VERSION=2.1.328 BINARY=claude FOLDER=claude-code ;;
    gemini) PACKAGE=@google/gemini-cli VERSION=0.61.0 BINARY=gemini FOLDER=gemini ;;
    opencode) PACKAGE=opencode-ai VERSION=1.18.33 BINARY=opencode FOLDER=opencode ;;
    *) echo "install_cli.sh: unknown CLI '$NAME' (claude, gemini or opencode)" >&2; exit 2 ;;
esac
DIR=${2:-"$HOME/.cache/reflection-ci/$FOLDER"}
BIN="$DIR/node_modules/.bin/$BINARY"
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "$BIN"
    exit 0
fi
mkdir -p "$DIR"
# Some packages declare a newer node than the machine's but ship a native binary;
# npm's engine warning is harmless.
npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "$PACKAGE@$VERSION" >&2
if ! "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
    echo "install_cli.sh: $BIN does not report version $VERSION" >&2
    exit 1
fi
echo "$BIN"
