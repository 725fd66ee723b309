"""The tests-ran gate: a tree may be committed or pushed only if tests passed on it.

"Passed on it" means a passing, full (not `-k`/single-file, unless
`tests.allow_partial`) ledger stamp on exactly that tree, or on a tree that differs
from it only in paths matching `tests.ignore` (docs and the like). If the latest
counted run on exactly the tree failed, that failure stands.

Console script `reflection-tests-ran`: in the pre-commit stage it checks the
staged tree (`git write-tree`); in the pre-push stage every pushed commit's tree
(`tests.push_commits: tip` checks only each ref's tip).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from reflection_core import config
from reflection_core.globs import path_matches
from reflection_core.guards import fingerprint, gitcmd, ledger, runner_ready
from reflection_core.guards.evidence import (
    collection_errors,
    is_pytest_command,
    not_the_suite,
    outcome,
    why_not_counted,
)
from reflection_core.guards.ledger import Stamp
from reflection_core.lazyre import lazy
from reflection_core.records import NamedTuple, field, record

TYPE_CHECKING = False
if TYPE_CHECKING:  # the git hooks' entry points import these; a Stop hook needs none of them
    from reflection_core.guards.registry import PushContext

MAX_CANDIDATE_TREES = 20
MAX_LISTED_PATHS = 15
MAX_PUSH_COMMITS = 50
MAX_REPORTED_COMMITS = 3
NOT_FINGERPRINTED = ""  # the tree of evidence that holds for any tree (nothing recorded)
_DIFF_HEADER = lazy(r"([0-9a-f]{40,64}) ([0-9a-f]{40,64})\n")


@record
class TreeEvidence:
    """What the ledger proves about one tree.

    `changed_paths`: on a pass up to ignorable paths, those paths; on a refusal, the
    paths between the tree and the nearest passing run's that need a run (a docs file
    beside them is no reason to refuse and is not listed)."""

    tree: str
    passed: bool
    exact: bool = False
    stamp: Stamp | None = None
    changed_paths: list[str] = field(default_factory=list)
    ignorable_only: bool = False
    reason: str = ""
    command_hint: str | None = None


# Dependency manifests, lock files and build files change what the tests run against:
# never "documentation", whatever tests.ignore says.
NEVER_IGNORABLE: tuple[str, ...] = (
    "requirements*.txt",
    "requirements/**",
    "constraints*.txt",
    "CMakeLists.txt",
    "*.cmake",
    "*.lock",
    "*lock.json",
    "*lock.yaml",
    "go.mod",
    "go.sum",
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "tox.ini",
    "pytest.ini",
    "conftest.py",
    "Pipfile",
    "Gemfile",
    "Makefile",
    "*.mk",
    "meson.build",
    "BUILD",
    "BUILD.bazel",
    "WORKSPACE",
    "build.gradle*",
    "pom.xml",
    "Dockerfile",
    ".python-version",
    ".nvmrc",
    ".tool-versions",
)


def ignorable(path: str, ignore: Sequence[str]) -> bool:
    """A change to `path` needs no test run: it matches `ignore` and is not a build input."""
    return path_matches(path, list(ignore)) and not path_matches(path, list(NEVER_IGNORABLE))


def ignorable_globs(cfg: config.Config) -> list[str]:
    """Paths whose changes need no new test run: tests.ignore, fingerprint excludes, caches."""
    return [
        *cfg.get("tests.ignore"),
        *cfg.get("tests.fingerprint_exclude"),
        *fingerprint.BUILTIN_EXCLUDE,
    ]


def project_test_command(root: Path, cfg: config.Config) -> str | None:
    """`tests.command`, else the detected test command (pytest, npm test, go test ./...)."""
    from reflection_core.project import repo_signals

    return repo_signals(root, cfg, look_for_tests=False).test_command


def command_hint(project_command: str | None) -> str | None:
    """The command that would record a full run: pytest directly, anything else via `run`."""
    if project_command is None:
        return None
    if is_pytest_command(project_command) or project_command.startswith("reflection run"):
        return project_command
    return f"reflection run -- {project_command}"


def describe(stamp: Stamp) -> str:
    when = stamp.timestamp[:19].replace("T", " ") + " UTC" if stamp.timestamp else "at some time"
    return f"`{stamp.command}` ({stamp.source}, exit {stamp.exit_code}, {when})"


@record(frozen=True)
class SuiteRules:
    """What makes a stamp evidence here: the project's test command and tests.allow_partial."""

    project_command: str | None
    allow_partial: bool = False

    def is_suite(self, stamp: Stamp) -> bool:
        return not_the_suite(stamp, self.project_command) is None

    def outcome(self, stamp: Stamp) -> str:
        return outcome(stamp, self.allow_partial) if self.is_suite(stamp) else "none"


