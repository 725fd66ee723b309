"""Run a snippet of Python in a fresh interpreter the way a host runs a hook: in the
repository, with the hook payload on stdin and a private state directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_probe(
    probe: str, repo: Path, state: Path, payload: str = "", *, check: bool = False
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", probe],
        input=payload,
        capture_output=True,
        text=True,
        env={**os.environ, "REFLECTION_STATE_DIR": str(state)},
        cwd=repo,
        timeout=60,
        check=check,
    )
