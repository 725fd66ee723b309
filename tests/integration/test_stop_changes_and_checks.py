"""The real Stop hook on a real git repository: a change no test exercises, a formatter
run after the passing run, tests a commit hook ran, and a ledger with no entry for the
tree are judged as such."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from reflection_core.evals.transcript_builder import build_records, write_jsonl
from reflection_core.guards import ledger
from tests.gitutil import make_repo
from tests.hookrun import run_hook

SESSION = "cc-0000-4000-8000-000000000002"
FILES = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    ".github/workflows/ci.yml": "jobs:\n  t:\n    node-version: 18\n",
}


def stop(tmp_path: Path, steps: list[dict[str, Any]], final: str) -> dict[str, Any]:
    repo = make_repo(tmp_path / "repo", files=FILES)
    spec = {"task": "Do the task.", "cwd": str(repo), "steps": steps, "final": final}
    transcript = write_jsonl(build_records(spec, session_id=SESSION), tmp_path / "t.jsonl")
    body = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": final,
    }
    proc = run_hook("stop", body, repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def test_a_ci_only_change_with_done_stands_silently(tmp_path: Path) -> None:
    steps = [{"edit": ".github/workflows/ci.yml", "old": "18", "new": "20"}]
    out = stop(tmp_path, steps, "CI now uses Node 20. Done.")
    assert out.get("decision") != "block", out
    assert not out.get("systemMessage"), out


def test_a_formatter_after_the_passing_run_leaves_it_standing(tmp_path: Path) -> None:
    steps = [
        {"edit": "calc.py", "old": "return a + b", "new": "return a+b"},
        {"bash": "python -m pytest -q", "output": "1 passed in 0.01s"},
        {
            "bash": "ruff format . && ruff check .",
            "output": "1 file reformatted\nAll checks passed!",
        },
    ]
    out = stop(tmp_path, steps, "Tidied add; 1 passed, then ruff format + check. Done.")
    assert out.get("decision") != "block", out


def test_tests_a_commit_hook_ran_count_as_the_check(tmp_path: Path) -> None:
    hook = "pre-commit: pytest\n1 passed in 0.01s\n[feature/x 1a2b3c4] add sub"
    steps = [
        {
            "edit": "calc.py",
            "old": "a + b\n",
            "new": "a + b\n\n\ndef sub(a, b):\n    return a - b\n",
        },
        {"bash": "git commit -qam 'add sub'", "output": hook},
    ]
    out = stop(tmp_path, steps, "Added sub() and committed; the pre-commit hook's tests passed.")
    assert out.get("decision") != "block", out
    assert "no passing test run" not in out.get("systemMessage", ""), out


def test_a_ledger_with_no_entry_for_the_tree_leaves_the_rerun_push(tmp_path: Path) -> None:
    """The suite really passed (the plugin recorded it), then the code changed: the ledger
    has no entry for the new tree, and the transcript's "ran before, not after" decides."""
    repo = make_repo(tmp_path / "repo", files=FILES)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=repo, capture_output=True)
    assert run.returncode == 0 and ledger.read(repo), run.stdout
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    steps = [
        {"bash": "python -m pytest -q", "output": "1 passed in 0.01s"},
        {"edit": "calc.py", "old": "return a + b", "new": "return b + a"},
    ]
    spec = {"task": "Do the task.", "cwd": str(repo), "steps": steps, "final": "Done."}
    transcript = write_jsonl(build_records(spec, session_id=SESSION), tmp_path / "t.jsonl")
    body = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(repo)}
    proc = run_hook("stop", {**body, "hook_event_name": "Stop", "stop_hook_active": False}, repo)
    out = json.loads(proc.stdout)
    assert out.get("decision") == "block", out
    assert "tests have not run after the latest change" in out["reason"], out
