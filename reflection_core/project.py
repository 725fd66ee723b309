"""What kind of project a repo is, read from its files: test, build, lint, typecheck commands.

Cheap on purpose (no subprocess, only small files read): refusal messages and the
Stop hook use it to name the exact command to run. `tests.command` in the config
overrides the detected test command.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflection_core import config
from reflection_core.config import Config
from reflection_core.lazyre import lazy

_MAX_READ = 256 * 1024
_MAKE_TARGET = lazy(r"^([A-Za-z0-9_.-]+)\s*:(?!=)", re.MULTILINE)
_TEST_DIRS = ("tests", "test", "spec", "__tests__")


@dataclass
class RepoSignals:
    """Commands and facts a repo's own files reveal; `evidence` says where each came from."""

    test_command: str | None = None
    build_command: str | None = None
    lint_commands: list[str] = field(default_factory=list)
    typecheck_commands: list[str] = field(default_factory=list)
    has_tests: bool = False
    languages: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return handle.read(_MAX_READ).decode("utf-8", errors="replace")
    except OSError:
        return None


def _package_scripts(text: str) -> dict[str, str]:
    try:
        data: Any = json.loads(text)
    except ValueError:
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)}


def _add_language(signals: RepoSignals, language: str) -> None:
    if language not in signals.languages:
        signals.languages.append(language)


def _python(root: Path, signals: RepoSignals) -> None:
    files = {
        name: _read(root / name)
        for name in ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "setup.py")
    }
    present = {name: text for name, text in files.items() if text is not None}
    if not present:
        return
    _add_language(signals, "python")
    combined = "\n".join(present.values())
    pytest_markers = ("[tool.pytest", "[pytest]", "[tool:pytest]", "pytest")
    if any(marker in combined for marker in pytest_markers) or signals.has_tests:
        signals.test_command = signals.test_command or "python -m pytest"
        where = next(
            (name for name, text in present.items() if "pytest" in text), "a tests directory"
        )
        signals.evidence.append(f"pytest configured in {where}")
    if "[tool.ruff" in combined or "ruff" in combined:
        signals.lint_commands.append("ruff check .")
        signals.evidence.append("ruff configured")
    if "[tool.mypy" in combined or "[mypy" in combined:
        signals.typecheck_commands.append("mypy")
        signals.evidence.append("mypy configured")
    if "[build-system]" in combined:
        signals.build_command = signals.build_command or "python -m build"


def _node(root: Path, signals: RepoSignals) -> None:
    text = _read(root / "package.json")
    if text is None:
        return
    _add_language(signals, "javascript")
    scripts = _package_scripts(text)
    test = scripts.get("test", "")
    if test and "no test specified" not in test:
        signals.test_command = signals.test_command or "npm test"
        signals.evidence.append("package.json scripts.test")
    if "build" in scripts:
        signals.build_command = signals.build_command or "npm run build"
    if "lint" in scripts:
        signals.lint_commands.append("npm run lint")
    for name in ("typecheck", "type-check", "tsc"):
        if name in scripts:
            signals.typecheck_commands.append(f"npm run {name}")
            break
    if (root / "tsconfig.json").is_file():
        _add_language(signals, "typescript")


def _simple(root: Path, signals: RepoSignals) -> None:
    if (root / "go.mod").is_file():
        _add_language(signals, "go")
        signals.test_command = signals.test_command or "go test ./..."
        signals.build_command = signals.build_command or "go build ./..."
        signals.lint_commands.append("go vet ./...")
        signals.evidence.append("go.mod")
    if (root / "Cargo.toml").is_file():
        _add_language(signals, "rust")
        signals.test_command = signals.test_command or "cargo test"
        signals.build_command = signals.build_command or "cargo build"
        signals.lint_commands.append("cargo clippy")
        signals.evidence.append("Cargo.toml")
    makefile = _read(root / "Makefile")
    if makefile is not None:
        targets = set(_MAKE_TARGET.findall(makefile))
        if "test" in targets:
            signals.test_command = signals.test_command or "make test"
            signals.evidence.append("Makefile target test")
        if "build" in targets:
            signals.build_command = signals.build_command or "make build"
        if "lint" in targets:
            signals.lint_commands.append("make lint")


def _is_python_test(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _python_test_files(root: Path) -> str | None:
    """Where pytest would find tests in a repo with no project file: a root conftest.py,
    test_*.py / *_test.py at the root, or Python files in a tests directory. One
    directory listing each, no walk."""
    if (root / "conftest.py").is_file():
        return "conftest.py"
    for where, directory in [(".", root)] + [(f"{d}/", root / d) for d in _TEST_DIRS]:
        try:
            names = [entry.name for entry in os.scandir(directory) if entry.is_file()]
        except OSError:
            continue
        if any(_is_python_test(name) for name in names):
            return f"test_*.py files in {where}" if where != "." else "test_*.py files"
    return None


def _bare_python_tests(root: Path, signals: RepoSignals) -> None:
    """pytest for Python test files when nothing else names a test command."""
    if signals.test_command:
        return
    found = _python_test_files(root)
    if found:
        _add_language(signals, "python")
        signals.test_command = "python -m pytest"
        signals.evidence.append(f"pytest: {found}")


def repo_signals(root: Path, cfg: Config | None = None) -> RepoSignals:
    """Detect the project's commands; `tests.command` from `cfg` (default: the repo's) wins."""
    if cfg is None:
        try:
            cfg = config.load(root)
        except config.ConfigError:
            cfg = config.Config(root=root)  # a broken config is reported elsewhere
    test_command_override = cfg.get("tests.command")
    signals = RepoSignals()
    signals.has_tests = any((root / name).is_dir() for name in _TEST_DIRS)
    if signals.has_tests:
        signals.evidence.append("a tests directory")
    # Order matters: the first detector to name a test command wins (pytest before make).
    _python(root, signals)
    _node(root, signals)
    _simple(root, signals)
    _bare_python_tests(root, signals)
    if test_command_override:
        signals.test_command = test_command_override
        signals.evidence.append("tests.command in the config")
    if signals.test_command:
        signals.has_tests = True
    return signals
