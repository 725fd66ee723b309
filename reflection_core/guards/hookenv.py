"""The repository and configuration a commit-stage guard runs against."""

from __future__ import annotations

import sys
from pathlib import Path

from reflection_core import config, paths


def repo_and_config() -> tuple[Path, config.Config] | int:
    """(root, config) for the current repo, or the exit code to return right away.

    Outside a repository there is nothing to check (0); a bad config file is a
    usage error (2) whose message names the file and the key.
    """
    root = paths.find_repo_root()
    if root is None:
        sys.stderr.write("reflection: not inside a git repository; nothing to check.\n")
        return 0
    try:
        return root, config.load(root)
    except config.ConfigError as exc:
        sys.stderr.write(f"reflection: configuration error: {exc}\n")
        return 2
