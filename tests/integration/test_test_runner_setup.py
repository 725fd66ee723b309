"""The test runner is part of the setup: doctor checks the project's test command can run,
and a refusal says what to install instead of advising a command that fails."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.gitutil import fresh_user_env, git, make_repo

TREE = Path(__file__).resolve().parents[2]
PROJECT = {
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}


def interpreter_without_pytest(where: Path) -> Path:
    """A virtualenv holding reflection and its hook-path dependencies, but not pytest."""
    venv.EnvBuilder(with_pip=False).create(where)
    libs = where / "libs"
    libs.mkdir()
    import click
    import yaml

    for module in (click, yaml):
        (libs / module.__name__).symlink_to(Path(str(module.__file__)).parent)
    (libs / "reflection_core").symlink_to(TREE / "reflection_core")
    site = next((where / "lib").glob("python3*/site-packages"))
    (site / "libs.pth").write_text(f"{libs}\n")
    python = where / "bin" / "python"
    probe = subprocess.run([python, "-c", "import pytest"], capture_output=True)
    assert probe.returncode != 0, "the bare virtualenv should not see pytest"
    return python


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    environ = fresh_user_env(tmp_path / "home", "/usr/bin:/bin")
    environ.pop("PYTHONPATH", None)
    return environ


def test_a_python_project_without_pytest_is_reported_with_the_install_command(
    tmp_path: Path, env: dict[str, str]
) -> None:
    python = interpreter_without_pytest(tmp_path / "venv")
    repo = make_repo(tmp_path / "calc", files=PROJECT)
    run = lambda *args: subprocess.run(  # noqa: E731
        [python, "-m", "reflection_core", *args], cwd=repo, env=env, capture_output=True, text=True
    )
    init = run("init")
    assert init.returncode == 0
    assert f"pytest is not installed for {python}: {python} -m pip install pytest" in init.stdout
    report = run("doctor", "--json")
    assert report.returncode == 1
    tests = [f for f in json.loads(report.stdout)["findings"] if f["topic"] == "tests"]
    assert tests[0]["level"] == "problem"
    assert tests[0]["fix"] == f"{python} -m pip install pytest"
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(repo, "add", "-A")
    refused = subprocess.run(
        ["git", "commit", "-q", "-m", "c"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert f"pytest is not installed for {python}: {python} -m pip install pytest" in (
        refused.stderr
    )


def test_a_guard_run_from_pre_commits_own_environment_says_it_cannot_see_the_tests(
    tmp_path: Path, env: dict[str, str]
) -> None:
    # A hook pinned by tag runs from an environment pre-commit built (`py_env-...`):
    # installing pytest there would change nothing, so the refusal says where to install.
    python = interpreter_without_pytest(tmp_path / "repo0" / "py_env-python3")
    repo = make_repo(tmp_path / "calc", files=PROJECT)
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(repo, "add", "-A")
    refused = subprocess.run(
        [python, "-m", "reflection_core", "check", "tests", "--staged"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0
    assert "runs from pre-commit's own environment" in refused.stderr, refused.stderr
    assert "-m pip install pytest" not in refused.stderr


def test_an_npm_project_without_npm_is_reported(tmp_path: Path, env: dict[str, str]) -> None:
    bare_bin = tmp_path / "bin"
    bare_bin.mkdir()
    for tool in ("git", "sh"):
        (bare_bin / tool).symlink_to(str(shutil.which(tool)))
    env["PATH"] = str(bare_bin)
    package = json.dumps({"name": "x", "scripts": {"test": "node test.js"}})
    repo = make_repo(tmp_path / "web", files={"package.json": package, "test.js": "\n"})
    report = subprocess.run(
        [sys.executable, "-m", "reflection_core", "doctor", "--json"],
        cwd=repo,
        env={**env, "PYTHONPATH": str(TREE)},
        capture_output=True,
        text=True,
    )
    tests = [f for f in json.loads(report.stdout)["findings"] if f["topic"] == "tests"]
    assert tests[0]["level"] == "problem"
    assert "`npm` is not on PATH" in tests[0]["message"] and "Node.js" in tests[0]["fix"]
    assert report.returncode == 1


def test_doctor_is_content_when_the_runner_is_there(git_repo: Path) -> None:
    (git_repo / "pytest.ini").write_text("[pytest]\n")
    report = subprocess.run(
        [sys.executable, "-m", "reflection_core", "doctor", "--json"],
        cwd=git_repo,
        capture_output=True,
        text=True,
    )
    tests = [f for f in json.loads(report.stdout)["findings"] if f["topic"] == "tests"]
    assert tests == [
        {
            "level": "ok",
            "topic": "tests",
            "message": "test command `python -m pytest` can run here",
            "fix": None,
        }
    ]


def test_doctor_says_a_build_checks_a_crate_without_tests(tmp_path: Path) -> None:
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not on PATH")
    crate = {"Cargo.toml": "[package]\nname = 'x'\n", "src/main.rs": "fn main() {}\n"}
    repo = make_repo(tmp_path / "crate", files=crate)

    def tests_finding() -> dict[str, object]:
        report = subprocess.run(
            [sys.executable, "-m", "reflection_core", "doctor", "--json"],
            cwd=repo,
            env={**os.environ, "PYTHONPATH": str(TREE)},
            capture_output=True,
            text=True,
        )
        return next(f for f in json.loads(report.stdout)["findings"] if f["topic"] == "tests")

    finding = tests_finding()
    assert finding["level"] == "ok" and "`cargo test` can run here" in str(finding["message"])
    assert "no test source in the tree, so a build checks a change" in str(finding["message"])
    (repo / "src" / "main.rs").write_text("fn main() {}\n\n#[test]\nfn runs() {}\n")
    assert "no test source" not in str(tests_finding()["message"])
