"""What `reflection init` installs by default, exercised by real `git push` to a bare remote.

Hooks run with PATH=/usr/bin:/bin (an IDE or a GUI git client has no virtualenv on PATH):
the installed hooks must find reflection through absolute paths.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import GIT_ENV, git, make_bare_remote, make_repo

REFLECTION = Path(sys.executable).parent / "reflection"
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
MINIMAL_PATH = "/usr/bin:/bin"


def minimal_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "REFLECTION_"))}
    return {
        **keep,
        **GIT_ENV,
        "PATH": MINIMAL_PATH,
        "HOME": str(tmp_path / "home"),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        **extra,
    }


def run(
    repo: Path, *args: str, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args), cwd=repo, env=env, capture_output=True, text=True, input=stdin
    )


def init(repo: Path, env: dict[str, str], *flags: str) -> None:
    result = run(repo, str(REFLECTION), "init", *flags, env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def remote_sha(remote: Path, ref: str) -> str:
    return git(remote, "rev-parse", "--verify", "-q", ref, check=False).strip()


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """main on a bare remote, a feature branch with one commit, the default install."""
    (tmp_path / "home").mkdir()
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    env = minimal_env(tmp_path)
    init(repo, env)
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "feature.txt").write_text("work\n")
    git(repo, "add", "feature.txt")
    assert run(repo, "git", "commit", "-q", "-m", "feature work", env=env).returncode == 0
    return repo, remote, env


@pytest.mark.parametrize(
    ("refspec", "branch", "verb"),
    [
        ("HEAD:main", "main", "push to"),
        ("feature:master", "master", "push to"),  # creating a protected branch
        (":main", "main", "delete"),
        ("+feature:main", "main", "push to"),  # forcing it
    ],
)
def test_every_update_of_a_protected_ref_is_refused(
    setup: tuple[Path, Path, dict[str, str]], refspec: str, branch: str, verb: str
) -> None:
    repo, remote, env = setup
    before = remote_sha(remote, f"refs/heads/{branch}")
    result = run(repo, "git", "push", "origin", refspec, env=env)
    assert result.returncode != 0
    assert f"refusing to {verb} protected branch '{branch}'" in result.stderr
    assert f"refs/heads/{branch}" in result.stderr
    if verb == "delete":
        assert "hosting service's settings" in result.stderr
    else:  # the way forward names the branch being pushed
        assert "git push -u origin feature" in result.stderr
    assert remote_sha(remote, f"refs/heads/{branch}") == before


def test_branches_tags_up_to_date_and_upstream_pushes_pass(
    setup: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, remote, env = setup
    first = run(repo, "git", "push", "origin", "feature", env=env)
    assert first.returncode == 0, first.stderr
    assert remote_sha(remote, "refs/heads/feature") == git(repo, "rev-parse", "HEAD").strip()
    git(repo, "tag", "v1")
    assert run(repo, "git", "push", "origin", "v1", env=env).returncode == 0
    up_to_date = run(repo, "git", "push", "origin", "feature", env=env)
    assert up_to_date.returncode == 0, up_to_date.stderr
    upstream = run(repo, "git", "push", "-u", "origin", "feature", env=env)
    assert upstream.returncode == 0, upstream.stderr
    assert git(repo, "rev-parse", "--abbrev-ref", "feature@{upstream}").strip() == "origin/feature"


def test_a_commit_on_main_is_refused_with_a_way_out(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    env = minimal_env(tmp_path)
    init(repo, env)
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    refused = run(repo, "git", "commit", "-q", "-m", "on main", env=env)
    assert refused.returncode != 0
    assert "refusing to commit on protected branch 'main'" in refused.stderr
    assert run(repo, "git", "switch", "-q", "-c", "my-change", env=env).returncode == 0
    moved = run(repo, "git", "commit", "-q", "-m", "on a branch", env=env)
    assert moved.returncode == 0, moved.stderr


FRAMEWORK_CONFIG = """\
repos:
- repo: local
  hooks:
  - id: team-check
    name: team check
    entry: sh -c 'echo ran >> "$0"' {marker}
    language: system
    pass_filenames: false
    always_run: true
    stages: [pre-push]
