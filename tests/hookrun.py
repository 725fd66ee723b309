"""Run `reflection hook EVENT` as the host does: a real process, the payload on stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REFLECTION = str(Path(sys.executable).with_name("reflection"))


def run_hook(
    event: str, payload: dict[str, Any], cwd: Path, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [REFLECTION, "hook", event],
        cwd=cwd,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
