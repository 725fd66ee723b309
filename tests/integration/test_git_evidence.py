"""Only real runs of the project's test suite are evidence: at commit, at push, in the Stop gate.

A project whose suite FAILS after a change; each forgery below is tried on that tree and
must not unlock the commit, the push, or the Stop decision's tests gate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reflection_core import config
from reflection_core.guards import ledger
from reflection_core.guards.fingerprint import worktree_tree
from reflection_core.session import gates
from reflection_core.session.analyze import ledger_evidence
from reflection_core.session.gates import GateInputs
from reflection_core.session.task import build_task_context
from tests.gitutil import fresh_user_env, git, make_bare_remote, make_repo
from tests.unit.sessionbuild import SessionBuilder

BIN = Path(sys.executable).parent
PROJECT = {
    "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = src\n",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": (
        "from calc import add\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n"
        "def test_add_zero():\n    assert add(0, 0) == 0\n"
    ),
}
BROKEN = "def add(a, b):\n    return a * b\n"  # test_add fails, test_add_zero passes
SKIP_ALL_PLUGIN = (
    "import pytest\n\n"
    "def pytest_collection_modifyitems(items):\n"
    "    for item in items:\n"
    "        item.add_marker(pytest.mark.skip(reason='skipped'))\n"
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A fresh user (own ledger key), shared by the hooks and the in-process Stop gate."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return fresh_user_env(home, f"{BIN}:/usr/bin:/bin")


@pytest.fixture
def project(tmp_path: Path, env: dict[str, str]) -> Path:
    repo = make_repo(tmp_path / "calc", files=PROJECT)
    make_bare_remote(tmp_path / "remote.git", repo)
    git(repo, "push", "-q", "origin", "main")
    result = subprocess.run(
        [str(BIN / "reflection"), "init", "--git-hooks"], cwd=repo, env=env, capture_output=True
    )
    assert result.returncode == 0, result.stderr
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "src" / "calc.py").write_text(BROKEN)
    git(repo, "add", "-A")
    return repo


def sh(
    repo: Path, env: dict[str, str], *args: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args), cwd=repo, env={**env, **extra}, capture_output=True, text=True
    )


def reflection_run(repo: Path, env: dict[str, str], *argv: str, **extra: str) -> int:
    return sh(repo, env, str(BIN / "reflection"), "run", "--", *argv, **extra).returncode


def hand_written_line(repo: Path) -> None:
    """A stamp an agent could append: the right tree, a pass, a plausible but wrong signature."""
    stamp = {
        "tree": worktree_tree(repo),
        "command": "pytest",
        "exit_code": 0,
        "passed": True,
        "partial": False,
        "counts": {"passed": 2, "failed": 0, "errors": 0, "skipped": 0},
        "source": "pytest",
        "timestamp": "2026-01-01T00:00:00.000000Z",
        "mac": "0" * 64,
    }
    path = ledger.ledger_path(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(stamp) + "\n")
        del stamp["mac"]
        handle.write(json.dumps(stamp) + "\n")


def forge(repo: Path, env: dict[str, str], tmp_path: Path, how: str) -> None:
    py = sys.executable
    if how == "run true":
        assert reflection_run(repo, env, "true") == 0
    elif how == "run pytest -k nothing":
        reflection_run(repo, env, py, "-m", "pytest", "-q", "-k", "nothing")
    elif how == "run pytest --co":
        assert reflection_run(repo, env, py, "-m", "pytest", "--co", "-q") == 0
    elif how == "run sh -c pytest || true":
        assert reflection_run(repo, env, "sh", "-c", f"{py} -m pytest -q || true") == 0
    elif how == "hand-written ledger line":
        hand_written_line(repo)
    elif how == "PYTEST_ADDOPTS filter":
        result = sh(repo, env, py, "-m", "pytest", "-q", PYTEST_ADDOPTS="-k test_add_zero")
        assert result.returncode == 0, result.stdout
    elif how == "-o python_functions override":
        result = sh(repo, env, py, "-m", "pytest", "-q", "-o", "python_functions=test_add_zero")
        assert result.returncode == 0, result.stdout
    elif how == "a plugin skips everything":
        plugins = tmp_path / "plugins"
        plugins.mkdir()
        (plugins / "skipall.py").write_text(SKIP_ALL_PLUGIN)
        result = sh(repo, env, py, "-m", "pytest", "-q", "-p", "skipall", PYTHONPATH=str(plugins))
        assert result.returncode == 0 and "2 skipped" in result.stdout, result.stdout
    else:  # pragma: no cover
        raise AssertionError(how)


FORGERIES = [
    "run true",
    "run pytest -k nothing",
    "run pytest --co",
    "run sh -c pytest || true",
    "hand-written ledger line",
    "PYTEST_ADDOPTS filter",
    "-o python_functions override",
    "a plugin skips everything",
]


def stop_gate_satisfied(repo: Path) -> bool:
    """The Stop decision's tests gate, fed the ledger the way the Stop hook feeds it."""
    cfg = config.load(repo)
    evidence, _ = ledger_evidence(repo, cfg)
    session = SessionBuilder("Fix add").edit("src/calc.py").build()
    inputs = GateInputs(
        task=build_task_context(session),
        required={"tests"},
        test_command="python -m pytest",
        ledger=evidence,
    )
    return gates.tests_gate(session, inputs).satisfied


