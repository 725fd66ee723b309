"""Every refusal says the way out, and following it literally makes the next attempt succeed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import fresh_user_env, git, make_bare_remote, make_repo

BIN = Path(sys.executable).parent
PROJECT = {
    "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = src\n",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return fresh_user_env(home, f"{BIN}:/usr/bin:/bin")  # `python` in the advice is ours


@pytest.fixture
def project(tmp_path: Path, env: dict[str, str]) -> Path:
    repo = make_repo(tmp_path / "calc", files=PROJECT)
    make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    init = subprocess.run([str(BIN / "reflection"), "init"], cwd=repo, env=env, capture_output=True)
    assert init.returncode == 0, init.stderr
    git(repo, "switch", "-q", "-c", "feature")
    return repo


def sh(repo: Path, env: dict[str, str], line: str) -> subprocess.CompletedProcess[str]:
    """Run one line of advice exactly as printed, through a shell like a user would."""
    return subprocess.run(["sh", "-c", line], cwd=repo, env=env, capture_output=True, text=True)


def advice_line(message: str, starts: str) -> str:
    """The command of the advice line starting with `starts` (before its parenthesised why)."""
    for line in message.splitlines():
        text = line.strip()
        if text.startswith(starts):
            return re.split(r"\s{3}\(", text)[0]
    raise AssertionError(f"no advice line starting {starts!r} in:\n{message}")


def refused_commit_with_untracked_scratch(project: Path, env: dict[str, str]) -> str:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    (project / "notes.tmp").write_text("scratch\n")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    git(project, "add", "src/calc.py")
    refused = sh(project, env, "git commit -q -m change")
    assert refused.returncode != 0
    assert "Untracked files (not part of this commit" in refused.stderr
    assert "    notes.tmp" in refused.stderr
    return refused.stderr


def test_untracked_file_advice_add_it(project: Path, env: dict[str, str]) -> None:
    message = refused_commit_with_untracked_scratch(project, env)
    assert sh(project, env, advice_line(message, "git add")).returncode == 0
    done = sh(project, env, "git commit -q -m change")
    assert done.returncode == 0, done.stderr
    assert "notes.tmp" in git(project, "show", "--name-only", "HEAD")


def test_untracked_file_advice_exclude_it(project: Path, env: dict[str, str]) -> None:
    message = refused_commit_with_untracked_scratch(project, env)
    line = advice_line(message, "printf")
    assert line.endswith("&& python -m pytest")
    assert sh(project, env, line).returncode == 0
    done = sh(project, env, "git commit -q -m change")
    assert done.returncode == 0, done.stderr
    assert "notes.tmp" not in git(project, "show", "--name-only", "HEAD")


def test_more_untracked_files_than_changed_ones_still_name_the_run_just_made(
    project: Path, env: dict[str, str]
) -> None:
    # The run on the work tree differs from the commit in the two scratch files; an older
    # run differs in the one staged change, which only a new run could close.
    assert sh(project, env, "python -m pytest -q").returncode == 0  # on the clean tree
    (project / "notes1.tmp").write_text("scratch\n")
    (project / "notes2.tmp").write_text("scratch\n")
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "src/calc.py")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    refused = sh(project, env, "git commit -q -m change")
    assert refused.returncode != 0
    assert "    notes1.tmp" in refused.stderr and "    notes2.tmp" in refused.stderr
    assert "Run the full test suite" not in refused.stderr  # a rerun would change nothing
    checked = sh(project, env, f"{BIN / 'reflection'} check tests --staged")
    assert checked.returncode == 1 and "    notes2.tmp" in checked.stderr  # the same advice
    assert "git add notes1.tmp notes2.tmp" in checked.stderr
    assert sh(project, env, advice_line(refused.stderr, "printf")).returncode == 0
    done = sh(project, env, "git commit -q -m change")
    assert done.returncode == 0, done.stderr


def refused_commit_of_named_paths(project: Path, env: dict[str, str]) -> str:
    # `git commit <paths>` commits only those paths; a staged file the tests ran with is
    # left out of the commit, not untracked.
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    (project / "src" / "other.py").write_text("Z = 1\n")
    git(project, "add", "src/other.py")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    refused = sh(project, env, "git commit -q -m only src/calc.py")
    assert refused.returncode != 0
    assert "Staged but left out" in refused.stderr and "Untracked" not in refused.stderr
    assert "    src/other.py" in refused.stderr
    return refused.stderr


def test_named_paths_advice_commit_them_with_everything_staged(
    project: Path, env: dict[str, str]
) -> None:
    message = refused_commit_of_named_paths(project, env)
    line = advice_line(message, "git commit")
    assert line == "git commit --include src/calc.py"
    done = sh(project, env, f"{line} -q -m all")
    assert done.returncode == 0, done.stderr
    assert "src/other.py" in git(project, "show", "--name-only", "HEAD")


def test_named_paths_advice_test_without_the_others(project: Path, env: dict[str, str]) -> None:
    message = refused_commit_of_named_paths(project, env)
    assert sh(project, env, advice_line(message, "git stash push")).returncode == 0
    done = sh(project, env, "git commit -q -m only src/calc.py")
    assert done.returncode == 0, done.stderr
    assert sh(project, env, "git stash pop").returncode == 0


def test_a_skipped_commit_in_a_push_explains_and_the_rebase_advice_works(
    project: Path, env: dict[str, str]
) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert sh(project, env, "git commit -q --no-verify -m skipped-tests").returncode == 0
    (project / "README.md").write_text("# calc\n")
    (project / "src" / "more.py").write_text("X = 1\n")
    git(project, "add", "-A")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    assert sh(project, env, "git commit -q -m tested").returncode == 0
    refused = sh(project, env, "git push -q origin feature")
    assert refused.returncode != 0
    assert "(skipped-tests)" in refused.stderr
    assert "is an earlier commit of this push, not its tip" in refused.stderr
    assert "tests.push_commits" in refused.stderr or "push_commits: tip" in refused.stderr
    # Running the tests now cannot prove the earlier commit: its block does not say to.
    assert "Run the full test suite" not in refused.stderr
    rebase = advice_line(refused.stderr, "git rebase -x")
    rebased = sh(project, env, rebase)
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    pushed = sh(project, env, "git push -q origin feature")
    assert pushed.returncode == 0, pushed.stderr


def test_an_annotated_tag_on_an_untested_tip_is_refused_as_the_tip_and_the_advice_works(
    project: Path, env: dict[str, str]
) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert sh(project, env, "git commit -q --no-verify -m untested").returncode == 0
    git(project, "tag", "-a", "v2", "-m", "release 2")
    refused = sh(project, env, "git push -q origin v2")
    assert refused.returncode != 0
    assert "(untested)" in refused.stderr
    assert "not its tip" not in refused.stderr and "git rebase -x" not in refused.stderr
    run = advice_line(refused.stderr, "Run the full test suite, then try again:")
    assert sh(project, env, run.partition(":")[2].strip()).returncode == 0
    pushed = sh(project, env, "git push -q origin v2")
    assert pushed.returncode == 0, pushed.stderr


def test_a_branch_that_is_not_checked_out_is_refused_with_advice_that_works(
    project: Path, env: dict[str, str]
) -> None:
    git(project, "switch", "-q", "-c", "b2")
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert sh(project, env, "git commit -q --no-verify -m b2").returncode == 0
    git(project, "switch", "-q", "feature")
    refused = sh(project, env, "git push -q origin b2")
    assert refused.returncode != 0
    assert "is not checked out here: running the tests here cannot prove it" in refused.stderr
    assert "Run the full test suite" not in refused.stderr
    assert sh(project, env, advice_line(refused.stderr, "git worktree add")).returncode == 0
    short = git(project, "rev-parse", "--short=12", "b2").strip()
    pushed = sh(project.parent / f"{project.name}-test-{short}", env, "git push -q origin b2")
    assert pushed.returncode == 0, pushed.stderr


def test_a_branch_checked_out_in_another_worktree_is_refused_naming_that_worktree(
    project: Path, env: dict[str, str]
) -> None:
    other = project.parent / "other"
    git(project, "worktree", "add", "-q", "-b", "wtb", str(other))
    (other / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(other, "add", "-A")
    assert sh(other, env, "python -m pytest -q").returncode == 0
    assert sh(other, env, "git commit -q -m wt").returncode == 0
    refused = sh(project, env, "git push -q origin wtb")
    assert refused.returncode != 0
    assert f"is checked out in the worktree {other}, not here" in refused.stderr
    assert sh(project, env, advice_line(refused.stderr, "cd ")).returncode == 0
    pushed = sh(other, env, "git push -q origin wtb")
    assert pushed.returncode == 0, pushed.stderr


def test_a_commit_of_a_tree_tested_only_in_another_worktree_names_that_worktree(
    project: Path, env: dict[str, str]
) -> None:
    other = project.parent / "other"
    git(project, "worktree", "add", "-q", "--detach", str(other))
    change = "def add(a, b):\n    return b + a\n"
    (other / "src" / "calc.py").write_text(change)
    assert sh(other, env, "python -m pytest -q").returncode == 0
    (project / "src" / "calc.py").write_text(change)
    git(project, "add", "src/calc.py")
    refused = sh(project, env, "git commit -q -m change")
    assert refused.returncode != 0
    assert f"passed on exactly this tree in the worktree {other}" in refused.stderr


def test_a_skipped_commit_advice_tip_only(project: Path, env: dict[str, str]) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert sh(project, env, "git commit -q --no-verify -m skipped-tests").returncode == 0
    (project / "src" / "more.py").write_text("X = 1\n")
    git(project, "add", "-A")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    assert sh(project, env, "git commit -q -m tested").returncode == 0
    refused = sh(project, env, "git push -q origin feature")
    assert "`tests: {push_commits: tip}` in .reflection.yaml" in refused.stderr
    (project / ".reflection.yaml").write_text("tests: {push_commits: tip}\n")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    pushed = sh(project, env, "git push -q origin feature")
    assert pushed.returncode == 0, pushed.stderr


def test_no_test_command_advice_names_the_config(tmp_path: Path, env: dict[str, str]) -> None:
    repo = make_repo(tmp_path / "plain", files={"Makefile": "check:\n\ttrue\n"})
    subprocess.run([str(BIN / "reflection"), "init"], cwd=repo, env=env, check=True)
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "a.c").write_text("int main(void) { return 0; }\n")
    git(repo, "add", "-A")
    refused = sh(repo, env, "git commit -q -m c")
    assert "e.g. `tests: {command: make check}`" in refused.stderr
    (repo / ".reflection.yaml").write_text("tests: {command: make check}\n")
    assert sh(repo, env, "git add .reflection.yaml").returncode == 0
    assert sh(repo, env, "reflection run -- make check").returncode == 0
    done = sh(repo, env, "git commit -q -m c")
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ pushes


def new_project_with_empty_remote(tmp_path: Path, env: dict[str, str]) -> Path:
    """A new repository as a newcomer has it: reflection set up, tests passing, a fresh remote."""
    repo = make_repo(tmp_path / "fresh", files=PROJECT)
    make_bare_remote(tmp_path / "fresh-remote.git", repo)
    init = sh(repo, env, "reflection init")
    assert init.returncode == 0, init.stderr
    assert sh(repo, env, "python -m pytest -q").returncode == 0
    return repo


def test_the_first_push_of_a_new_repository_to_an_empty_remote_is_allowed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    repo = new_project_with_empty_remote(tmp_path, env)
    first = sh(repo, env, "git push -u origin main")
    assert first.returncode == 0, first.stderr
    assert "has no branches yet" in first.stderr
    assert git(tmp_path / "fresh-remote.git", "rev-parse", "main").strip()
    # From now on main exists there and is protected.
    (repo / "CHANGELOG.md").write_text("first\n")
    git(repo, "add", "CHANGELOG.md")
    git(repo, "commit", "-q", "--no-verify", "-m", "docs")
    second = sh(repo, env, "git push origin main")
    assert second.returncode != 0
    assert "refusing to push to protected branch 'main'" in second.stderr


def test_creating_main_on_a_remote_that_has_branches_is_still_refused(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    remote = tmp_path / "other.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(project, "remote", "add", "other", str(remote))
    assert sh(project, env, "python -m pytest -q").returncode == 0
    assert sh(project, env, "git push -q other feature").returncode == 0
    refused = sh(project, env, "git push other feature:main")
    assert refused.returncode != 0
    assert "refusing to push to protected branch 'main'" in refused.stderr


def test_push_to_main_advice_works_when_followed_literally(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    git(project, "switch", "-q", "main")
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "commit", "-q", "--no-verify", "-am", "straight on main")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    for attempt in range(2):  # the advice still works after it was followed once
        refused = sh(project, env, "git push origin main")
        assert refused.returncode != 0
        line = advice_line(refused.stderr, "git switch -c")
        followed = sh(project, env, line)
        assert followed.returncode == 0, followed.stderr
        pr = advice_line(refused.stderr, "gh pr create")
        head = pr.split("--head ")[1].split()[0]
        base = pr.split("--base ")[1].split()[0]
        remote = tmp_path / "remote.git"
        assert git(remote, "rev-parse", head).strip() == git(project, "rev-parse", "HEAD").strip()
        assert git(remote, "rev-parse", "--verify", base).strip()  # the PR's base exists there
        git(project, "switch", "-q", "main")
        if attempt == 0:
            (project / "src" / "more.py").write_text("Y = 2\n")
            git(project, "add", "-A")
            git(project, "commit", "-q", "--no-verify", "-m", "more on main")
            assert sh(project, env, "python -m pytest -q").returncode == 0


def test_push_of_a_feature_to_main_advice_pushes_the_feature(
    project: Path, env: dict[str, str]
) -> None:
    (project / "src" / "more.py").write_text("Z = 3\n")
    assert sh(project, env, "python -m pytest -q").returncode == 0
    git(project, "add", "-A")
    assert sh(project, env, "git commit -q -m more").returncode == 0
    refused = sh(project, env, "git push origin HEAD:main")
    assert refused.returncode != 0
    pushed = sh(project, env, advice_line(refused.stderr, "git push -u"))
    assert pushed.returncode == 0, pushed.stderr


def test_push_after_a_no_verify_commit_gives_push_advice_that_works(
    project: Path, env: dict[str, str]
) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert sh(project, env, "git commit -q --no-verify -m untested").returncode == 0
    refused = sh(project, env, "git push -q origin feature")
    assert refused.returncode != 0
    assert "git commit" not in refused.stderr
    assert "SKIP=reflection-tests-ran git push" in refused.stderr
    rerun = refused.stderr.split("Run the full test suite, then try again:")[1].splitlines()[0]
    assert sh(project, env, rerun.strip()).returncode == 0
    pushed = sh(project, env, "git push -q origin feature")
    assert pushed.returncode == 0, pushed.stderr
