"""The pre-push hook carries verdict notes for a team: real clones of one bare remote.

Each teammate's clone has the default install (`reflection init`) and pushes with the
native pre-push hook; the remote's `refs/notes/reflection` must end up holding every
teammate's note, and a notes ref pushed by hand is not judged as project commits.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import fresh_user_env, git, make_bare_remote, make_repo
from tests.verdictutil import write_verdict

BIN = Path(sys.executable).parent
NOTES = "refs/notes/reflection"
NO_LEDGER = {".reflection.yaml": "tests:\n  ledger: false\n"}


def sh(cwd: Path, env: dict[str, str], line: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return fresh_user_env(tmp_path / "home", f"{BIN}:/usr/bin:/bin")


def teammate(remote: Path, path: Path, env: dict[str, str]) -> Path:
    """A teammate's clone of `remote` with reflection's hooks installed."""
    git(path.parent, "clone", "-q", "-b", "main", str(remote), str(path))
    git(path, "config", "user.email", f"{path.name}@example.com")
    git(path, "config", "user.name", path.name)
    assert sh(path, env, "reflection init").returncode == 0
    return path


def push_work(clone: Path, env: dict[str, str], branch: str, session: str) -> str:
    """Commit on a new `branch`, stop (the verdict), push with the hooks; the tip."""
    git(clone, "switch", "-q", "-c", branch)
    (clone / f"{branch}.txt").write_text(branch + "\n")
    git(clone, "add", f"{branch}.txt")
    git(clone, "commit", "-q", "--no-verify", "-m", branch)
    write_verdict(clone, session, at_head=True)
    pushed = sh(clone, env, f"git push -q -u origin {branch}")
    assert pushed.returncode == 0, pushed.stderr
    assert "could not push the verdict note" not in pushed.stderr, pushed.stderr
    return git(clone, "rev-parse", "HEAD").strip()


def remote_note(remote: Path, commit: str) -> str:
    return git(remote, "notes", f"--ref={NOTES}", "show", commit, check=False)


def test_a_second_teammates_note_lands_beside_the_first(
    tmp_path: Path, env: dict[str, str]
) -> None:
    origin = make_repo(tmp_path / "origin", files=NO_LEDGER)
    remote = make_bare_remote(tmp_path / "remote.git", origin)
    git(origin, "push", "-q", "origin", "main")
    alice = teammate(remote, tmp_path / "alice", env)
    bob = teammate(remote, tmp_path / "bob", env)  # cloned before Alice's notes exist
    alice_tip = push_work(alice, env, "feature-a", "sess-alice")
    bob_tip = push_work(bob, env, "feature-b", "sess-bob")
    assert '"sess-alice"' in remote_note(remote, alice_tip)
    assert '"sess-bob"' in remote_note(remote, bob_tip)


def test_a_notes_ref_pushed_by_hand_needs_no_test_evidence(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = make_repo(tmp_path / "dev")
    remote = make_bare_remote(tmp_path / "remote.git", repo)
    assert sh(repo, env, "reflection init").returncode == 0
    git(repo, "push", "-q", "--no-verify", "origin", "main")
    git(repo, "notes", f"--ref={NOTES}", "add", "-m", "{}", "HEAD")
    pushed = sh(repo, env, f"git push origin {NOTES}")
    assert pushed.returncode == 0, pushed.stderr
    assert "refusing" not in pushed.stderr
    assert remote_note(remote, git(repo, "rev-parse", "HEAD").strip()).strip() == "{}"


def test_a_tag_still_needs_test_evidence(tmp_path: Path, env: dict[str, str]) -> None:
    repo = make_repo(tmp_path / "dev", files={"tests/test_x.py": "def test_x():\n    pass\n"})
    make_bare_remote(tmp_path / "remote.git", repo)
    assert sh(repo, env, "reflection init").returncode == 0
    git(repo, "tag", "-a", "-m", "v1", "v1")
    pushed = sh(repo, env, "git push origin v1")
    assert pushed.returncode == 1
    assert "refusing the push" in pushed.stderr


def team_remote(tmp_path: Path) -> Path:
    """A bare remote whose main holds a config without the tests gate (fast pushes)."""
    origin = make_repo(tmp_path / "origin", files=NO_LEDGER)
    remote = make_bare_remote(tmp_path / "remote.git", origin)
    git(origin, "push", "-q", "origin", "main")
    return remote


def ci_check(
    remote: Path, checkout: Path, env: dict[str, str], branch: str, *args: str
) -> subprocess.CompletedProcess[str]:
    """actions/checkout of `branch` into `checkout` (depth 1, no notes), then
    `reflection check verdict --ci ARGS` there."""
    if not checkout.exists():
        clone = ["clone", "-q", "--depth", "1", "-b", branch, f"file://{remote}", str(checkout)]
        git(checkout.parent, *clone)
    line = " ".join(["reflection check verdict --ci", *args])
    return sh(checkout, {**env, "GITHUB_ACTIONS": "true"}, line)


def test_the_ci_check_of_a_named_session_reads_the_note(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = team_remote(tmp_path)
    alice = teammate(remote, tmp_path / "alice", env)
    push_work(alice, env, "feature-a", "sess-alice")
    named = ci_check(remote, tmp_path / "ci", env, "feature-a", "--session", "sess-alice")
    assert named.returncode == 0, named.stdout + named.stderr
    assert "verdict complete (sess-alice)" in named.stdout
    other = ci_check(remote, tmp_path / "ci", env, "feature-a", "--session", "sess-other")
    assert other.returncode == 1
    assert "session 'sess-other'" in other.stderr


def stop_on(clone: Path, branch: str, session: str, *, complete: bool) -> None:
    """Start `branch` from main and stop there (the verdict), before committing."""
    git(clone, "switch", "-q", "-c", branch, "main")
    (clone / f"{branch}.txt").write_text(branch + "\n")
    write_verdict(clone, session, complete=complete, at_head=True)
    git(clone, "add", f"{branch}.txt")
    git(clone, "commit", "-q", "--no-verify", "-m", branch)


def test_a_branch_carries_its_own_sessions_verdict_not_a_newer_one_from_elsewhere(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = team_remote(tmp_path)
    dev = teammate(remote, tmp_path / "dev", env)
    stop_on(dev, "feature-a", "sess-a", complete=False)
    stop_on(dev, "feature-b", "sess-b", complete=True)  # newer, on another branch
    git(dev, "switch", "-q", "feature-a")
    pushed = sh(dev, env, "git push -q -u origin feature-a")
    assert pushed.returncode == 0, pushed.stderr
    result = ci_check(remote, tmp_path / "ci", env, "feature-a")
    assert result.returncode == 1
    assert "verdict for session sess-a is incomplete" in result.stderr


def test_a_push_no_session_worked_on_carries_no_verdict(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = team_remote(tmp_path)
    dev = teammate(remote, tmp_path / "dev", env)
    stop_on(dev, "feature-b", "sess-b", complete=True)
    git(dev, "switch", "-q", "-c", "hotfix", "main")
    (dev / "fix.txt").write_text("fix\n")
    git(dev, "add", "fix.txt")
    git(dev, "commit", "-q", "--no-verify", "-m", "fix")
    assert sh(dev, env, "git push -q -u origin hotfix").returncode == 0
    result = ci_check(remote, tmp_path / "ci", env, "hotfix")
    assert result.returncode == 1
    assert "no verdict" in result.stderr


def github_side(remote: Path, tmp_path: Path, *commands: tuple[str, ...]) -> None:
    """What GitHub does on the server: git commands in a full clone, pushed back."""
    server = tmp_path / "server"
    if not server.exists():
        git(tmp_path, "clone", "-q", str(remote), str(server))
    for command in commands:
        git(server, *command)


def test_a_default_depth_pull_request_checkout_reads_the_heads_note(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = team_remote(tmp_path)
    push_work(teammate(remote, tmp_path / "dev", env), env, "feature", "sess-pr")
    github_side(
        remote,
        tmp_path,
        ("checkout", "-q", "--detach", "origin/main"),
        ("merge", "-q", "--no-ff", "-m", "Merge feature into main", "origin/feature"),
        ("push", "-q", "--no-verify", "origin", "HEAD:refs/pull/1/merge"),
    )
    checkout = tmp_path / "ci"  # actions/checkout: init, fetch --depth=1 the merge ref
    git(tmp_path, "init", "-q", str(checkout))
    git(checkout, "fetch", "-q", "--depth=1", f"file://{remote}", "refs/pull/1/merge")
    git(checkout, "checkout", "-q", "--detach", "FETCH_HEAD")
    git(checkout, "remote", "add", "origin", f"file://{remote}")
    assert git(checkout, "rev-parse", "-q", "--verify", "HEAD^2", check=False) == ""
    result = sh(checkout, {**env, "GITHUB_ACTIONS": "true"}, "reflection check verdict --ci")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict complete (sess-pr)" in result.stdout


def test_the_push_of_a_squash_merge_reads_the_note_of_the_same_tree(
    tmp_path: Path, env: dict[str, str]
) -> None:
    remote = team_remote(tmp_path)
    push_work(teammate(remote, tmp_path / "dev", env), env, "feature", "sess-pr")
    github_side(
        remote,
        tmp_path,
        ("checkout", "-q", "-B", "main", "origin/main"),
        ("merge", "-q", "--squash", "origin/feature"),
        ("commit", "-q", "--no-verify", "-m", "Add feature (#1)"),
        ("push", "-q", "--no-verify", "origin", "main"),
    )
    result = ci_check(remote, tmp_path / "ci", env, "main")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verdict complete (sess-pr)" in result.stdout