# ---------------------------------------------------------------- pure decision


def tree_evidence(
    tree: str,
    stamps: Sequence[Stamp],
    diffs: Mapping[str, list[str]],
    ignore: Sequence[str],
    rules: SuiteRules,
    aside: frozenset[str] = frozenset(),
) -> TreeEvidence:
    """Evidence for `tree` from the ledger's stamps and each candidate tree's changed paths.

    Only suite runs count (see guards.evidence): the latest passing or failing one on
    `tree` decides; otherwise a passing one on a tree that differs only in ignorable
    paths. `diffs` maps a passing stamp's tree to the paths that differ from `tree`
    (missing when git no longer has that tree). `aside`: paths present in the work tree
    but left out of `tree` (untracked, unstaged), which the refusal's choices resolve.
    """
    on_tree = [s for s in stamps if s.tree == tree]
    decisive = [s for s in on_tree if rules.outcome(s) != "none"]
    if decisive:
        failed = uncovered_failure(decisive, rules)
        if failed is not None and rules.outcome(decisive[-1]) == "pass":
            reason = (
                f"a test run on this tree from {failed.cwd} failed and no later run from "
                f"there or above it passed: {describe(failed)}"
            )
            return TreeEvidence(tree, False, exact=True, stamp=failed, reason=reason)
        return _exact_evidence(tree, decisive[-1], rules)
    ignorable_only, best = _nearest_pass(stamps, diffs, ignore, rules, aside)
    if ignorable_only is not None:
        stamp, changed = ignorable_only
        return TreeEvidence(
            tree,
            True,
            stamp=stamp,
            changed_paths=changed,
            ignorable_only=True,
            reason=(
                f"tests passed on a tree that differs only in ignorable paths "
                f"({len(changed)} changed, all matching tests.ignore): {describe(stamp)}"
            ),
        )
    uncounted = ""
    if on_tree:
        last = on_tree[-1]
        why = why_not_counted(last, rules.project_command, rules.allow_partial)
        uncounted = f"; the latest run on this tree does not count: {describe(last)}: {why}"
    if best is not None:
        stamp, changed = best
        reason = (
            f"no passing test run on this tree; {len(changed)} file(s) changed since the "
            f"nearest passing run {describe(stamp)}{uncounted}"
        )
        return TreeEvidence(tree, False, stamp=stamp, changed_paths=changed, reason=reason)
    return TreeEvidence(
        tree, False, reason=f"no passing test run is recorded for this tree{uncounted}"
    )


def uncovered_failure(decisive: Sequence[Stamp], rules: SuiteRules) -> Stamp | None:
    """A failed run on the tree that no later passing run covers: one started in the same
    directory or above it. In a repository of several projects, `cd svc_a && pytest`
    passing says nothing of `cd svc_b && pytest` failing on the same tree. Runs that
    recorded no directory cover everything (older ledgers)."""
    passed_from: list[str] = []
    for stamp in reversed(decisive):
        if rules.outcome(stamp) == "pass":
            passed_from.append(stamp.cwd)
        elif not any(_covers(above, stamp.cwd) for above in passed_from):
            return stamp if passed_from else None
    return None


def _covers(above: str, below: str) -> bool:
    """Does a run started in `above` reach the tests of a run started in `below`?"""
    if not above or not below:
        return True
    try:
        return os.path.commonpath([above, below]) == os.path.normpath(above)
    except ValueError:  # one relative, one absolute: no way to tell
        return True


def _exact_evidence(tree: str, latest: Stamp, rules: SuiteRules) -> TreeEvidence:
    """The latest suite run on the tree itself decides, pass or fail."""
    if rules.outcome(latest) == "pass":
        reason = f"tests passed on this tree: {describe(latest)}"
        return TreeEvidence(tree, True, exact=True, stamp=latest, reason=reason)
    reason = f"the latest test run on this tree failed: {describe(latest)}"
    uncollected = collection_errors(latest)
    if uncollected:
        reason += ": " + "; ".join(uncollected)
    return TreeEvidence(tree, False, exact=True, stamp=latest, reason=reason)


_Near = tuple[Stamp, list[str]]


