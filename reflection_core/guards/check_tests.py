"""`reflection check tests`: did tests pass on this tree? Without click.

The command runs where `git status` does (a shell, a CI step) and is measured against
it: entry.py calls this directly for the plain forms (`--ci`, `--staged`, `--json`),
skipping the click import; the click command calls it too. Exit 0 when the check
passes, 1 when it fails (the message says why and what to do), 2 on usage or
configuration errors.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from reflection_core.config import Config
    from reflection_core.guards.fingerprint import PendingTree
    from reflection_core.guards.tests_ran import LedgerView, TreeEvidence


def _nothing_recorded(hint: str | None) -> str:
    """The CI refusal when the job's ledger is empty: run the suite through it first, by
    the project's own command when one is configured or detected."""
    how = (
        f"`{hint}`"
        if hint
        else "`python -m pytest` with reflection installed, or `reflection run -- <test command>`"
    )
    return (
        "no test run is recorded in this job, so there is no evidence to check. "
        f"Run the suite through the ledger first in the same job ({how}), "
        "then `reflection check tests --ci`."
    )


def check_tests(*, ci: bool, staged: bool, rev: str | None, as_json: bool) -> int:
    """The exit code of `reflection check tests`, its messages printed."""
    from reflection_core import paths
    from reflection_core.guards import fingerprint, gitcmd

    found = paths.repo_root_dir()
    if found is None:
        return _say("reflection: not inside a git repository.", err=True, code=2)
    # The working tree's scan starts first (before pathlib is imported): git works while
    # this process loads the rest.
    scan = None if rev or ci or staged else fingerprint.start_worktree_tree(found)
    from pathlib import Path

    from reflection_core import config

    root = Path(found)

    try:
        cfg = config.load(str(root))
    except config.ConfigError as exc:
        if scan is not None:
            scan.cancel()
        return _say(f"reflection: configuration error: {exc}", err=True, code=2)
    if scan is not None:
        exclude = cfg.get("tests.fingerprint_exclude")
        tree_of, what = gitcmd.in_thread(scan.result, exclude), "the working tree"
    elif rev or ci:
        target = rev or "HEAD"
        tree_of, what = gitcmd.in_thread(fingerprint.commit_tree, root, target), f"commit {target}"
    else:
        tree_of, what = gitcmd.in_thread(fingerprint.staged_tree, root), "the staged tree"
    # Imported and read while git computes the tree: on a second core that costs no time.
    from reflection_core.guards import ledger, tests_ran

    view = tests_ran.read_ledger(root, cfg)
    diffs_for = _diffs_beside_the_scan(root, scan, view)
    try:
        tree = tree_of()
    except gitcmd.GitError as exc:
        why = _missing_commit(root, rev or "HEAD") if rev or ci else str(exc)
        return _say(f"reflection: {why}", err=True, code=2)
    evidence = tests_ran.evidence_for_tree(root, tree, cfg, view, diffs_for(tree))
    if as_json:
        _say(_as_json(evidence))
    if evidence.passed:
        if not as_json:
            _say(f"reflection: {what} ({tree[:12]}): {evidence.reason}.")
        return 0
    if ci and not ledger.read(root, warn=False):
        return _fail(_nothing_recorded(evidence.command_hint), ci, as_json)
    staged_only, headline = staged and not (rev or ci), f"no test evidence for {what}"
    text = _refusal(root, cfg, tree, evidence, headline, ci=ci, staged_only=staged_only)
    return _fail(text.removeprefix("reflection: "), ci, as_json)


def _as_json(evidence: TreeEvidence) -> str:
    import json

    from reflection_core.records import asdict

    return json.dumps(asdict(evidence), indent=2, ensure_ascii=False)


def _refusal(
    root: Path,
    cfg: Config,
    tree: str,
    evidence: TreeEvidence,
    headline: str,
    *,
    ci: bool,
    staged_only: bool,
) -> str:
    """What the refused check says: for the staged tree what the commit's refusal says,
    choices and all; in a job, files untracked in its checkout were written by an earlier
    step, so it says how to keep them out, not to re-run the suite."""
    from reflection_core.guards import tests_ran

    if staged_only:
        return tests_ran.staged_refusal(root, cfg, tree, evidence, headline, skip_hint=False)
    untracked = tests_ran.untracked_among(root, evidence.changed_paths) if ci else []
    return tests_ran.refusal_text(
        evidence, headline, skip_hint=False, untracked=untracked, in_job=True
    )


def _missing_commit(root: Path, rev: str) -> str:
    """Why the tree of `rev` cannot be read: a shallow clone lacks it, or no such commit."""
    from reflection_core.guards import gitcmd

    shallow = gitcmd.run(root, ["rev-parse", "--is-shallow-repository"], check=False)
    if shallow.strip() == "true":
        return (
            f"commit {rev} is not in this clone, which is shallow: fetch more history "
            "(`git fetch --deepen=N`, or actions/checkout with fetch-depth: 0), then try again"
        )
    return f"{rev!r} does not name a commit in this repository"


def _diffs_beside_the_scan(
    root: Path, scan: PendingTree | None, view: LedgerView
) -> Callable[[str], dict[tuple[str, str], list[str]] | None]:
    """Start the diffs the evidence needs for the tree the scan most likely gives (the
    one the last scan gave), so git compares trees while it scans; the returned call
    gives them for the tree the scan did give, or None (then they run afterwards)."""
    from reflection_core.guards import tests_ran

    predicted = scan.predicted if scan is not None and view.enabled else None
    early = (
        tests_ran.start_diff(root, tests_ran.diff_pairs([predicted], view)) if predicted else None
    )

    def diffs_for(tree: str) -> dict[tuple[str, str], list[str]] | None:
        if early is None:
            return None
        if tree != predicted:
            early.stop()
            return None
        return tests_ran.parse_diff_tree_stdin(early.wait(check=False))

    return diffs_for


def _fail(message: str, ci: bool, as_json: bool = False) -> int:
    """The refusal: an annotation in CI, else a line on stderr. With --json, stdout holds
    the JSON document alone, so the annotation goes to stderr (the runner reads both)."""
    if not ci:  # the CI module (dataclasses, the GitHub API) only for its annotation
        return _say(f"reflection: {message}", err=True)
    from reflection_core.guards.ci import annotation

    return _say(annotation("error", message), err=as_json)


def _say(text: str, *, err: bool = False, code: int = 1) -> int:
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()
    return code
