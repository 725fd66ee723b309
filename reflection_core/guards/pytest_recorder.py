"""The recorder the pytest plugin registers for a run it records (see guards.pytest_plugin).

The tree is fingerprinted when the session STARTS, in a background thread
while the tests run (so a big repository's fingerprint costs the run nothing it
would notice): the stamp describes the content the tests were collected from.
Git scans with one thread at the usual priority: it never takes more than one
core from the tests, and a busy machine does not starve it until the run ends.
Files edited during the run are not covered; the next commit's tree then differs
from the stamp and asks for a new run.

A run is recorded as partial (never full-suite evidence) when anything narrows
it: selecting options on the command line, in PYTEST_ADDOPTS or anywhere pytest
parsed them (`-k`, `-m`, `--lf`, `--deselect`, `--ignore`, node ids, sub-paths),
`-o` overrides of collection settings (`python_functions=...`), or another
config file (`-c`), or a run from a subdirectory with no paths (pytest then
collects that directory, not testpaths) that leaves test files out. Options that
the configured `tests.command` itself uses are the project's definition of its
suite and do not count against it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from reflection_core.guards.pytest_plugin import warn

# Parsed option -> the flag that sets it; any value other than the default narrows the run.
_SELECTING_DESTS = {
    "keyword": "-k",
    "markexpr": "-m",
    "lf": "--lf",
    "stepwise": "--sw",
    "deselect": "--deselect",
    "ignore": "--ignore",
    "ignore_glob": "--ignore-glob",
    "inifilename": "-c",
}
# The options under which pytest itself deselects collected tests.
_DESELECTING_DESTS = ("keyword", "markexpr", "deselect", "lf", "stepwise")
# `-o KEY=VALUE` overrides that change which tests are collected.
_COLLECTION_INI_KEYS = (
    "python_files",
    "python_classes",
    "python_functions",
    "testpaths",
    "norecursedirs",
    "addopts",
    "collect_imported_tests",
)


_SYNONYMS = {
    "--last-failed": "--lf",
    "--stepwise": "--sw",
    "--config-file": "-c",
    "--inifile": "-c",
    "--override-ini": "-o",
}
_FLAG_OPTIONS = ("--lf", "--sw")
_VALUE_OPTIONS = ("-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-c", "-o")


def selections(tokens: Sequence[str]) -> set[tuple[str, str]]:
    """(option, value) pairs that narrow a run, from command-line tokens."""
    pairs: set[tuple[str, str]] = set()
    index = 0
    while index < len(tokens):
        text = tokens[index]
        name, eq, attached = text.partition("=") if text.startswith("--") else (text, "", "")
        name = _SYNONYMS.get(name, name)
        if name in _FLAG_OPTIONS:
            pairs.add((name, ""))
        elif name in _VALUE_OPTIONS and eq:
            pairs.add((name, attached))
        elif name in _VALUE_OPTIONS:
            pairs.add((name, tokens[index + 1] if index + 1 < len(tokens) else ""))
            index += 1
        elif text[:2] in ("-k", "-m", "-c", "-o") and len(text) > 2:  # -kEXPR and friends
            pairs.add((text[:2], text[2:]))
        index += 1
    return pairs


def narrowing_notes(
    config: pytest.Config,
    repo_root: Path,
    unseen: set[Path],
    suite_tokens: Sequence[str] = (),
) -> list[str]:
    """Why this run does not cover the whole suite; empty when it does.

    `suite_tokens` are the options of the configured `tests.command`: they define the
    suite, so the same option with the same value does not count against a run.
    Path arguments count as the full suite when they cover the configured testpaths
    (or the rootdir), or when every test file the repo has (`test_*.py`, `*_test.py`)
    lies under one of them (`pytest tests` in a project without testpaths).
    `unseen` is `unfingerprinted` of the run's shaping files.
    """
    tokens = [str(a) for a in config.invocation_params.args]
    tokens += shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    run, suite = selections(tokens), selections(suite_tokens)
    notes: list[str] = []
    for flag, value in sorted(run - suite):
        if flag != "-o":
            notes.append(f"selected with {flag}")
        elif value.split("=", 1)[0].strip() in _COLLECTION_INI_KEYS:
            notes.append(f"collection overridden with -o {value}")
    # What pytest parsed, wherever it came from (a backstop for forms not read above).
    # An ini file's addopts define the suite only when the fingerprint holds that file.
    ini_unseen = config.inipath is not None and Path(config.inipath) in unseen
    ini_tokens = set() if ini_unseen else set(config.getini("addopts") or [])
    for dest, flag in _SELECTING_DESTS.items():
        parsed = getattr(config.option, dest, None)
        if not parsed or flag in ini_tokens:
            continue
        for item in parsed if isinstance(parsed, list) else [parsed]:
            pair = (flag, "" if item is True else str(item))
            if pair not in run and pair not in suite:
                notes.append(f"{flag} is set ({item!r})")
    for override in getattr(config.option, "override_ini", None) or []:
        key = str(override).split("=", 1)[0].strip()
        if key in _COLLECTION_INI_KEYS and ("-o", str(override)) not in run | suite:
            notes.append(f"collection overridden with -o {override}")
    notes.extend(_path_notes(config, repo_root))
    notes.extend(_unseen_notes(config, repo_root, unseen))
    return list(dict.fromkeys(notes))


# The ini keys that choose which tests run, and pytest's defaults for them.
_COLLECTION_DEFAULTS: dict[str, list[str]] = {
    "addopts": [],
    "python_files": ["test_*.py", "*_test.py"],
    "python_classes": ["Test"],
    "python_functions": ["test"],
    "testpaths": [],
}


def shaping_files(config: pytest.Config) -> list[Path]:
    """Every file that shaped this run: the ini file pytest read (wherever it is, the
    rootdir or above) and every conftest.py it loaded."""
    files = [Path(config.inipath)] if config.inipath else []
    for plugin in config.pluginmanager.get_plugins():
        where = getattr(plugin, "__file__", None)
        if where and _is_conftest(where):
            files.append(Path(where))
    return [f.resolve() for f in files]


def _is_conftest(where: Any) -> bool:
    """Is a plugin's `__file__` a conftest.py? Asked twice a run of each of some forty
    plugins, most of them modules whose path does not hold the name: a Path is built
    only for those that do."""
    if isinstance(where, str) and "conftest.py" not in where:
        return False
    return Path(where).name == "conftest.py"


def unfingerprinted(repo_root: Path, files: Sequence[Path], tree: str) -> set[Path]:
    """Those of `files` the tree fingerprint `tree` leaves out: outside the repository, or
    not in the tree (git-ignored and untracked, or left out by the fingerprint's excludes).

    Git lists them from the tree (`ls-tree` reads the few tree objects on their paths),
    not from the index: no 4 MB index read and no scan for untracked files, and the answer
    is what the stamp holds, the fingerprint's own excludes included."""
    from reflection_core.guards import gitcmd

    root = repo_root.resolve()
    inside = [f for f in files if root in f.parents]
    unseen = {f for f in files if root not in f.parents}
    if inside:
        rels = [f":(literal){f.relative_to(root)}" for f in inside]
        out = gitcmd.run(root, ["ls-tree", "-z", "--name-only", "--full-tree", tree, "--", *rels])
        seen = {root / rel for rel in out.split("\0") if rel}
        unseen.update(f for f in inside if f not in seen)
    return unseen


def _unseen_notes(config: pytest.Config, repo_root: Path, unseen: set[Path]) -> list[str]:
    """A file the fingerprint cannot show shaped the run: a conftest.py (it can skip,
    deselect or patch anything), or an ini file that sets what is collected."""
    notes = []
    for path in sorted(unseen):
        where = _shown(path, repo_root)
        if path.name == "conftest.py":
            notes.append(f"shaped by {where}, which the fingerprint leaves out")
        elif config.inipath and path == Path(config.inipath).resolve():
            changed = [k for k, d in _COLLECTION_DEFAULTS.items() if _ini(config, k) != d]
            if changed:
                keys = ", ".join(changed)
                notes.append(f"{keys} set in {where}, which the fingerprint leaves out")
    return notes


def _ini(config: pytest.Config, key: str) -> list[str]:
    try:
        return [str(v) for v in config.getini(key) or []]
    except ValueError:  # a key this pytest does not know
        return []


def _shown(path: Path, repo_root: Path) -> str:
    root = repo_root.resolve()
    return str(path.relative_to(root)) if root in path.parents else str(path)


def _path_notes(config: pytest.Config, repo_root: Path) -> list[str]:
    """Why the paths pytest collected leave test files out. Path arguments, and with none
    the invocation directory when it is not the rootdir (pytest reads testpaths only from
    there, so `cd tests && pytest` collects that directory alone), count as the full suite
    when they cover the configured testpaths (or the rootdir), or every test file."""
    source = getattr(getattr(config, "args_source", None), "name", None)
    if source not in ("ARGS", "INVOCATION_DIR"):
        return []  # testpaths: the configured suite
    if source == "ARGS" and any("::" in arg for arg in config.args):
        return ["node ids selected"]
    base = Path(config.invocation_params.dir)
    if _covers_the_suite(config, repo_root, [(base / arg).resolve() for arg in config.args]):
        return []
    if source == "ARGS":
        return ["a subset of the test paths selected"]
    where = _shown(base.resolve(), repo_root)
    return [f"run from {where}/ with no paths, so pytest collected only that directory"]


def _covers_the_suite(config: pytest.Config, repo_root: Path, targets: list[Path]) -> bool:
    """Do `targets` hold the configured testpaths (else the rootdir), or every test file?"""
    root = Path(config.rootpath).resolve()
    testpaths = [(root / p).resolve() for p in (config.getini("testpaths") or [])] or [root]

    def covered(path: Path) -> bool:
        return any(t == path or t in path.parents for t in targets)

    if all(covered(tp) for tp in testpaths):
        return True
    patterns = _ini(config, "python_files") or _COLLECTION_DEFAULTS["python_files"]
    return all(covered(path) for path in _test_files(repo_root, testpaths, patterns))


def _test_files(repo_root: Path, under: list[Path], patterns: Sequence[str]) -> list[Path]:
    """Test files (by the run's `python_files` patterns) git knows (tracked or
    untracked-not-ignored) below any of `under`."""
    from reflection_core.guards import gitcmd

    specs = [f":(glob)**/{pattern}" for pattern in patterns]
    out = gitcmd.run(repo_root, ["ls-files", "-z", "-c", "-o", "--exclude-standard", "--", *specs])
    files = [(repo_root / rel).resolve() for rel in out.split("\0") if rel]
    return [f for f in files if any(u == f or u in f.parents for u in under)]


def _scanned_tree(root: Path, exclude: list[str]) -> str:
    """The working tree's fingerprint, taken while the tests run: a file they create and
    delete between git's scan and its read fails the scan, so it is tried again (the tree
    before the tests changed it), three times in all."""
    from reflection_core.guards.fingerprint import worktree_tree

    for _ in range(2):
        with contextlib.suppress(Exception):
            return worktree_tree(root, exclude, background=True)
    return worktree_tree(root, exclude, background=True)  # its error is reported when recording


def collection_error_notes(node_ids: Sequence[str], shown: int = 3) -> list[str]:
    """What a refusal names of a run's collection errors: the first few files, then a count."""
    notes = [f"error collecting {node_id}" for node_id in node_ids[:shown]]
    if len(node_ids) > shown:
        notes.append(f"and {len(node_ids) - shown} more collection error(s)")
    return notes


class LedgerRecorder:
    """Collects the outcome of one session and appends its stamp at the end."""

    def __init__(
        self,
        config: pytest.Config,
        root: Path,
        fingerprint: Callable[[], str],
        max_entries: int,
        suite_tokens: tuple[str, ...],
    ) -> None:
        self.config = config
        self.root = root
        self.fingerprint = fingerprint
        self.max_entries = max_entries
        self.suite_tokens = suite_tokens
        self.started = time.monotonic()
        self.counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
        self.deselected = 0
        self.uncollectable: list[str] = []  # the files pytest failed to collect (node ids)
        # The shaping files known when collection ended, and which of them the fingerprint
        # leaves out, asked of git beside the tests once the fingerprint is known.
        self.shaping_check: tuple[list[Path], Callable[[], set[Path]]] | None = None

    @classmethod
    def for_config(cls, config: pytest.Config) -> LedgerRecorder | None:
        from reflection_core import config as config_mod
        from reflection_core import paths

        root = paths.find_repo_root(config.rootpath) or paths.find_repo_root(
            config.invocation_params.dir
        )
        if root is None:
            return None
        cfg = config_mod.load(root)
        if not cfg.get("tests.pytest_plugin") or not cfg.get("tests.ledger"):
            return None
        from reflection_core.guards.gitcmd import in_thread

        fingerprint = in_thread(_scanned_tree, root, list(cfg.get("tests.fingerprint_exclude")))
        configured = cfg.get("tests.command")
        suite_tokens: tuple[str, ...] = ()
        if configured:
            from reflection_core.guards.evidence import is_pytest_command, normalized, split

            if is_pytest_command(configured):  # its options define the suite (not `python -m`)
                suite_tokens = tuple(normalized(split(configured))[1:])
        return cls(config, root, fingerprint, cfg.get("tests.max_entries"), suite_tokens)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from reflection_core.guards.gitcmd import in_thread

        try:
            files = shaping_files(self.config)
        except Exception:  # asked again when the run is recorded
            return
        root, fingerprint = self.root, self.fingerprint
        self.shaping_check = (files, in_thread(lambda: unfingerprinted(root, files, fingerprint())))

    def pytest_deselected(self, items: list[Any]) -> None:
        self.deselected += len(items)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A file that fails to collect (a syntax or import error) is an error of the run:
        the run failed, it did not merely run no tests."""
        if report.failed:
            self.counts["errors"] += 1
            self.uncollectable.append(report.nodeid or "the session")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = report.outcome  # what .passed, .failed and .skipped compare: read once
        if outcome == "passed":
            if report.when == "call":
                self.counts["passed"] += 1
        elif outcome == "failed":
            self.counts["failed" if report.when == "call" else "errors"] += 1
        elif outcome == "skipped":
            self.counts["skipped"] += 1

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
            warn(f"could not record this run ({type(exc).__name__}: {exc})")

    def _record(self, session: pytest.Session, exitstatus: int) -> None:
        from reflection_core.guards.ledger import record_run

        tree = self.fingerprint()
        files, check, unseen = shaping_files(self.config), self.shaping_check, None
        if check is not None and check[0] == files:
            with contextlib.suppress(Exception):  # asked again below
                unseen = check[1]()
        if unseen is None:
            unseen = unfingerprinted(self.root, files, tree)
        notes = narrowing_notes(self.config, self.root, unseen, self.suite_tokens)
        if self.stopped_early(session):
            notes.append("stopped before every collected test ran")
        if self.deselected and not any(
            getattr(self.config.option, dest, None) for dest in _DESELECTING_DESTS
        ):
            notes.append(f"{self.deselected} test(s) deselected by a hook, not by an option")
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            notes.append("interrupted")
        partial = bool(notes)
        notes += collection_error_notes(self.uncollectable)
        args = [str(a) for a in self.config.invocation_params.args]
        addopts = os.environ.get("PYTEST_ADDOPTS", "").strip()
        command = " ".join(["pytest", *args])
        if addopts:
            command = f"PYTEST_ADDOPTS={shlex.quote(addopts)} {command}"
        record_run(
            self.root,
            command,
            exitstatus,
            time.monotonic() - self.started,
            counts=self.counts,
            partial=partial,
            source="pytest",
            tree=tree,
            tool_versions={"pytest": pytest.__version__},
            argv=["pytest", *args],
            notes=notes,
            exclude=(),
            max_entries=self.max_entries,
        )