def _nearest_pass(
    stamps: Sequence[Stamp],
    diffs: Mapping[str, list[str]],
    ignore: Sequence[str],
    rules: SuiteRules,
    aside: frozenset[str] = frozenset(),
) -> tuple[_Near | None, _Near | None]:
    """The newest passing run on a tree that differs only in ignorable paths (it counts),
    else None and the passing run whose tree differs in the fewest paths that need a run,
    the newest of those on a tie, with those paths: a docs file beside the run the user
    just made neither sends them to an older run nor is listed. Paths left `aside` (in the
    work tree, not in this tree) count after the others: the run just made on the work
    tree, scratch files and all, is named with them rather than an older run whose
    difference only a new run could close."""
    best: _Near | None = None
    best_cost = (0, 0)
    for stamp in reversed(stamps):
        if stamp.tree not in diffs or rules.outcome(stamp) != "pass":
            continue
        changed = diffs[stamp.tree]
        needing_a_run = [p for p in changed if not ignorable(p, ignore)]
        if not needing_a_run:
            return (stamp, changed), None
        cost = (sum(p not in aside for p in needing_a_run), len(needing_a_run))
        if best is None or cost < best_cost:
            best, best_cost = (stamp, needing_a_run), cost
    return None, best


# ---------------------------------------------------------------- git + ledger shell


def parse_diff_tree_stdin(output: str) -> dict[tuple[str, str], list[str]]:
    """Output of `git diff-tree --stdin -r -z --name-only` as {(old, new): paths}."""
    result: dict[tuple[str, str], list[str]] = {}
    current: list[str] | None = None
    pos = 0
    while pos < len(output):
        header = _DIFF_HEADER.match(output, pos)
        if header:
            current = result.setdefault((header.group(1), header.group(2)), [])
            pos = header.end()
            continue
        end = output.find("\0", pos)
        end = len(output) if end == -1 else end
        if current is not None:
            current.append(output[pos:end])
        pos = end + 1
    return result


def diff_candidates(
    root: Path, pairs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], list[str]]:
    """Changed paths for many (old tree, new tree) pairs in one git process."""
    running = start_diff(root, pairs)
    return {} if running is None else parse_diff_tree_stdin(running.wait(check=False))


def start_diff(root: Path, pairs: Sequence[tuple[str, str]]) -> gitcmd.Running | None:
    """`diff_candidates` started: `parse_diff_tree_stdin(.wait(check=False))` ends it."""
    if not pairs:
        return None
    text = "".join(f"{old} {new}\n" for old, new in pairs)
    args = ["diff-tree", "--stdin", "-r", "-z", "--no-renames", "--name-only"]
    return gitcmd.start(root, args, input=text)


def diff_pairs(trees: Sequence[str], view: LedgerView) -> list[tuple[str, str]]:
    """The (candidate tree, tree) pairs whose changed paths decide the evidence for `trees`.

    Trees whose own suite runs decide them need no comparison with other trees."""
    decided = {s.tree for s in view.stamps.on_trees(trees) if view.rules.outcome(s) != "none"}
    return [(c, t) for t in trees if t not in decided for c in view.candidates if c != t]


def candidate_trees(newest_first: Iterable[Stamp], rules: SuiteRules) -> list[str]:
    """Distinct trees with a full passing suite run, newest first, at most MAX_CANDIDATE_TREES."""
    seen: list[str] = []
    for stamp in newest_first:
        if stamp.tree not in seen and rules.outcome(stamp) == "pass":
            seen.append(stamp.tree)
            if len(seen) >= MAX_CANDIDATE_TREES:
                break
    return seen


class LedgerView(NamedTuple):
    """What the ledger holds for this repository, read before any tree id is known."""

    enabled: bool
    hint: str | None
    stamps: ledger.Stamps  # parsed as the questions need them
    rules: SuiteRules
    candidates: list[str]


def read_ledger(root: Path, cfg: config.Config) -> LedgerView:
    """The stamps and suite rules evidence is judged by (no git process runs here)."""
    project_command = project_test_command(root, cfg)
    hint = command_hint(project_command)
    rules = SuiteRules(project_command, cfg.get("tests.allow_partial"))
    if not cfg.get("tests.ledger"):
        return LedgerView(False, hint, ledger.Stamps(b"", ""), rules, [])
    stamps = ledger.read_lazily(root)
    return LedgerView(True, hint, stamps, rules, candidate_trees(stamps.newest_first(), rules))


