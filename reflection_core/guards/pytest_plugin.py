"""pytest plugin (pytest11 entry point `reflection`): record every test run in the ledger.

Loaded in every pytest run once the package is installed, so it stays cheap and
harmless: it does nothing outside a git repository, never changes a run's outcome
(its own failures become one warning line), and is off with `-p no:reflection`,
`--no-reflection-ledger`, `REFLECTION_LEDGER=0`, or `tests.pytest_plugin: false`
/ `tests.ledger: false` in the config.

The tree is fingerprinted when the session STARTS: the stamp describes the
content the tests were collected from. Files edited during the run are not
covered; the next commit's tree then differs from the stamp and asks for a new run.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

# Command-line options that select a subset of the suite.
_SELECTING_OPTIONS = (
    "-k",
    "-m",
    "--lf",
    "--last-failed",
    "--sw",
    "--stepwise",
    "--deselect",
    "--ignore",
    "--ignore-glob",
)


# Options under which pytest runs no tests: --collect-only, --setup-only/-plan, --help...
_NOT_A_TEST_RUN = (
    "collectonly",
    "setuponly",
    "setupplan",
    "help",
    "version",
    "markers",
    "showfixtures",
    "show_fixtures_per_test",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reflection", "reflection test-run ledger")
    group.addoption(
        "--no-reflection-ledger",
        action="store_true",
        default=False,
        help="do not record this run in reflection's test-run ledger",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--no-reflection-ledger", default=False):
        return
    if os.environ.get("REFLECTION_LEDGER", "").strip().lower() in ("0", "false", "no", "off"):
        return
    if hasattr(config, "workerinput"):  # an xdist worker: the controller records the run
        return
    if any(getattr(config.option, name, False) for name in _NOT_A_TEST_RUN):
        return
    try:
        recorder = _LedgerRecorder.for_config(config)
    except Exception as exc:  # never break a test run
        _warn(f"not recording this run ({type(exc).__name__}: {exc})")
        return
    if recorder is not None:
        config.pluginmanager.register(recorder, "reflection-ledger-recorder")


def _warn(message: str) -> None:
    sys.stderr.write(f"reflection: test ledger: {message}\n")


def selection_is_partial(config: pytest.Config, repo_root: Path) -> bool:
    """True when the command line narrows the suite: -k, -m, --lf, node ids, sub-paths.

    Path arguments count as the full suite when they cover the configured testpaths
    (or the rootdir), or when every test file the repo has (`test_*.py`, `*_test.py`)
    lies under one of them (`pytest tests` in a project without testpaths).
    """
    for arg in config.invocation_params.args:
        text = str(arg)
        if any(text == opt or text.startswith(opt + "=") for opt in _SELECTING_OPTIONS):
            return True
        if text[:2] in ("-k", "-m"):  # also the joined forms -kEXPR, -mEXPR
            return True
    source = getattr(config, "args_source", None)
    if source is None or source.name != "ARGS":
        return False  # no paths given: pytest ran testpaths or the invocation dir
    if any("::" in arg for arg in config.args):
        return True
    root = Path(config.rootpath).resolve()
    testpaths = [(root / p).resolve() for p in (config.getini("testpaths") or [])] or [root]
    base = Path(config.invocation_params.dir)
    targets = [(base / arg).resolve() for arg in config.args]

    def covered(path: Path) -> bool:
        return any(t == path or t in path.parents for t in targets)

    if all(covered(tp) for tp in testpaths):
        return False
    return not all(covered(path) for path in _test_files(repo_root, testpaths))


def _test_files(repo_root: Path, under: list[Path]) -> list[Path]:
    """Test files git knows (tracked or untracked-not-ignored) below any of `under`."""
    from reflection_core.guards import gitcmd

    out = gitcmd.run(
        repo_root,
        [
            "ls-files",
            "-z",
            "-c",
            "-o",
            "--exclude-standard",
            "--",
            ":(glob)**/test_*.py",
            ":(glob)**/*_test.py",
        ],
    )
    files = [(repo_root / rel).resolve() for rel in out.split("\0") if rel]
    return [f for f in files if any(u == f or u in f.parents for u in under)]


class _LedgerRecorder:
    """Collects the outcome of one session and appends its stamp at the end."""

    def __init__(self, config: pytest.Config, root: Path, tree: str, max_entries: int) -> None:
        self.config = config
        self.root = root
        self.tree = tree
        self.max_entries = max_entries
        self.started = time.monotonic()
        self.counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
        self.deselected = 0

    @classmethod
    def for_config(cls, config: pytest.Config) -> _LedgerRecorder | None:
        from reflection_core import config as config_mod
        from reflection_core import paths
        from reflection_core.guards.fingerprint import worktree_tree

        root = paths.find_repo_root(config.rootpath) or paths.find_repo_root(
            config.invocation_params.dir
        )
        if root is None:
            return None
        cfg = config_mod.load(root)
        if not cfg.get("tests.pytest_plugin") or not cfg.get("tests.ledger"):
            return None
        tree = worktree_tree(root, cfg.get("tests.fingerprint_exclude"))
        return cls(config, root, tree, cfg.get("tests.max_entries"))

    def pytest_deselected(self, items: list[Any]) -> None:
        self.deselected += len(items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.counts["failed" if report.when == "call" else "errors"] += 1
        elif report.skipped:
            self.counts["skipped"] += 1
        elif report.passed and report.when == "call":
            self.counts["passed"] += 1

    def stopped_early(self, session: pytest.Session) -> bool:
        """-x/--maxfail or an interrupt stopped the run before every collected test ran."""
        if session.shouldstop or session.shouldfail:
            ran = self.counts["passed"] + self.counts["failed"] + self.counts["skipped"]
            return ran < session.testscollected - self.deselected
        return False

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        try:
            self._record(session, int(exitstatus))
        except Exception as exc:  # never break a test run
            _warn(f"could not record this run ({type(exc).__name__}: {exc})")

    def _record(self, session: pytest.Session, exitstatus: int) -> None:
        from reflection_core.guards.ledger import record_run

        partial = (
            selection_is_partial(self.config, self.root)
            or self.stopped_early(session)
            or exitstatus == pytest.ExitCode.INTERRUPTED
        )
        args = [str(a) for a in self.config.invocation_params.args]
        command = " ".join(["pytest", *args])
        record_run(
            self.root,
            command,
            exitstatus,
            time.monotonic() - self.started,
            counts=self.counts,
            partial=partial,
            source="pytest",
            tree=self.tree,
            tool_versions={"pytest": pytest.__version__},
            exclude=(),
            max_entries=self.max_entries,
        )
