"""The host's Stop payload says what is still in flight: the real hook process reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reflection_core.evals.transcript_builder import build_records, write_jsonl
from tests.gitutil import make_repo
from tests.hookrun import run_hook

SESSION = "bg-0000-4000-8000-000000000001"


def untested_edit_stop(tmp_path: Path, **payload: Any) -> tuple[Path, dict[str, Any]]:
    repo = make_repo(
        tmp_path / "repo",
        files={
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_x.py": "",
            # An untested change pushes under `stop.require: tests`; the default notes it.
            ".reflection.yaml": "stop:\n  require: tests\n",
        },
    )
    final = "Added sub(); the review subagent checks it now."
    spec = {
        "task": "Add sub(a, b) to calc.py.",
        "cwd": str(repo),
        "steps": [
            {
                "edit": "calc.py",
                "old": "a + b\n",
                "new": "a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            }
        ],
        "final": final,
    }
    transcript = write_jsonl(build_records(spec, session_id=SESSION), tmp_path / "t.jsonl")
    body = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": final,
        **payload,
    }
    return repo, body


def answer(repo: Path, body: dict[str, Any]) -> dict[str, Any]:
    proc = run_hook("stop", body, repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def test_a_subagent_in_flight_holds_the_stop(tmp_path: Path) -> None:
    in_flight = [{"id": "a1", "type": "subagent", "status": "running", "description": "review"}]
    repo, body = untested_edit_stop(tmp_path, background_tasks=in_flight)
    out = answer(repo, body)
    assert out.get("decision") != "block", out
    assert "background" in out.get("systemMessage", ""), out


def test_without_work_in_flight_the_same_stop_is_pushed(tmp_path: Path) -> None:
    repo, body = untested_edit_stop(tmp_path, background_tasks=[])
    out = answer(repo, body)
    assert out.get("decision") == "block", out


def test_a_dev_server_left_running_does_not_hold_the_stop(tmp_path: Path) -> None:
    server = [{"id": "b1", "type": "shell", "status": "running", "description": "npm run dev"}]
    repo, body = untested_edit_stop(tmp_path, background_tasks=server)
    assert answer(repo, body).get("decision") == "block"