def evidence_for_trees(
    root: Path,
    trees: Sequence[str],
    cfg: config.Config,
    view: LedgerView | None = None,
    diffs: Mapping[tuple[str, str], list[str]] | None = None,
    aside: frozenset[str] = frozenset(),
) -> list[TreeEvidence]:
    """Evidence for several trees with one ledger read and one diff process.

    `view` is the ledger read beforehand (`reflection check tests` reads it while git
    computes the tree id); without it the ledger is read here. `diffs` are the changed
    paths of `diff_pairs(trees, view)` when already known.
    """
    view = view or read_ledger(root, cfg)
    if not view.enabled:
        note = "tests.ledger is false: test evidence is not recorded or checked"
        return [TreeEvidence(t, True, reason=note, command_hint=view.hint) for t in trees]
    stamps, rules = view.stamps.on_trees([*trees, *view.candidates]), view.rules
    if diffs is None:
        diffs = diff_candidates(root, diff_pairs(trees, view))
    ignore = ignorable_globs(cfg)
    results = []
    for tree in trees:
        per_tree = {old: paths_ for (old, new), paths_ in diffs.items() if new == tree}
        evidence = tree_evidence(tree, stamps, per_tree, ignore, rules, aside)
        evidence.command_hint = view.hint
        results.append(evidence)
    return results


def evidence_for_tree(
    root: Path,
    tree: str,
    cfg: config.Config,
    view: LedgerView | None = None,
    diffs: Mapping[tuple[str, str], list[str]] | None = None,
    aside: frozenset[str] = frozenset(),
) -> TreeEvidence:
    """What the ledger proves about `tree` (a tree id): passed, exactly or up to ignorable paths."""
    return evidence_for_trees(root, [tree], cfg, view, diffs, aside)[0]


def current_tree_evidence(root: Path, cfg: config.Config) -> TreeEvidence:
    """Evidence for the working tree as it is now (unstaged and untracked files included).

    With no run in the ledger (or the ledger off) the evidence is the same for any tree:
    the working tree is not fingerprinted then (three git processes on every stop), and
    the evidence names no tree."""
    view = read_ledger(root, cfg)
    if not view.stamps:
        return evidence_for_trees(root, [NOT_FINGERPRINTED], cfg, view)[0]
    tree = fingerprint.worktree_tree(root, cfg.get("tests.fingerprint_exclude"))
    return evidence_for_trees(root, [tree], cfg, view)[0]


def refusal_text(
    evidence: TreeEvidence,
    headline: str,
    *,
    skip_hint: bool = True,
    untracked: Sequence[str] = (),
    unstaged: Sequence[str] = (),
    left_out: tuple[Sequence[str], Sequence[str]] = ((), ()),
    exclude_file: str = ".git/info/exclude",
    verb: str = "commit",
    rerun_helps: bool = True,
    in_job: bool = False,
) -> str:
    """The message for a refused commit or push: why, what changed, what to do.

    `untracked` and `unstaged` name changed paths that are not part of the commit
    (present in the working tree when the tests ran); each gets its exact choices.
    `rerun_helps` is False for a pushed commit that is not a tip: a run now cannot
    prove it, so the message does not tell the user to run the tests (the push's
    closing advice says what can). `in_job`: a CI job checks its commit, and the
    `untracked` files are an earlier step's output there, with choices of their own.
    """
    lines = [f"reflection: {headline}: {evidence.reason}."]
    aside = set(untracked) | set(unstaged) | set(left_out[0])
    others = [p for p in evidence.changed_paths if p not in aside]
    if others:
        lines.append("  Changed since that run:")
        shown = others[:MAX_LISTED_PATHS]
        lines.extend(f"    {p}" for p in shown)
        if len(others) > len(shown):
            lines.append(f"    ... and {len(others) - len(shown)} more")
    run = evidence.command_hint or "reflection run -- <your test command>"
    if untracked:
        choices = _job_untracked_choices if in_job else _untracked_choices
        lines += choices(untracked, run, exclude_file)
    if unstaged:
        lines += _unstaged_choices(unstaged, run)
    if left_out[0]:
        lines += _left_out_choices(*left_out, run)
    if rerun_helps and (others or not aside):
        lines += _rerun_advice(evidence.command_hint)
    if skip_hint:
        lines.append(
            f"  Skip once: SKIP=reflection-tests-ran git {verb} ...  (or git {verb} "
            "--no-verify, which skips every check)."
        )
    return "\n".join(lines)


def _untracked_choices(untracked: Sequence[str], run: str, exclude_file: str) -> list[str]:
    """Untracked files the tests saw and the commit lacks: the three ways out."""
    quoted = " ".join(shlex.quote(p) for p in untracked[:MAX_LISTED_PATHS])
    return [
        "  Untracked files (not part of this commit, but present when the tests ran):",
        *(f"    {p}" for p in untracked[:MAX_LISTED_PATHS]),
        "  Choose one:",
        f"    git add {quoted}   (they belong in the commit; commit again)",
        f"    printf '%s\\n' {quoted} >> {exclude_file} && {run}   (keep them out of "
        "commits and of test evidence; then commit again)",
        "    or add them to tests.ignore in .reflection.yaml (changes there never need "
        "a test run), then commit again",
    ]


