"""The hooks under the real pre-commit framework (`repo: local`, installed console scripts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import GIT_ENV, git, make_bare_remote, make_repo

BIN = Path(sys.executable).parent
PROJECT = {
    "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = src\n",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}


def hook(hook_id: str, stages: str) -> str:
    return (
        f"  - id: {hook_id}\n    name: {hook_id}\n    entry: {BIN / hook_id}\n"
        f"    language: system\n    pass_filenames: false\n    always_run: true\n"
        f"    stages: [{stages}]\n"
    )


CONFIG = (
    "repos:\n- repo: local\n  hooks:\n"
    + hook("reflection-protected-push", "pre-push")
    + hook("reflection-protected-commit", "pre-commit")
    + hook("reflection-tests-ran", "pre-commit, pre-push")
)


@pytest.fixture
def framework_repo(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A repo with hooks installed by `pre-commit install`, main already on the remote."""
    repo = make_repo(tmp_path / "repo", files={**PROJECT, ".pre-commit-config.yaml": CONFIG})
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PRE_COMMIT"))}
    env = {**clean, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    subprocess.run(
        [
            str(BIN / "pre-commit"),
            "install",
            "--hook-type",
            "pre-commit",
            "--hook-type",
            "pre-push",
        ],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )
    return repo, remote, env


def run(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=repo, env=env, capture_output=True, text=True)


def test_a_commit_on_main_is_refused_with_a_message(
    framework_repo: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, _, env = framework_repo
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(repo, "add", "-A")
    result = run(repo, env, "git", "commit", "-q", "-m", "on main")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "refusing to commit on protected branch 'main'" in output
    assert "git switch -c my-change" in output


def test_the_tests_ran_gate_and_skip(framework_repo: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _, env = framework_repo
    git(repo, "switch", "-q", "-c", "feat")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(repo, "add", "-A")
    refused = run(repo, env, "git", "commit", "-q", "-m", "untested")
    assert refused.returncode != 0
    assert "no passing test run" in refused.stdout + refused.stderr
    skipped = run(
        repo, {**env, "SKIP": "reflection-tests-ran"}, "git", "commit", "-q", "-m", "skipped"
    )
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    git(repo, "add", "-A")
    assert run(repo, env, sys.executable, "-m", "pytest", "-q").returncode == 0
    accepted = run(repo, env, "git", "commit", "-q", "-m", "tested")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


def test_pushes_to_main_are_refused_and_branches_pass(
    framework_repo: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, remote, env = framework_repo
    git(repo, "switch", "-q", "-c", "feat")
    assert run(repo, env, sys.executable, "-m", "pytest", "-q").returncode == 0
    (repo / "NOTES.md").write_text("notes\n")
    git(repo, "add", "-A")
    assert run(repo, env, "git", "commit", "-q", "-m", "notes").returncode == 0
    refused = run(repo, env, "git", "push", "origin", "HEAD:main")
    assert refused.returncode != 0
    assert "refusing to push to protected branch 'main'" in refused.stdout + refused.stderr
    accepted = run(repo, env, "git", "push", "origin", "feat")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(remote, "rev-parse", "feat").strip() == git(repo, "rev-parse", "HEAD").strip()


def test_an_untested_commit_is_not_pushed(
    framework_repo: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, remote, env = framework_repo
    git(repo, "switch", "-q", "-c", "feat")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "untested")
    refused = run(repo, env, "git", "push", "origin", "feat")
    assert refused.returncode != 0
    assert "refusing the push of" in refused.stdout + refused.stderr
    assert git(remote, "rev-parse", "--verify", "-q", "feat", check=False).strip() == ""
    assert run(repo, env, sys.executable, "-m", "pytest", "-q").returncode == 0
    accepted = run(repo, env, "git", "push", "origin", "feat")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


def test_framework_limit_a_delete_runs_no_hook(
    framework_repo: tuple[Path, Path, dict[str, str]],
) -> None:
    """Documented limit: the framework skips deletes; the native hook catches them."""
    repo, remote, env = framework_repo
    git(repo, "push", "-q", "origin", "main:release")
    (repo / ".reflection.yaml").write_text("protected_branches: [main, release]\n")
    result = run(repo, env, "git", "push", "origin", "--delete", "release")
    assert result.returncode == 0
    assert git(remote, "rev-parse", "--verify", "-q", "release", check=False).strip() == ""


@pytest.mark.slow
def test_the_manifest_installs_and_runs_through_try_repo(tmp_path: Path) -> None:
    """`pre-commit try-repo <this checkout>`: pip-installs the package into pre-commit's env."""
    checkout = Path(__file__).resolve().parents[2]
    repo = make_repo(tmp_path / "repo")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PRE_COMMIT"))}
    env = {**clean, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "home")}
    result = run(
        repo,
        env,
        str(BIN / "pre-commit"),
        "try-repo",
        str(checkout),
        "reflection-protected-commit",
        "--all-files",
    )
    output = result.stdout + result.stderr
    if result.returncode != 0 and "refusing" not in output:
        pytest.skip(f"pre-commit could not build its environment here: {output[-300:]}")
    assert result.returncode == 1
    assert "refusing to commit on protected branch 'main'" in output
