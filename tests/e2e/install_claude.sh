#!/usr/bin/env bash
# Install the claude CLI pinned for the e2e scenarios (see install_cli.sh, which holds the pin)
# and print the path of its binary. Usage: tests/e2e/install_claude.sh [DIR]
exec "$(dirname "$0")/install_cli.sh" claude "$@"