def _job_untracked_choices(untracked: Sequence[str], run: str, exclude_file: str) -> list[str]:
    """Untracked files in a CI job's checkout that the tests ran with and its commit lacks:
    an earlier step wrote them, so running the suite again records them again."""
    quoted = " ".join(shlex.quote(p) for p in untracked[:MAX_LISTED_PATHS])
    return [
        "  Untracked in this job's checkout (an earlier step wrote them; the commit does not "
        "hold them, so running the suite again records them again):",
        *(f"    {p}" for p in untracked[:MAX_LISTED_PATHS]),
        *(
            [f"    ... and {len(untracked) - MAX_LISTED_PATHS} more"]
            if untracked[MAX_LISTED_PATHS:]
            else []
        ),
        "  Choose one, then run the tests again in the job:",
        f"    printf '%s\\n' {quoted} >> {exclude_file}   (a step before the tests: they "
        f"are left out of the evidence), then {run}",
        "    git-ignore them in the committed .gitignore, or list them under "
        "tests.fingerprint_exclude in .reflection.yaml",
        "    or have the step that writes them write them outside the checkout "
        "(e.g. under $RUNNER_TEMP)",
    ]


def untracked_among(root: Path, paths: Sequence[str]) -> list[str]:
    """Those of `paths` that are untracked, not-ignored files in the work tree now."""
    if not paths:
        return []
    untracked = _git_paths(root, ["ls-files", "-o", "--exclude-standard"])
    return [p for p in paths if p in untracked]


def _left_out_choices(left_out: Sequence[str], named: Sequence[str], run: str) -> list[str]:
    """Staged files `git commit <paths>` leaves out, which the tests ran with: commit the
    named paths with them (`--include`), or test without them."""
    quoted = " ".join(shlex.quote(p) for p in left_out[:MAX_LISTED_PATHS])
    include = " ".join(shlex.quote(p) for p in named) or "<the paths you named>"
    return [
        "  Staged but left out (`git commit <paths>` commits only the paths it names; the "
        "tests ran with these too):",
        *(f"    {p}" for p in left_out[:MAX_LISTED_PATHS]),
        "  Choose one:",
        f"    git commit --include {include}   (with everything staged, as the tests ran)",
        f"    git stash push -- {quoted} && {run}   (test without them; then commit again "
        "and `git stash pop`)",
    ]


def _unstaged_choices(unstaged: Sequence[str], run: str) -> list[str]:
    """Unstaged edits the tests ran with and the commit lacks: the two ways out."""
    quoted = " ".join(shlex.quote(p) for p in unstaged[:MAX_LISTED_PATHS])
    return [
        "  Not staged (the tests ran with these edits, the commit lacks them):",
        *(f"    {p}" for p in unstaged[:MAX_LISTED_PATHS]),
        "  Choose one:",
        f"    git add {quoted}   (commit the edits too; commit again)",
        f"    git stash push --keep-index, then {run}, then commit, then git stash pop",
    ]


def _rerun_advice(hint: str | None) -> list[str]:
    """What to install and run before trying again, or how to name a test command."""
    lines: list[str] = []
    lacking = runner_ready.missing(hint)
    if lacking:
        lines.append(f"  First install what the test command needs: {lacking}")
    if hint:
        lines.append(f"  Run the full test suite, then try again:  {hint}")
        return lines
    return [
        *lines,
        "  No test command is configured or detected here. Name it in .reflection.yaml",
        "  (e.g. `tests: {command: make check}`) and `git add .reflection.yaml`, run it",
        "  through `reflection run -- make check`, then try again. A repository without",
        "  tests can set `tests: {ledger: false}` instead.",
    ]


# ---------------------------------------------------------------- the two stages


def _git_paths(root: Path, args: Sequence[str], env: Mapping[str, str] | None = None) -> set[str]:
    output = gitcmd.run(root, [*args, "-z"], env=env, check=False)
    return {p for p in output.split("\0") if p}


def check_staged(root: Path, cfg: config.Config) -> int:
    """pre-commit stage: the staged tree needs a passing run. 1 when refused."""
    staged = fingerprint.staged_tree(root)
    evidence = evidence_for_tree(root, staged, cfg)
    if evidence.passed:
        return 0
    text = staged_refusal(root, cfg, staged, evidence, "refusing the commit")
    rules = SuiteRules(project_test_command(root, cfg), cfg.get("tests.allow_partial"))
    elsewhere = passed_in_another_worktree(root, staged, rules)
    if elsewhere is not None:
        text += (
            f"\n  The tests passed on exactly this tree in the worktree {elsewhere}, whose "
            "ledger is its own: commit from there, or run them here."
        )
    sys.stderr.write(text + "\n")
    return 1


