"""Run `reflection hook EVENT` as the host does: a real process, the payload on stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REFLECTION = str(Path(sys.executable).with_name("reflection"))


def run_hook(
    event: str, payload: dict[str, Any], cwd: Path, timeout: float = 60, host: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`host` adds `--host NAME`; the tree under test runs (tests/conftest.py sets PYTHONPATH)."""
    return subprocess.run(
        [REFLECTION, "hook", event, *(["--host", host] if host else [])],
        cwd=cwd,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
