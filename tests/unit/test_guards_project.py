"""repo_signals: the test command a refusal names, read from the project's own files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflection_core.project import repo_signals


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_python_project_with_pytest_config(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.pytest.ini_options]\n[tool.ruff]\n[tool.mypy]\n")
    signals = repo_signals(tmp_path)
    assert signals.test_command == "python -m pytest"
    assert signals.lint_commands == ["ruff check ."] and signals.typecheck_commands == ["mypy"]
    assert signals.languages == ["python"] and signals.has_tests


def test_python_project_with_only_a_tests_dir(tmp_path: Path) -> None:
    write(tmp_path, "setup.cfg", "[metadata]\nname = x\n")
    write(tmp_path, "tests/test_x.py", "")
    assert repo_signals(tmp_path).test_command == "python -m pytest"


@pytest.mark.parametrize(
    ("name", "evidence"),
    [
        ("test_calc.py", "pytest: test_*.py files"),
        ("calc_test.py", "pytest: test_*.py files"),
        ("conftest.py", "pytest: conftest.py"),
        ("tests/test_calc.py", "pytest: test_*.py files in tests/"),
    ],
)
def test_python_test_files_without_a_project_file_mean_pytest(
    tmp_path: Path, name: str, evidence: str
) -> None:
    write(tmp_path, "calc.py", "def add(a, b):\n    return a + b\n")
    write(tmp_path, name, "")
    signals = repo_signals(tmp_path)
    assert signals.test_command == "python -m pytest" and signals.has_tests
    assert evidence in signals.evidence and "python" in signals.languages


def test_a_stray_python_test_does_not_override_the_package_test_script(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"scripts": {"test": "vitest run"}}))
    write(tmp_path, "test_fixture_gen.py", "")
    assert repo_signals(tmp_path).test_command == "npm test"


def test_javascript_tests_in_a_tests_dir_are_not_pytest(tmp_path: Path) -> None:
    write(tmp_path, "tests/calc.test.js", "")
    assert repo_signals(tmp_path).test_command is None


def test_node_project_uses_its_test_script(tmp_path: Path) -> None:
    pkg = {"scripts": {"test": "jest", "build": "tsc", "lint": "eslint ."}}
    write(tmp_path, "package.json", json.dumps(pkg))
    signals = repo_signals(tmp_path)
    assert signals.test_command == "npm test" and signals.build_command == "npm run build"
    assert signals.lint_commands == ["npm run lint"]


def test_npm_placeholder_test_script_is_not_a_test_command(tmp_path: Path) -> None:
    pkg = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    write(tmp_path, "package.json", json.dumps(pkg))
    assert repo_signals(tmp_path).test_command is None


def test_go_rust_and_make(tmp_path: Path) -> None:
    go = tmp_path / "go"
    write(go, "go.mod", "module x\n")
    assert repo_signals(go).test_command == "go test ./..."
    rust = tmp_path / "rust"
    write(rust, "Cargo.toml", "[package]\n")
    assert repo_signals(rust).test_command == "cargo test"
    make = tmp_path / "make"
    write(make, "Makefile", "VAR := 1\nbuild:\n\tcc x.c\ntest: build\n\t./run\n")
    signals = repo_signals(make)
    assert signals.test_command == "make test" and signals.build_command == "make build"


def test_config_overrides_the_test_command(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "go.mod", "module x\n")
    write(tmp_path, ".reflection.yaml", "tests:\n  command: make check\n")
    signals = repo_signals(tmp_path)
    assert signals.test_command == "make check"
    assert "tests.command in the config" in signals.evidence


def test_an_empty_repo_has_no_signals(tmp_path: Path) -> None:
    signals = repo_signals(tmp_path)
    assert signals.test_command is None and not signals.has_tests and signals.languages == []


def test_a_typescript_node_project_names_both_languages(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"scripts": {"typecheck": "tsc -b"}}))
    write(tmp_path, "tsconfig.json", "{}")
    signals = repo_signals(tmp_path)
    assert signals.languages == ["javascript", "typescript"]
    assert signals.typecheck_commands == ["npm run typecheck"]


def test_the_stop_hooks_repo_facts_come_from_the_project_model(tmp_path: Path) -> None:
    from reflection_core.session.analyze import repo_facts

    write(tmp_path, "Makefile", "test:\n\tpython -m pytest -q\nlint:\n\truff check .\n")
    write(tmp_path, "Cargo.toml", "[package]\nname = 'x'\n")
    facts, note = repo_facts(tmp_path)
    assert facts.test_command == "cargo test" and facts.build_command == "cargo build"
    assert facts.typecheck_command == "cargo check" and facts.lint_command == "cargo clippy"
    assert facts.run_command == "cargo run" and facts.ecosystems == ("rust", "make")
    assert note["ecosystems"] == ["rust", "make"]


def test_a_make_test_that_wraps_pytest_says_so(tmp_path: Path) -> None:
    write(tmp_path, "Makefile", "test:\n\tuv run pytest -q\n")
    signals = repo_signals(tmp_path)
    assert signals.test_command == "make test" and signals.test_runs == "python -m pytest"


def test_a_pnpm_project_is_named_with_pnpm(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"scripts": {"test": "vitest run"}}))
    write(tmp_path, "pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    assert repo_signals(tmp_path).test_command == "pnpm test"


def test_the_session_fills_what_the_repository_does_not_show(tmp_path: Path) -> None:
    from reflection_core.project import project_for_session

    write(tmp_path, "package.json", json.dumps({"scripts": {"test": "jest"}}))
    model = project_for_session(
        tmp_path, [("cd api && go build ./...", True), ("npm test", False)], ["api/x_test.go"]
    )
    assert model.text("test") == "npm test" and model.text("build") == "go build ./..."
    assert model.ecosystems == ("node", "go") and model.test_files == ("api/x_test.go",)
    assert project_for_session(None, [("cargo test", True)], []).text("test") == "cargo test"
