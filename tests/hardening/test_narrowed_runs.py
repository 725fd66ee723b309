"""A run narrowed by a file the fingerprint leaves out never counts as a full pass, and the
config that governs the commit guard is the one being committed.

Real pytest runs (the plugin records them) and real commits through the native hook, in
a repository with one passing and one failing test: a run that only reaches the passing
one must not unlock the commit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitutil import GIT_ENV, git, make_repo

REFLECTION = Path(sys.executable).parent / "reflection"
TESTS = "def test_ok():\n    assert True\n\n\ndef test_bad():\n    assert False\n"
SKIP_THE_FAILURE = (
    "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n"
    "    for item in items:\n        if item.name == 'test_bad':\n"
    "            item.add_marker(pytest.mark.skip(reason='later'))\n"
)
DROP_THE_FAILURE = (
    "def pytest_collection_modifyitems(items):\n"
    "    items[:] = [item for item in items if item.name != 'test_bad']\n"
)


def env() -> dict[str, str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "REFLECTION_LEDGER"))
    }
    return {**clean, **GIT_ENV}


def project(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    base = {"app.py": "x = 1\n", "tests/test_app.py": TESTS, **(files or {})}
    repo = make_repo(tmp_path / "repo", files=base)
    git(repo, "switch", "-q", "-c", "feature")
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f'#!/bin/sh\nexec "{REFLECTION}" hook pre-commit "$@"\n')
    hook.chmod(0o755)
    return repo


def hidden(repo: Path, name: str, text: str) -> None:
    """A file git ignores (.git/info/exclude), so the fingerprint leaves it out."""
    (repo / name).write_text(text)
    with (repo / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(f"/{name}\n")


def pytest_run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=repo,
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def change_and_commit(repo: Path) -> subprocess.CompletedProcess[str]:
    """Stage a source change, run the (narrowed) tests, commit."""
    (repo / "app.py").write_text("x = 2\n")
    git(repo, "add", "app.py")
    ran = pytest_run(repo)
    assert ran.returncode == 0, ran.stdout + ran.stderr  # the narrowing hid the failure
    return subprocess.run(
        ["git", "commit", "-q", "-m", "change"], cwd=repo, env=env(), capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("name", "text", "why"),
    [
        ("pytest.ini", "[pytest]\naddopts = -k test_ok\n", "addopts set in pytest.ini"),
        ("pytest.ini", "[pytest]\npython_functions = test_ok\n", "python_functions set in"),
        ("tox.ini", "[pytest]\naddopts = -k test_ok\n", "addopts set in tox.ini"),
        ("conftest.py", SKIP_THE_FAILURE, "shaped by conftest.py"),
        ("conftest.py", DROP_THE_FAILURE, "shaped by conftest.py"),
    ],
    ids=["ini-addopts", "ini-python-functions", "tox-addopts", "conftest-skip", "conftest-drop"],
)
def test_a_git_ignored_file_that_narrows_the_run_does_not_unlock_the_commit(
    tmp_path: Path, name: str, text: str, why: str
) -> None:
    repo = project(tmp_path)
    hidden(repo, name, text)
    result = change_and_commit(repo)
    assert result.returncode != 0
    assert "partial run" in result.stderr and why in result.stderr


def test_a_conftest_the_fingerprint_excludes_does_not_unlock_the_commit(tmp_path: Path) -> None:
    """Not git-ignored, but left out by `tests.fingerprint_exclude`: the stamp's tree does
    not hold it, so the run it narrowed is partial."""
    config = "tests:\n  fingerprint_exclude: [conftest.py]\n"
    repo = project(tmp_path, {".reflection.yaml": config})
    (repo / "conftest.py").write_text(DROP_THE_FAILURE)
    result = change_and_commit(repo)
    assert result.returncode != 0
    assert "partial run" in result.stderr and "shaped by conftest.py" in result.stderr


def test_a_tracked_conftest_that_deselects_makes_the_run_partial(tmp_path: Path) -> None:
    deselect = (
        "def pytest_collection_modifyitems(config, items):\n"
        "    bad = [item for item in items if item.name == 'test_bad']\n"
        "    items[:] = [item for item in items if item not in bad]\n"
        "    config.hook.pytest_deselected(items=bad)\n"
    )
    repo = project(tmp_path, {"conftest.py": deselect})
    result = change_and_commit(repo)
    assert result.returncode != 0
    assert "1 test(s) deselected by a hook, not by an option" in result.stderr


def test_a_pytest_ini_above_the_repository_does_not_unlock_the_commit(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -k test_ok\n")
    repo = project(tmp_path)
    result = change_and_commit(repo)
    assert result.returncode != 0
    assert f"addopts set in {tmp_path / 'pytest.ini'}" in result.stderr


def test_one_file_of_a_python_files_layout_is_a_subset(tmp_path: Path) -> None:
    layout = {
        "pytest.ini": "[pytest]\npython_files = tests.py\n",
        "a/tests.py": "def test_a():\n    assert True\n",
        "b/tests.py": "def test_b():\n    assert False\n",
    }
    repo = make_repo(tmp_path / "repo", files={"app.py": "x = 1\n", **layout})
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "app.py").write_text("x = 2\n")
    git(repo, "add", "app.py")
    assert pytest_run(repo, "a/tests.py").returncode == 0
    check = subprocess.run(
        [REFLECTION, "check", "tests"], cwd=repo, env=env(), capture_output=True, text=True
    )
    assert check.returncode != 0 and "a subset of the test paths" in check.stderr


@pytest.mark.parametrize(
    "yaml",
    ["tests:\n  ledger: false\n", "tests:\n  allow_partial: true\n"],
    ids=["ledger-off", "allow-partial"],
)
def test_a_git_ignored_reflection_yaml_does_not_govern_the_commit(
    tmp_path: Path, yaml: str
) -> None:
    repo = project(tmp_path)
    hidden(repo, ".reflection.yaml", yaml)
    (repo / "app.py").write_text("x = 2\n")
    git(repo, "add", "app.py")
    pytest_run(repo, "-k", "test_ok")
    result = subprocess.run(
        ["git", "commit", "-q", "-m", "change"], cwd=repo, env=env(), capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "checking the commit against the staged config" in result.stderr


def test_an_unstaged_edit_of_the_tracked_config_does_not_switch_the_ledger_off(
    tmp_path: Path,
) -> None:
    repo = project(tmp_path, {".reflection.yaml": "tests:\n  ledger: true\n"})
    (repo / ".reflection.yaml").write_text("tests:\n  ledger: false\n")
    (repo / "app.py").write_text("x = 2\n")
    git(repo, "add", "app.py")
    result = subprocess.run(
        ["git", "commit", "-q", "-m", "change"], cwd=repo, env=env(), capture_output=True, text=True
    )
    assert result.returncode != 0
    assert ".reflection.yaml differs from the staged one" in result.stderr
    assert "no passing test run" in result.stderr


def test_a_staged_config_change_governs_its_own_commit(tmp_path: Path) -> None:
    repo = project(tmp_path, {".reflection.yaml": "tests:\n  ledger: true\n"})
    (repo / ".reflection.yaml").write_text("tests:\n  ledger: false\n")
    git(repo, "add", ".reflection.yaml")
    result = subprocess.run(
        ["git", "commit", "-q", "-m", "ledger off, for review"],
        cwd=repo,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
