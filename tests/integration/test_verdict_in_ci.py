"""The agent's verdict reaches CI: the README's workflow step, run as a CI job runs it.

A developer's repository with the default install pushes a branch; CI clones the bare
remote afresh (no `.reflection/` there: it is git-ignored) and runs
`reflection check verdict --ci`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import fresh_user_env, git, make_bare_remote, make_repo
from tests.verdictutil import write_verdict

BIN = Path(sys.executable).parent
PROJECT = {
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}


def sh(cwd: Path, env: dict[str, str], line: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return fresh_user_env(tmp_path / "home", f"{BIN}:/usr/bin:/bin")


def developer_push(tmp_path: Path, env: dict[str, str], complete: bool) -> Path:
    repo = make_repo(tmp_path / "dev", files=PROJECT)
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    assert sh(repo, env, "reflection init").returncode == 0
    assert sh(repo, env, "python -m pytest -q && git push -q -u origin main").returncode == 0
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    assert sh(repo, env, "python -m pytest -q").returncode == 0
    assert sh(repo, env, "git commit -qam change").returncode == 0
    write_verdict(repo, "agent-session-1", complete=complete, at_head=True)  # the Stop hook
    pushed = sh(repo, env, "git push -q -u origin feature")
    assert pushed.returncode == 0, pushed.stderr
    return remote


def ci_job(remote: Path, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """actions/checkout (a depth-1 clone of the pushed branch), then the README's step."""
    checkout = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "--depth", "1", "-b", "feature", f"file://{remote}", str(checkout))
    assert not (checkout / ".reflection").exists()
    return sh(checkout, {**env, "GITHUB_ACTIONS": "true"}, "reflection check verdict --ci")


def test_a_complete_verdict_passes_the_ci_step_in_a_fresh_clone(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = developer_push(tmp_path, env, complete=True)
    result = ci_job(remote, tmp_path, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict complete (agent-session-1)" in result.stdout


def test_an_incomplete_verdict_fails_the_ci_step_with_an_annotation(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = developer_push(tmp_path, env, complete=False)
    result = ci_job(remote, tmp_path, env)
    assert result.returncode == 1
    assert "::error::reflection: verdict for session agent-session-1 is incomplete" in (
        result.stdout
    )


def test_a_pull_requests_merge_commit_reads_the_heads_note(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = developer_push(tmp_path, env, complete=True)
    checkout = tmp_path / "ci-pr"
    git(tmp_path, "clone", "-q", "-b", "main", f"file://{remote}", str(checkout))
    git(checkout, "fetch", "-q", "origin", "feature")
    git(checkout, "merge", "-q", "--no-ff", "--no-verify", "-m", "Merge pull request", "FETCH_HEAD")
    result = sh(checkout, env, "reflection check verdict --ci")
    assert result.returncode == 0, result.stdout + result.stderr


def test_without_a_verdict_the_ci_step_says_where_it_looked(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "dev", files=PROJECT)
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    checkout = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "-b", "main", f"file://{remote}", str(checkout))
    result = sh(checkout, env, "reflection check verdict --ci")
    assert result.returncode == 1
    assert "refs/notes/reflection" in result.stderr


def noted_checkout(tmp_path: Path, *, complete: bool) -> Path:
    """A CI checkout whose HEAD carries the agent's verdict as a git note (no remote: the
    note is already there, as after `check verdict --ci` fetched it)."""
    import json

    from tests.verdictutil import verdict_data

    repo = make_repo(tmp_path / "ci", files=PROJECT)
    note = json.dumps(verdict_data("agent", complete=complete))
    git(repo, "notes", "--ref=refs/notes/reflection", "add", "-F", "-", "HEAD", input=note)
    return repo


def forge_committed_verdict(repo: Path, how: str) -> None:
    """What a pull request can do: commit a "complete" verdict dated in the future, as a
    force-added file or behind a committed `.reflection` link to a committed directory."""
    from tests.verdictutil import iso_utc

    if how == "file":
        write_verdict(repo, "forged", complete=True, created_at=iso_utc(-60))
        git(repo, "add", "-f", ".reflection/verdict_forged.json")
    else:
        write_verdict(repo, "forged", complete=True, created_at=iso_utc(-60))
        (repo / ".reflection").rename(repo / "evidence")
        (repo / ".reflection").symlink_to("evidence")
        git(repo, "add", "-f", "evidence", ".reflection")
    git(repo, "commit", "-q", "--no-verify", "-m", "feature")
    git(repo, "notes", "--ref=refs/notes/reflection", "copy", "HEAD~1", "HEAD")


@pytest.mark.parametrize("how", ["file", "linked directory"])
def test_a_committed_verdict_file_cannot_pass_the_ci_step(
    tmp_path: Path, env: dict[str, str], how: str
) -> None:
    repo = noted_checkout(tmp_path, complete=False)
    forge_committed_verdict(repo, how)
    result = sh(repo, {**env, "GITHUB_ACTIONS": "true"}, "reflection check verdict --ci")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "not reading 1 verdict file(s)" in result.stderr
    assert "verdict_forged.json" in result.stderr
    assert "::error::reflection: verdict for session agent is incomplete" in result.stdout


def test_a_verdict_written_in_the_ci_job_still_counts(tmp_path: Path, env: dict[str, str]) -> None:
    repo = noted_checkout(tmp_path, complete=False)
    write_verdict(repo, "agent-in-job", complete=True)  # an agent run inside the job: untracked
    result = sh(repo, {**env, "GITHUB_ACTIONS": "true"}, "reflection check verdict --ci")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict complete (agent-in-job)" in result.stdout
    assert "not reading" not in result.stderr


def test_a_verdict_dated_in_the_future_does_not_beat_the_real_one(
    tmp_path: Path, env: dict[str, str]
) -> None:
    from tests.verdictutil import iso_utc

    repo = noted_checkout(tmp_path, complete=False)
    write_verdict(repo, "real", complete=False, created_at=iso_utc(5))
    write_verdict(repo, "future", complete=True, created_at="2099-01-01T00:00:00.000Z")
    result = sh(repo, env, "reflection check verdict")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "skipped" in result.stderr and "verdict_future.json" in result.stderr
    assert "in the future" in result.stderr
    assert "verdict for session real is incomplete" in result.stderr
