"""`reflection check tests`: did tests pass on this tree? Without click.

The command runs where `git status` does (a shell, a CI step) and is measured against
it: entry.py calls this directly for the plain forms (`--ci`, `--staged`, `--json`),
skipping the click import; the click command calls it too. Exit 0 when the check
passes, 1 when it fails (the message says why and what to do), 2 on usage or
configuration errors.
"""

from __future__ import annotations

import json
import sys

from reflection_core import config, paths
from reflection_core.records import asdict

_NOTHING_RECORDED = (
    "no test run is recorded in this job, so there is no evidence to check. "
    "Run the suite through the ledger first in the same job "
    "(`python -m pytest` with reflection installed, "
    "or `reflection run -- <test command>`), "
    "then `reflection check tests --ci`."
)


def check_tests(*, ci: bool, staged: bool, rev: str | None, as_json: bool) -> int:
    """The exit code of `reflection check tests`, its messages printed."""
    from reflection_core.guards import fingerprint, gitcmd, ledger, tests_ran

    root = paths.find_repo_root()
    if root is None:
        return _say("reflection: not inside a git repository.", err=True, code=2)
    try:
        cfg = config.load(str(root))
    except config.ConfigError as exc:
        return _say(f"reflection: configuration error: {exc}", err=True, code=2)
    try:
        if rev or ci:
            target = rev or "HEAD"
            tree, what = fingerprint.commit_tree(root, target), f"commit {target}"
        elif staged:
            tree, what = fingerprint.staged_tree(root), "the staged tree"
        else:
            tree = fingerprint.worktree_tree(root, cfg.get("tests.fingerprint_exclude"))
            what = "the working tree"
    except gitcmd.GitError as exc:
        return _say(f"reflection: {exc}", err=True, code=2)
    evidence = tests_ran.evidence_for_tree(root, tree, cfg)
    if as_json:
        _say(json.dumps(asdict(evidence), indent=2, ensure_ascii=False))
    if evidence.passed:
        if not as_json:
            _say(f"reflection: {what} ({tree[:12]}): {evidence.reason}.")
        return 0
    if ci and not ledger.read(root, warn=False):
        return _fail(_NOTHING_RECORDED, ci)
    text = tests_ran.refusal_text(evidence, f"no test evidence for {what}", skip_hint=False)
    return _fail(text.removeprefix("reflection: "), ci)


def _fail(message: str, ci: bool) -> int:
    from reflection_core.guards.ci import annotation

    return _say(annotation("error", message) if ci else f"reflection: {message}", err=not ci)


def _say(text: str, *, err: bool = False, code: int = 1) -> int:
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()
    return code
