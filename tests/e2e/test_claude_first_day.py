"""A user's first day: `reflection init` (the default install: native git hooks), then an
agent session whose commits and pushes meet the git guards for real."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import bash, edit, say
from tests.gitutil import git, make_bare_remote

pytestmark = pytest.mark.e2e

COMMIT = "git commit -qam 'Add sub'"


def _run(project: Project, *argv: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        list(argv), cwd=project.root, env=project.env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, f"{' '.join(argv)} failed: {proc.stdout}{proc.stderr}"
    return proc


def test_first_day_guards_refuse_then_accept_inside_an_agent_session(
    project: Project, tmp_path: Path
) -> None:
    remote = make_bare_remote(tmp_path / "origin.git", project.root)
    git(project.root, "push", "-q", "origin", "main")
    git(project.root, "switch", "-q", "-c", "feat/sub")
    _run(project, "reflection", "init")
    for hook_type in ("pre-commit", "pre-push"):
        hook = (project.root / ".git" / "hooks" / hook_type).read_text(encoding="utf-8")
        assert "reflection-native-hook" in hook, hook
    doctor = _run(project, "reflection", "doctor").stdout
    assert "all reflection hooks registered" in doctor, doctor
    assert "pre-push: reflection's native hook" in doctor, doctor
    # The user's own first commit meets the tests-ran guard too: run the tests, then commit.
    _run(project, "python", "-m", "pytest", "-q")
    _run(project, "git", "add", "-A")
    _run(project, "git", "commit", "-q", "--allow-empty", "-m", "set up reflection")

    run = project.run(
        "Add sub(a, b) to calc.py returning a - b; run `python -m pytest -q`, commit on this "
        "branch and push it.",
        [
            edit(
                project.path("calc.py"),
                "    return a + b\n",
                "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            ),
            bash(COMMIT),
            bash(TEST_COMMAND),
            bash(COMMIT),
            bash("git push origin HEAD:main"),
            bash("git push -q origin feat/sub"),
            say(
                "Committed sub() on feat/sub after the tests passed and pushed the branch; "
                "the push to main was refused as a protected branch."
            ),
        ],
    )
    results = run.tool_results()
    assert len(results) == 6, results
    untested_commit, tests, tested_commit, push_main, push_branch = results[1:]
    assert untested_commit.startswith("Exit code 1"), untested_commit
    assert "refusing the commit" in untested_commit and "test" in untested_commit, untested_commit
    assert "1 passed" in tests, tests
    assert not tested_commit.startswith("Exit code"), tested_commit
    assert push_main.startswith("Exit code"), push_main
    assert "refusing" in push_main and "main" in push_main, push_main
    assert not push_branch.startswith("Exit code"), push_branch

    assert git(remote, "log", "--format=%s", "-1", "feat/sub").strip() == "Add sub"
    assert git(remote, "log", "--format=%s", "-1", "main").strip() == "install reflection hooks"
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert verdict["gates"]["push"]["satisfied"] is True, "a refused push is the guard working"
