"""What kind of project a repo is, read from its files: test, build, lint, typecheck commands.

Cheap on purpose (no subprocess, only small files read): refusal messages and the
Stop hook use it to name the exact command to run. The answers come from the project
model (`project_model.py`, one table per ecosystem); this module keeps the flat view
the guards and the Stop hook read. `tests.command` in the config overrides the detected
test command.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from reflection_core import config
from reflection_core.config import Config
from reflection_core.project_model import ProjectModel, combine, repo_model, session_model
from reflection_core.records import field, record

# The languages a model's ecosystems stand for, for the verdict record.
_LANGUAGES = {
    "node": "javascript",
    "deno": "typescript",
    "gradle": "java",
    "maven": "java",
    "cmake": "c/c++",
    "dotnet": "c#",
    "make": None,
    "just": None,
}


@record
class RepoSignals:
    """Commands and facts a repo's own files reveal; `evidence` says where each came from."""

    test_command: str | None = None
    build_command: str | None = None
    lint_commands: list[str] = field(default_factory=list)
    typecheck_commands: list[str] = field(default_factory=list)
    has_tests: bool = False
    languages: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    ecosystems: list[str] = field(default_factory=list)
    run_command: str | None = None
    test_runs: str | None = None  # what the test command runs when it wraps a runner
    tested_dirs: frozenset[str] | None = None  # Go packages with tests (ProjectModel)
    model: ProjectModel = field(default_factory=ProjectModel)


def languages(model: ProjectModel) -> list[str]:
    found: list[str] = []
    for ecosystem in model.ecosystems:
        language = _LANGUAGES.get(ecosystem, ecosystem)
        if language and language not in found:
            found.append(language)
    if "tsconfig.json" in model.evidence and "typescript" not in found:
        found.append("typescript")
    return found


def signals_from_model(model: ProjectModel) -> RepoSignals:
    """The flat view of a project model (pure)."""
    test = model.command("test")
    return RepoSignals(
        test_command=test.text if test else None,
        build_command=model.text("build"),
        lint_commands=[c.text for c in model.all("lint")],
        typecheck_commands=[c.text for c in model.all("typecheck")],
        has_tests=model.has_tests,
        languages=languages(model),
        evidence=list(model.evidence),
        ecosystems=list(model.ecosystems),
        run_command=model.text("run"),
        test_runs=test.runs if test else None,
        tested_dirs=model.tested_dirs,
        model=model,
    )


def repo_signals(
    root: Path, cfg: Config | None = None, *, look_for_tests: bool = True
) -> RepoSignals:
    """Detect the project's commands; `tests.command` from `cfg` (default: the repo's) wins.
    `look_for_tests=False`: the commands only (see `repo_model`)."""
    if cfg is None:
        try:
            cfg = config.load(root)
        except config.ConfigError:
            cfg = config.Config(root=root)  # a broken config is reported elsewhere
    signals = signals_from_model(repo_model(root, look_for_tests=look_for_tests))
    override = cfg.get("tests.command")
    if override:
        signals.test_command = override
        signals.test_runs = None
        signals.evidence.append("tests.command in the config")
        signals.has_tests = True
    return signals


def project_for_session(
    root: Path | None, commands: Iterable[tuple[str, bool]], touched: Iterable[str]
) -> ProjectModel:
    """The repository's model (when there is one) with what the session's commands
    (`(command, succeeded)`) and touched paths add: the Stop decision's single question."""
    repo = repo_model(root) if root is not None else ProjectModel()
    return combine(repo, session_model(commands, touched))