def passed_in_another_worktree(root: Path, tree: str, rules: SuiteRules) -> Path | None:
    """Another worktree of this repository whose own ledger holds a passing run of the
    suite on exactly `tree` (each worktree keeps its ledger in its own git dir)."""
    for path, _ in other_worktrees(root):
        if not path.is_dir():
            continue
        stamps = ledger.read_lazily(path, warn=False).on_trees([tree])
        if any(rules.outcome(stamp) == "pass" for stamp in stamps):
            return path
    return None


def staged_refusal(
    root: Path,
    cfg: config.Config,
    staged: str,
    evidence: TreeEvidence,
    headline: str,
    *,
    skip_hint: bool = True,
) -> str:
    """What a refused commit (or `check tests --staged`) says: the files the tests ran
    with that the commit lacks (untracked, unstaged, left out of `git commit <paths>`),
    each with its choices, and the nearest passing run named with them in mind."""
    changed = set(evidence.changed_paths)
    untracked: list[str] = []
    unstaged: list[str] = []
    left_out: list[str] = []
    named: list[str] = []
    if changed:
        others = _git_paths(root, ["ls-files", "--others", "--exclude-standard"])
        # A submodule's own edits are not staged by `git add <it>` (its commit is): the
        # run's note says what to do with them.
        modified = _git_paths(
            root, ["diff", "--name-only", "--no-renames", "--ignore-submodules=dirty"]
        )
        if others | modified:  # the run on the work tree may be the one to name
            evidence = evidence_for_tree(root, staged, cfg, aside=frozenset(others | modified))
            changed = set(evidence.changed_paths)
        left_out = sorted(changed & others & staged_but_left_out(root))
        if left_out:  # the paths the commit names: staged in its own index, against HEAD
            named = sorted(_git_paths(root, ["diff", "--cached", "--name-only", "--no-renames"]))
        untracked = sorted(changed & others - set(left_out))
        unstaged = sorted(changed & modified)
    exclude_file = gitcmd.run(root, ["rev-parse", "--git-path", "info/exclude"]).strip()
    return refusal_text(
        evidence,
        headline,
        skip_hint=skip_hint,
        untracked=untracked,
        unstaged=unstaged,
        left_out=(left_out, named),
        exclude_file=shlex.quote(exclude_file),
    )


def staged_but_left_out(root: Path) -> set[str]:
    """Paths staged in the repository's index that `git commit <paths>` leaves out: git
    then commits from a temporary index (GIT_INDEX_FILE) holding only the named paths."""
    temporary = os.environ.get("GIT_INDEX_FILE")
    git_dir = gitcmd.run(root, ["rev-parse", "--absolute-git-dir"], check=False).strip()
    real = os.path.join(git_dir, "index") if git_dir else ""
    if not temporary or not real or os.path.abspath(os.path.join(root, temporary)) == real:
        return set()
    return _git_paths(root, ["ls-files", "--cached"], env={"GIT_INDEX_FILE": real})


def pushed_commits(
    root: Path, local_sha: str, remote: str, remote_sha: str, tip_only: bool
) -> list[tuple[str, str]]:
    """(commit, tree) pairs a push sends that the remote does not have yet, newest first."""
    if tip_only:
        tree = fingerprint.commit_tree(root, local_sha)
        return [(local_sha, tree)]
    args = ["log", "--format=%H %T", local_sha, "--not", f"--remotes={remote}"]
    known_remote = remote_sha and not gitcmd.is_zero(remote_sha)
    if known_remote and gitcmd.succeeds(root, ["cat-file", "-e", f"{remote_sha}^{{commit}}"]):
        args.append(remote_sha)  # negated: it follows --not
    out = gitcmd.run(root, args)
    pairs = []
    for line in out.splitlines():
        commit, _, tree = line.partition(" ")
        if tree:
            pairs.append((commit, tree))
    return pairs


def peeled_commit(root: Path, sha: str) -> str:
    """The commit a pushed object names (an annotated tag's commit; else `sha` itself), so
    a pushed tag on the tip is judged as that tip, which a test run now can prove."""
    args = ["rev-parse", "-q", "--verify", f"{sha}^{{commit}}"]
    return gitcmd.run(root, args, check=False).strip() or sha


