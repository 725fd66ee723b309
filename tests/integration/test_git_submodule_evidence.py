"""Test evidence in a repository with a submodule: the fingerprint holds a submodule only as
its commit, so a run on a submodule with uncommitted edits proves nothing a commit holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflection_core.guards import fingerprint, ledger
from tests.gitutil import GIT_ENV, git, make_repo

REFLECTION = Path(sys.executable).parent / "reflection"
LIB_TEST = """\
import importlib.util, os
here = os.path.dirname(__file__)
spec = importlib.util.spec_from_file_location("calc", os.path.join(here, "..", "lib", "calc.py"))
calc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(calc)

def test_add():
    assert calc.add(2, 2) == 4
"""


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "REFLECTION_"))}
    env.update({**GIT_ENV, "HOME": str(repo.parent / "home")})
    return subprocess.run(list(args), cwd=repo, env=env, capture_output=True, text=True)


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """An app on a feature branch whose test exercises a submodule pinned at a broken
    commit, with the native hooks installed."""
    (tmp_path / "home").mkdir()
    lib = make_repo(tmp_path / "lib", files={"calc.py": "def add(a, b):\n    return a - b\n"})
    app = make_repo(tmp_path / "app", files={"tests/test_lib.py": LIB_TEST})
    init = run(app, str(REFLECTION), "init", "--git-hooks")
    assert init.returncode == 0, init.stderr
    git(app, "switch", "-q", "-c", "feat")
    git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    return app


def pytest_run(app: Path) -> subprocess.CompletedProcess[str]:
    return run(app, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider")


def test_a_run_on_a_submodules_uncommitted_fix_does_not_unlock_the_commit(app: Path) -> None:
    (app / "lib" / "calc.py").write_text("def add(a, b):\n    return a + b\n")  # not committed
    assert pytest_run(app).returncode == 0
    stamp = ledger.read(app)[-1]
    assert stamp.passed and stamp.partial
    assert any("submodule lib had uncommitted changes" in note for note in stamp.notes)
    refused = run(app, "git", "commit", "-m", "pin lib")
    assert refused.returncode == 1
    assert "submodule lib had uncommitted changes" in refused.stderr
    assert "git add lib" not in refused.stderr  # staging the submodule stages its commit only


def test_the_fix_committed_in_the_submodule_and_tested_unlocks_the_commit(app: Path) -> None:
    sub = app / "lib"
    (sub / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    git(sub, "commit", "-q", "-am", "fix add")
    git(app, "add", "lib")
    assert pytest_run(app).returncode == 0
    assert not ledger.read(app)[-1].partial
    committed = run(app, "git", "commit", "-m", "pin lib at the fix")
    assert committed.returncode == 0, committed.stderr


def test_untracked_files_in_a_submodule_make_it_dirty_and_a_clean_one_is_not(app: Path) -> None:
    assert fingerprint.dirty_submodules(app) == []
    (app / "lib" / "scratch.py").write_text("x = 1\n")
    assert fingerprint.dirty_submodules(app) == ["lib"]


def test_a_repository_without_submodules_has_none_dirty(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "plain", files={"a.py": "x = 1\n"})
    (repo / "a.py").write_text("x = 2\n")
    assert fingerprint.dirty_submodules(repo) == []
