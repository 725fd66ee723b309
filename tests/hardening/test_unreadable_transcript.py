"""A Stop payload whose transcript cannot be read is `skipped`, visibly, never `complete`.

Real hook processes on a real repository: a missing file, a FIFO (which must not hang
the hook), /dev/zero, a directory and a transcript_path that is not a string.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reflection_core.consumers.notify import choose_notice
from tests.gitutil import make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))


def project(tmp_path: Path) -> Path:
    files = {"src/app.py": "x = 1\n", ".reflection.yaml": "tests:\n  ledger: false\n"}
    return make_repo(tmp_path / "repo", branch="main", files=files)


def unreadable(kind: str, tmp_path: Path) -> Any:
    """The transcript_path value of each kind of unreadable transcript."""
    if kind == "missing":
        return str(tmp_path / "gone.jsonl")
    if kind == "fifo":
        fifo = tmp_path / "pipe.jsonl"
        os.mkfifo(fifo)
        return str(fifo)
    if kind == "device":
        return "/dev/zero"
    if kind == "directory":
        (tmp_path / "dir.jsonl").mkdir()
        return str(tmp_path / "dir.jsonl")
    return {"number": 7, "list": [1, 2], "empty": ""}[kind]


KINDS = ["missing", "fifo", "device", "directory", "number", "list", "empty"]


def stop(repo: Path, transcript_path: Any) -> subprocess.CompletedProcess[str]:
    payload = {
        "session_id": "s-unread",
        "transcript_path": transcript_path,
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "All done, everything works.",
    }
    return subprocess.run(
        [REFLECTION, "hook", "stop"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,  # a FIFO opened for a blocking read would hang here
    )


@pytest.mark.parametrize("kind", KINDS)
def test_an_unreadable_transcript_is_a_visible_skipped_verdict_never_complete(
    tmp_path: Path, kind: str
) -> None:
    repo = project(tmp_path)
    proc = stop(repo, unreadable(kind, tmp_path))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "decision" not in out  # never blocks
    message = out["systemMessage"]
    assert message.startswith("reflection: stop not judged (skipped)") and "\n" not in message
    data = json.loads((repo / ".reflection" / "verdict_s-unread.json").read_text())
    assert data["status"] == "skipped" and data["complete"] is False
    check = subprocess.run(
        [REFLECTION, "check", "verdict"], cwd=repo, capture_output=True, text=True, timeout=60
    )
    assert check.returncode == 1 and "skipped" in check.stderr


@pytest.mark.parametrize("on", ["complete", "incomplete", "always"])
def test_notify_stays_silent_on_a_skipped_verdict(on: str) -> None:
    skipped = {"status": "skipped", "complete": False, "missing": [], "next_actions": []}
    assert choose_notice(skipped, on=on, attention=True, last_message="All done.") is None
