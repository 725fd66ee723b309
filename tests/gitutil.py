"""Throwaway git repositories for tests (real git, no mocks)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def fresh_user_env(home: Path, path: str) -> dict[str, str]:
    """The environment of a new user for hook processes: this one without pytest's and
    reflection's variables, git's test identity, `home` as HOME and config dir (so its own
    ledger key), `path` as PATH."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "REFLECTION_"))}
    return {
        **keep,
        **GIT_ENV,
        "PATH": path,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }


def git(cwd: Path, *args: str, check: bool = True, input: str | None = None) -> str:
    """Run git in `cwd` and return stdout; raises with stderr on failure when `check`."""
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, input=input, capture_output=True, text=True
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc.stdout


def make_repo(path: Path, *, branch: str = "main", files: dict[str, str] | None = None) -> Path:
    """A repo at `path` with one commit on `branch` holding `files` (plus a .gitignore)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    git(path, "config", "user.email", "author@example.com")
    git(path, "config", "user.name", "Test Author")
    git(path, "config", "commit.gpgsign", "false")
    contents = {".gitignore": "__pycache__/\n.pytest_cache/\n.reflection/\n", **(files or {})}
    for rel, text in contents.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def make_bare_remote(path: Path, repo: Path, name: str = "origin") -> Path:
    """A bare repository at `path`, added to `repo` as remote `name`."""
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    git(repo, "remote", "add", name, str(path))
    return path
