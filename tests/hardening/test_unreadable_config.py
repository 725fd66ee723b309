"""A `.reflection.yaml` that exists but cannot be read is an error, never the defaults.

Real repositories with the config as a directory, a FIFO (which must not hold a hook), a
link to /dev/zero and a dangling link: the git guards refuse with the reason (a real push
to a bare remote, a real commit), the stop hook says so, and `doctor` reports it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflection_core import config
from tests.gitutil import GIT_ENV, git, make_bare_remote, make_repo

REFLECTION = str(Path(sys.executable).with_name("reflection"))
KINDS = ["directory", "fifo", "device", "dangling"]


def break_config(repo: Path, kind: str) -> None:
    """Replace the repo's .reflection.yaml with an unreadable thing of `kind`."""
    path = repo / ".reflection.yaml"
    path.unlink(missing_ok=True)
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.symlink_to(repo / "gone.yaml")


def guarded_repo(tmp_path: Path) -> Path:
    """A repo on a bare remote, protecting `prod`, with the native git hooks installed."""
    yaml = "protected_branches: [main, prod]\ntests:\n  ledger: false\n"
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": yaml, "a.txt": "a\n"})
    make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    git(repo, "rm", "-q", "--cached", ".reflection.yaml")
    git(repo, "switch", "-q", "-c", "feature")
    git(repo, "commit", "-qm", "config kept out of the tree")
    for hook in ("pre-commit", "pre-push"):
        script = repo / ".git" / "hooks" / hook
        script.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook {hook} "$@"\n')
        script.chmod(0o755)
    return repo


def run(repo: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("kind", KINDS)
def test_loading_an_unreadable_config_is_an_error_naming_the_reason(
    tmp_path: Path, kind: str
) -> None:
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    break_config(repo, kind)
    with pytest.raises(config.ConfigError, match="exists but"):
        config.load(repo)


@pytest.mark.parametrize("kind", KINDS)
def test_the_git_guards_fail_closed_on_an_unreadable_config(tmp_path: Path, kind: str) -> None:
    repo = guarded_repo(tmp_path)
    break_config(repo, kind)
    pushed = run(repo, "git", "push", "origin", "HEAD:prod")
    assert pushed.returncode != 0
    assert "configuration error" in pushed.stderr and "exists but" in pushed.stderr
    remote = tmp_path / "remote.git"
    assert git(remote, "rev-parse", "-q", "--verify", "prod", check=False).strip() == ""
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    committed = run(repo, "git", "commit", "-qm", "b")
    assert committed.returncode != 0 and "exists but" in committed.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_doctor_and_the_stop_hook_say_the_config_cannot_be_read(tmp_path: Path, kind: str) -> None:
    repo = make_repo(tmp_path / "repo", files={".reflection.yaml": "tests:\n  ledger: false\n"})
    break_config(repo, kind)
    doctor = run(repo, REFLECTION, "doctor")
    assert "exists but" in doctor.stdout + doctor.stderr
    assert "defaults" not in doctor.stdout
    payload = {"session_id": "s", "cwd": str(repo), "last_assistant_message": "Done."}
    stop = subprocess.run(
        [REFLECTION, "hook", "stop"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stop.returncode == 0
    message = json.loads(stop.stdout)["systemMessage"]
    assert "configuration error" in message and "exists but" in message
