"""What the Stop hook's process pays before its work: no module it does not need."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reflection_core.evals.transcript_builder import build_records, write_jsonl

# Modules a Stop hook on a short, finished task must not import: each costs milliseconds
# on every stop (dataclasses alone pulls in inspect, ast, dis and tokenize).
_HEAVY = (
    "click",
    "yaml",
    "runpy",
    "argparse",
    "urllib.request",
    "http.client",
    "email",
    "dataclasses",
    "inspect",
    "ast",
)


def test_the_stop_hook_process_imports_no_heavy_module(git_repo: Path, tmp_path: Path) -> None:
    spec = {
        "task": "Rename load_rows in src/app.py",
        "cwd": str(git_repo),
        "steps": [{"edit": "src/app.py"}, {"bash": "python -m pytest -q", "output": "3 passed"}],
        "final": "Renamed the function; the tests pass.",
    }
    path = write_jsonl(build_records(spec), tmp_path / "t.jsonl")
    probe = (
        "import sys, json; from reflection_core.entry import main\n"
        "sys.argv = ['reflection', 'hook', 'stop']\n"
        "code = main()\n"
        f"sys.stderr.write(json.dumps([m for m in {_HEAVY!r} if m in sys.modules]))\n"
    )
    payload = {
        "session_id": "s-1",
        "transcript_path": str(path),
        "cwd": str(git_repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    env = {**os.environ, "REFLECTION_STATE_DIR": str(tmp_path / "state")}
    run = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=git_repo,
        timeout=60,
        check=True,
    )
    assert json.loads(run.stderr.strip().splitlines()[-1]) == []
