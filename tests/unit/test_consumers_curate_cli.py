"""`reflection curate` on a crafted session: records, transcript, prompt history, real git log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflection_core.atomic import write_json_atomic
from reflection_core.cli.curate_cmd import command as curate_command
from reflection_core.consumers.curate import SECTION
from tests.gitutil import git
from tests.hookrun import run_hook
from tests.verdictutil import iso_utc, write_verdict

SESSION = "sess-curate"
TESTS_OPEN = {"tests": {"required": True, "satisfied": False, "evidence": "no test run"}}


def transcript_lines(prompts: list[str]) -> str:
    lines = []
    for number, prompt in enumerate(prompts):
        lines.append(
            {
                "type": "user",
                "uuid": f"u{number}",
                "sessionId": SESSION,
                "timestamp": f"2026-01-01T00:0{number}:00Z",
                "message": {"role": "user", "content": prompt},
            }
        )
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{number}",
                "sessionId": SESSION,
                "timestamp": f"2026-01-01T00:0{number}:30Z",
                "message": {
                    "id": f"m{number}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Done."}],
                },
            }
        )
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture
def session_repo(git_repo: Path, tmp_path: Path) -> Path:
    """A repo whose last session was corrected, missed tests twice and reverted a commit."""
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(
        transcript_lines(["Add a --json flag to export", "no, use pnpm instead of npm"]), "utf-8"
    )
    write_verdict(git_repo, SESSION, complete=False)
    for stamp, seconds_ago in (("20260101T000100Z", 120), ("20260101T000200Z", 60)):
        write_json_atomic(
            git_repo / ".reflection" / "records" / f"{SESSION}_{stamp}.json",
            {
                "verdict": {"created_at": iso_utc(seconds_ago), "session_id": SESSION},
                "decision": {"gates": TESTS_OPEN},
                "session": {"task_started_at": iso_utc(600)},
                "hook": {"transcript_path": str(transcript)},
            },
        )
    (git_repo / "cache.py").write_text("CACHE = {}\n", "utf-8")
    git(git_repo, "add", "cache.py")
    git(git_repo, "commit", "-q", "-m", "Drop the cache layer")
    git(git_repo, "revert", "--no-edit", "HEAD")
    (git_repo / "CLAUDE.md").write_text("# Project\n", "utf-8")
    return git_repo


def run(repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str, answers: str = "") -> str:
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(curate_command, list(args), input=answers)
    assert result.exit_code == 0, result.output
    return result.output


def test_dry_run_shows_every_diff_and_writes_nothing(
    session_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = run(session_repo, monkeypatch, "--dry-run")
    assert "3 proposal(s) for CLAUDE.md (session: sess-curate)" in output
    assert "+- Use pnpm instead of npm." in output
    assert "Gate the agent kept missing: tests" in output
    assert 'Reverted commit — git log: Revert "Drop the cache layer"' in output
    assert (session_repo / "CLAUDE.md").read_text("utf-8") == "# Project\n"


def test_only_confirmed_proposals_are_written(
    session_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(session_repo, monkeypatch, answers="y\nn\ny\n")
    text = (session_repo / "CLAUDE.md").read_text("utf-8")
    assert SECTION in text
    assert "- Use pnpm instead of npm." in text
    assert "Run the full test suite" not in text
    assert '"Drop the cache layer" was reverted' in text


def test_declining_everything_leaves_the_file_alone(
    session_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = run(session_repo, monkeypatch, answers="n\nn\nn\n")
    assert "Nothing applied" in output
    assert (session_repo / "CLAUDE.md").read_text("utf-8") == "# Project\n"


def test_yes_applies_all_and_a_second_run_proposes_nothing(
    session_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "Applied 3 of 3" in run(session_repo, monkeypatch, "--yes")
    text = (session_repo / "CLAUDE.md").read_text("utf-8")
    assert text.count("\n- ") == 3
    assert "No proposals for CLAUDE.md" in run(session_repo, monkeypatch, "--yes")


def test_repeated_prompt_smells_from_history_become_a_proposal(
    session_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflection_core.prompt import history

    conn = history.connect()
    for _ in range(2):
        history.record(conn, SESSION, 2.1, "ask", "backend", ["bug_without_repro"])
    conn.close()
    output = run(session_repo, monkeypatch, "--dry-run")
    assert "Repeated prompt smell: bug_without_repro — 2 prompts" in output


def test_no_session_means_no_proposals(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    output = run(git_repo, monkeypatch, "--dry-run")
    assert "No proposals for CLAUDE.md (session: no session found)" in output


def test_curate_learns_from_records_the_real_stop_hook_wrote(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two real stops on an edit without a test run, after a user correction."""

    (git_repo / "util.py").write_text("def f():\n    return 1\n", "utf-8")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_util.py").write_text("from util import f\n", "utf-8")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "Add util")
    util = str(git_repo / "util.py")
    records = [
        {"type": "user", "message": {"role": "user", "content": "Make f return 2 in util.py"}},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": "Editing."}]}},
        {"type": "user", "message": {"role": "user",
                                     "content": "no, use pathlib instead of os.path"}},
        {"type": "assistant", "message": {"id": "m2", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {
                "file_path": util, "old_string": "return 1", "new_string": "return 2"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "The file was updated."}]}},
        {"type": "assistant", "message": {"id": "m3", "role": "assistant", "content": [
            {"type": "text", "text": "Done: f returns 2."}]}},
    ]  # fmt: skip
    for number, record in enumerate(records):
        record.update(
            sessionId="real-1",
            uuid=f"r{number}",
            cwd=str(git_repo),
            timestamp=f"2026-01-01T00:00:0{number}Z",
        )
    transcript = tmp_path / "real.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    (git_repo / "util.py").write_text("def f():\n    return 2\n", "utf-8")  # what the Edit did
    for active in (False, True):
        payload = {
            "session_id": "real-1",
            "transcript_path": str(transcript),
            "cwd": str(git_repo),
            "hook_event_name": "Stop",
            "stop_hook_active": active,
            "last_assistant_message": "Done: f returns 2.",
        }
        stop = run_hook("stop", payload, git_repo)
        assert stop.returncode == 0, stop.stderr
    output = run(git_repo, monkeypatch, "--yes")
    text = (git_repo / "CLAUDE.md").read_text("utf-8")
    assert "- Use pathlib instead of os.path." in text, output
    assert "- Run the full test suite" in text, output