"""


def test_an_existing_pre_commit_shim_is_chained_and_empty_pushes_work(tmp_path: Path) -> None:
    """The framework's pre-push shim (installed first) runs after ours with git's exact stdin."""
    (tmp_path / "home").mkdir()
    marker = tmp_path / "team-check-ran"
    repo = make_repo(
        tmp_path / "repo",
        files={
            ".reflection.yaml": "tests:\n  ledger: false\n",
            ".pre-commit-config.yaml": FRAMEWORK_CONFIG.format(marker=marker),
        },
    )
    make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    env = minimal_env(tmp_path)
    installed = run(repo, str(PRE_COMMIT), "install", "--hook-type", "pre-push", env=env)
    assert installed.returncode == 0, installed.stderr
    init(repo, env)
    hooks = repo / ".git" / "hooks"
    assert "File generated by pre-commit" in (hooks / "pre-push.before-reflection").read_text()
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "f.txt").write_text("f\n")
    git(repo, "add", "f.txt")
    git(repo, "commit", "-q", "-m", "f")
    pushed = run(repo, "git", "push", "-u", "origin", "feature", env=env)
    assert pushed.returncode == 0, pushed.stderr
    assert marker.read_text().count("ran") == 1  # the chained framework hook ran
    again = run(repo, "git", "push", "-u", "origin", "feature", env=env)  # empty stdin
    assert again.returncode == 0, again.stderr
    assert "ValueError" not in again.stderr
    refused = run(repo, "git", "push", "origin", ":main", env=env)
    assert refused.returncode != 0 and "refusing to delete protected branch 'main'" in (
        refused.stderr
    )


def test_a_missing_interpreter_refuses_with_the_fix(
    setup: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, _, env = setup
    hook = repo / ".git" / "hooks" / "pre-push"
    lines = hook.read_text().splitlines(keepends=True)
    hook.write_text(
        "".join("PYTHON=/nonexistent/python\n" if ln.startswith("PYTHON=") else ln for ln in lines)
    )
    result = run(repo, "git", "push", "origin", "feature", env=env)
    assert result.returncode != 0
    assert "/nonexistent/python is missing" in result.stderr
    assert "reflection init" in result.stderr


def test_an_interpreter_without_reflection_refuses_with_the_fix_and_doctor_sees_it(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    # A virtualenv recreated at the same path: the interpreter is there, reflection is not.
    bare = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    repo, _, env = setup
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    hook = repo / ".git" / "hooks" / "pre-commit"
    lines = hook.read_text().splitlines(keepends=True)
    python = bare / "bin" / "python"
    hook.write_text(
        "".join(f"PYTHON={python}\n" if ln.startswith("PYTHON=") else ln for ln in lines)
    )
    result = run(repo, "git", "commit", "-q", "--allow-empty", "-m", "x", env=env)
    assert result.returncode != 0
    assert f"reflection is not installed in {python}" in result.stderr
    assert "Traceback" not in result.stderr and "git commit --no-verify" in result.stderr
    doctor = run(repo, str(REFLECTION), "doctor", env=env)
    assert f"pre-commit: reflection's hook runs {python}, which has no reflection" in (
        doctor.stdout + doctor.stderr
    )


def test_doctor_reports_a_framework_only_push_guard_as_a_problem(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    repo = make_repo(
        tmp_path / "repo",
        files={
            ".pre-commit-config.yaml": (
                "repos:\n- repo: local\n  hooks:\n  - id: reflection-protected-push\n"
                "    name: x\n    entry: reflection-protected-push\n    language: system\n"
                "    stages: [pre-push]\n"
            )
        },
    )
    env = minimal_env(tmp_path)
    run(repo, str(PRE_COMMIT), "install", "--hook-type", "pre-push", env=env)
    doctor = run(repo, str(REFLECTION), "doctor", env=env)
    assert doctor.returncode == 1
    assert "only the first pushed ref" in doctor.stdout
    assert "looked up on PATH" in doctor.stdout
    init(repo, env)
    fixed = run(repo, str(REFLECTION), "doctor", env=env)
    assert "pre-push: reflection's native hook" in fixed.stdout