def check_push_refs(
    root: Path, cfg: config.Config, refs: Sequence[tuple[str, str]], remote: str
) -> int:
    """pre-push stage: every pushed commit's tree needs a passing run. 1 when refused.

    `refs` holds (local sha, remote sha) for each non-delete ref. A push of more than
    MAX_PUSH_COMMITS new commits (a first push of an existing history) checks each
    ref's tip only, and says so.
    """
    tip_only = cfg.get("tests.push_commits") == "tip"
    refs = [(peeled_commit(root, local_sha), remote_sha) for local_sha, remote_sha in refs]
    commits: dict[str, str] = {}
    for local_sha, remote_sha in refs:
        for commit, tree in pushed_commits(root, local_sha, remote, remote_sha, tip_only):
            commits.setdefault(commit, tree)
    if len(commits) > MAX_PUSH_COMMITS:
        sys.stderr.write(
            f"reflection: note: {len(commits)} new commits in this push; "
            "checking the tip of each pushed ref only.\n"
        )
        commits = {}
        for local_sha, remote_sha in refs:
            for commit, tree in pushed_commits(root, local_sha, remote, remote_sha, True):
                commits.setdefault(commit, tree)
    if not commits:
        return 0
    trees = list(dict.fromkeys(commits.values()))
    by_tree = {e.tree: e for e in evidence_for_trees(root, trees, cfg)}
    unproven = [(c, by_tree[t]) for c, t in commits.items() if not by_tree[t].passed]
    tips = {local_sha for local_sha, _ in refs}
    head_tree = (
        ""
        if not unproven
        else gitcmd.run(root, ["rev-parse", "-q", "--verify", "HEAD^{tree}"], check=False)
    )
    for commit, evidence in unproven[:MAX_REPORTED_COMMITS]:
        subject = gitcmd.run(root, ["log", "-1", "--format=%s", commit], check=False).strip()
        headline = f"refusing the push of {commit[:12]} ({subject[:60]})"
        elsewhere = commit in tips and commits[commit] != head_tree.strip()
        rerun_helps = commit in tips and not elsewhere
        text = refusal_text(evidence, headline, verb="push", rerun_helps=rerun_helps)
        if elsewhere:
            hint = evidence.command_hint or "<your test command>"
            text += "\n" + not_checked_out_advice(root, commit, hint, checked_out_at(root, commit))
        sys.stderr.write(text + "\n")
    if len(unproven) > MAX_REPORTED_COMMITS:
        more = len(unproven) - MAX_REPORTED_COMMITS
        sys.stderr.write(f"reflection: ... and {more} more pushed commits without test evidence.\n")
    earlier = [c for c, _ in unproven if c not in tips]
    if earlier:
        # `commits` is newest first, so the last unproven earlier commit is the oldest.
        sys.stderr.write(skipped_commit_advice(root, earlier[-1], by_tree, commits) + "\n")
    return 1 if unproven else 0


def other_worktrees(root: Path) -> list[tuple[Path, str]]:
    """The repository's other worktrees, each with its HEAD commit ("" when unborn)."""
    listing = gitcmd.run(root, ["worktree", "list", "--porcelain", "-z"], check=False)
    found: list[tuple[Path, str]] = []
    for field_ in listing.split("\0"):
        if field_.startswith("worktree "):
            found.append((Path(field_.removeprefix("worktree ")), ""))
        elif field_.startswith("HEAD ") and found:
            found[-1] = (found[-1][0], field_.removeprefix("HEAD "))
    here = root.resolve()
    return [(path, head) for path, head in found if path != root and path.resolve() != here]


def checked_out_at(root: Path, commit: str) -> Path | None:
    """Another worktree of this repository whose HEAD is `commit`, if any."""
    return next((path for path, head in other_worktrees(root) if head == commit), None)


def not_checked_out_advice(root: Path, commit: str, hint: str, worktree: Path | None) -> str:
    """The way out when a pushed tip is not the tree checked out here: the tests run on the
    checked-out tree and each worktree keeps its own ledger, so they must run where the
    commit is checked out, and the push go from there."""
    short = commit[:12]
    if worktree is not None:
        return (
            f"reflection: {short} is checked out in the worktree {worktree}, not here: running "
            "the tests here cannot prove it. Run them there and push from there:\n"
            f"    cd {shlex.quote(str(worktree))} && {hint}   (then push again from there)"
        )
    scratch = shlex.quote(str(root.parent / f"{root.name}-test-{short}"))
    return (
        f"reflection: {short} is not checked out here: running the tests here cannot prove it "
        "(they run on the checked-out tree). Check it out, run the tests there, then push "
        "again from there:\n"
        f"    git worktree add --detach {scratch} {short} && cd {scratch} && {hint}   (then "
        "push again from there)\n"
        f"    or commit or stash your work, `git switch` to its branch, run {hint}, then push "
        "again"
    )


