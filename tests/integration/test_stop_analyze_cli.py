"""`reflection analyze`: the stop hook's conclusion offline, with no side effects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reflection_core.evals.transcript_builder import build_records, write_jsonl
from tests.gitutil import make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [REFLECTION, "analyze", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def make_case(tmp_path: Path) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "repo", files={"tests/test_a.py": "def test_a():\n    pass\n"})
    spec = {
        "task": "Fix the parser bug",
        "cwd": str(repo),
        "steps": [{"edit": "src/parser.py"}],
        "final": "Fixed. All tests pass.",
    }
    return repo, write_jsonl(build_records(spec), tmp_path / "t.jsonl")


def test_json_output_has_the_decision(tmp_path: Path, isolated_state: Path) -> None:
    repo, path = make_case(tmp_path)
    proc = run(str(path), "--json", "--no-ledger", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["status"] == "incomplete" and data["severity"] == "HIGH"
    assert data["should_block"] is True and data["attempt"] == 1
    assert not (repo / ".reflection").exists()
    assert not (isolated_state / "state.db").exists()


def test_human_output_names_gates_and_the_feedback(tmp_path: Path) -> None:
    repo, path = make_case(tmp_path)
    proc = run(str(path), "--no-ledger", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "status:   incomplete (working), severity HIGH" in proc.stdout
    assert "!! tests" in proc.stdout and "The stop hook would block with:" in proc.stdout


def test_missing_transcript_is_a_usage_error(tmp_path: Path) -> None:
    proc = run(str(tmp_path / "nope.jsonl"), cwd=tmp_path)
    assert proc.returncode == 2 and "no such transcript" in proc.stderr


def test_input_that_is_not_a_transcript_is_refused(tmp_path: Path) -> None:
    for name, text in (
        ("empty.jsonl", ""),
        ("garbage.jsonl", "{garbage\n"),
        ("README.md", "# A project\n\nSome words.\n"),
        ("object.json", '{"name": "not a session"}\n'),
    ):
        path = tmp_path / name
        path.write_text(text)
        result = run(str(path), cwd=tmp_path)
        assert result.returncode == 2, (name, result.stdout)
        assert "is not a session transcript" in result.stderr
        assert "agent score" not in result.stdout