@pytest.mark.parametrize("how", FORGERIES)
def test_a_forgery_satisfies_no_gate(
    project: Path, env: dict[str, str], tmp_path: Path, how: str
) -> None:
    forge(project, env, tmp_path, how)
    refused = sh(project, env, "git", "commit", "-q", "-m", "untested")
    assert refused.returncode != 0, f"{how} unlocked the commit"
    assert "refusing the commit" in refused.stderr
    assert not stop_gate_satisfied(project), f"{how} satisfied the Stop tests gate"
    assert sh(project, env, "git", "commit", "-q", "--no-verify", "-m", "skipped").returncode == 0
    pushed = sh(project, env, "git", "push", "origin", "feature")
    assert pushed.returncode != 0, f"{how} unlocked the push"
    assert "refusing the push of" in pushed.stderr


def test_a_real_passing_run_satisfies_every_gate_and_unrelated_failures_do_not_poison_it(
    project: Path, env: dict[str, str]
) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "add", "-A")
    assert sh(project, env, sys.executable, "-m", "pytest", "-q").returncode == 0
    assert reflection_run(project, env, "sh", "-c", "exit 3") == 3  # unrelated, failing
    assert reflection_run(project, env, "no-such-command-xyz") == 127
    assert stop_gate_satisfied(project)
    committed = sh(project, env, "git", "commit", "-q", "-m", "tested")
    assert committed.returncode == 0, committed.stderr
    pushed = sh(project, env, "git", "push", "-q", "origin", "feature")
    assert pushed.returncode == 0, pushed.stderr


def test_a_failing_suite_run_stands(project: Path, env: dict[str, str]) -> None:
    assert sh(project, env, sys.executable, "-m", "pytest", "-q").returncode == 1
    refused = sh(project, env, "git", "commit", "-q", "-m", "broken")
    assert "the latest test run on this tree failed" in refused.stderr


def test_the_configured_test_command_through_run_is_evidence(
    project: Path, env: dict[str, str]
) -> None:
    (project / "Makefile").write_text("test:\n\tsh -c 'exit 0'\n")
    (project / ".reflection.yaml").write_text("tests:\n  command: make test\n")
    git(project, "add", "-A")
    assert reflection_run(project, env, "make", "test") == 0
    refused_other = reflection_run(project, env, "true")
    assert refused_other == 0
    committed = sh(project, env, "git", "commit", "-q", "-m", "make test passed")
    assert committed.returncode == 0, committed.stderr


def test_run_on_a_full_disk_exits_with_the_commands_status(
    project: Path, env: dict[str, str]
) -> None:
    """The ledger cannot be written (here: its directory is a file); the status survives."""
    ledger_dir = ledger.ledger_path(project).parent
    if ledger_dir.exists():
        for child in ledger_dir.iterdir():
            child.unlink()
        ledger_dir.rmdir()
    ledger_dir.write_text("not a directory\n")
    result = sh(project, env, str(BIN / "reflection"), "run", "--", "sh", "-c", "exit 5")
    assert result.returncode == 5
    assert "could not record this run in the test ledger" in result.stderr
    assert "Traceback" not in result.stderr


def test_options_of_the_configured_pytest_command_define_the_suite(
    project: Path, env: dict[str, str]
) -> None:
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    (project / "pytest.ini").write_text(
        "[pytest]\ntestpaths = tests\npythonpath = src\nmarkers =\n    slow: slow\n"
        "    smoke: smoke\n"
    )
    (project / "tests" / "test_smoke.py").write_text(
        "import pytest\n\n@pytest.mark.smoke\ndef test_smoke():\n    assert True\n"
    )
    (project / ".reflection.yaml").write_text("tests:\n  command: python -m pytest -m 'not slow'\n")
    git(project, "add", "-A")
    other_marker = sh(project, env, sys.executable, "-m", "pytest", "-q", "-m", "smoke")
    assert other_marker.returncode == 0 and "1 passed" in other_marker.stdout
    refused = sh(project, env, "git", "commit", "-q", "-m", "x")
    assert refused.returncode != 0 and "selected with -m" in refused.stderr
    suite = sh(project, env, sys.executable, "-m", "pytest", "-q", "-m", "not slow")
    assert suite.returncode == 0, suite.stdout
    committed = sh(project, env, "git", "commit", "-q", "-m", "configured suite passed")
    assert committed.returncode == 0, committed.stderr