def skipped_commit_advice(
    root: Path, oldest: str, by_tree: Mapping[str, TreeEvidence], commits: Mapping[str, str]
) -> str:
    """The way out when a commit that is not a pushed tip lacks evidence.

    A test run now runs on the tip's tree and cannot prove an earlier commit (one
    made with SKIP= or --no-verify, say), so the advice names what can.
    """
    hint = by_tree[commits[oldest]].command_hint or "<your test command>"
    parent = gitcmd.run(root, ["rev-parse", "-q", "--verify", f"{oldest}^"], check=False).strip()
    base = f"{oldest[:12]}^" if parent else "--root"
    return (
        f"reflection: {oldest[:12]} is an earlier commit of this push, not its tip: running the "
        "tests now cannot prove it (they run on the tip's tree). Choose one:\n"
        f"    git rebase -x {shlex.quote(hint)} {base}   (re-runs the tests on every commit "
        "from there; then push again)\n"
        "    set `tests: {push_commits: tip}` in .reflection.yaml   (check only each pushed "
        "ref's tip; then run the tests and push again)\n"
        "    git push --no-verify   (skips every pre-push check once)"
    )


def native(root: Path, cfg: config.Config, push: PushContext | None) -> int:
    """The native hooks' call: the staged tree at commit, every pushed commit at push."""
    if not cfg.get("tests.ledger"):
        return 0
    try:
        if push is None:
            return check_staged(root, cfg)
        targets = [(r.local_sha, r.remote_sha) for r in push.refs if r.needs_evidence]
        return check_push_refs(root, cfg, targets, push.remote)
    except gitcmd.GitError as exc:
        sys.stderr.write(f"reflection: tests-ran check could not run git: {exc}\n")
        return 1


def push_targets_from_env(root: Path, env: Mapping[str, str]) -> list[tuple[str, str]] | None:
    """(local sha, remote sha) from the pre-commit framework's variables, or None outside a push."""
    if not (env.get("PRE_COMMIT_REMOTE_BRANCH") or env.get("PRE_COMMIT_TO_REF")):
        return None
    from reflection_core.guards.branches import NOTES

    if env.get("PRE_COMMIT_REMOTE_BRANCH", "").startswith(NOTES):
        return []  # notes history (the verdict note) is not project commits
    local = env.get("PRE_COMMIT_TO_REF") or env.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
    sha = gitcmd.run(root, ["rev-parse", "--verify", f"{local}^{{commit}}"]).strip()
    return [(sha, env.get("PRE_COMMIT_FROM_REF", ""))]


def push_targets_from_git() -> list[tuple[str, str]]:
    """(local sha, remote sha) per ref git lists on a pre-push hook's stdin: git's word
    wins over the PRE_COMMIT_* variables, which only fill in when stdin is empty."""
    from reflection_core.guards.protected_push import read_stdin_refs

    return [(r.local_sha, r.remote_sha) for r in read_stdin_refs() if r.needs_evidence]


def main(argv: Sequence[str] | None = None) -> int:
    import argparse  # only the console script parses arguments; hooks import this module

    parser = argparse.ArgumentParser(prog="reflection-tests-ran", description=__doc__)
    parser.add_argument(
        "--stage",
        choices=("auto", "commit", "push"),
        default="auto",
        help="what to check: the staged tree or pushed commits (auto: from the framework's env)",
    )
    args = parser.parse_args(argv)
    from reflection_core.guards.hookenv import within_deadline

    return within_deadline(lambda: _check(args.stage), "commit or push")


def _check(stage: str) -> int:
    from reflection_core.guards.branches import PushParseError
    from reflection_core.guards.hookenv import repo_and_config

    loaded = repo_and_config("commit or push" if stage == "auto" else stage)
    if isinstance(loaded, int):
        return loaded
    root, cfg = loaded
    if not cfg.get("tests.ledger"):
        sys.stderr.write("reflection: note: tests.ledger is false; the tests-ran gate passes.\n")
        return 0
    try:
        targets = push_targets_from_env(root, os.environ)
        if stage == "push" or (stage == "auto" and targets is not None):
            targets = push_targets_from_git() or targets
            remote = os.environ.get("PRE_COMMIT_REMOTE_NAME", "origin")
            return check_push_refs(root, cfg, targets or [], remote)
        return check_staged(root, cfg)
    except gitcmd.GitError as exc:
        sys.stderr.write(f"reflection: tests-ran check could not run git: {exc}\n")
        return 1
    except PushParseError as exc:
        sys.stderr.write(f"reflection: {exc}; refusing the push (fails closed).\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
