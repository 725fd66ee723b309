#!/usr/bin/env bash
# Install the gemini CLI pinned for the e2e scenarios (see install_cli.sh, which holds the pin)
# and print the path of its binary. Usage: tests/e2e/install_gemini.sh [DIR]
exec "$(dirname "$0")/install_cli.sh" gemini "$@"
