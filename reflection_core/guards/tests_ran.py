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

import argparse
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reflection_core import config
from reflection_core.globs import path_matches
from reflection_core.guards import fingerprint, gitcmd, ledger
from reflection_core.guards.hookenv import repo_and_config
from reflection_core.guards.ledger import Stamp

MAX_CANDIDATE_TREES = 20
MAX_LISTED_PATHS = 15
MAX_PUSH_COMMITS = 50
MAX_REPORTED_COMMITS = 3
_DIFF_HEADER = re.compile(r"([0-9a-f]{40,64}) ([0-9a-f]{40,64})\n")


@dataclass
class TreeEvidence:
    """What the ledger proves about one tree."""

    tree: str
    passed: bool
    exact: bool = False
    stamp: Stamp | None = None
    changed_paths: list[str] = field(default_factory=list)
    ignorable_only: bool = False
    reason: str = ""
    command_hint: str | None = None


def counts_as_full(stamp: Stamp, allow_partial: bool) -> bool:
    return allow_partial or not stamp.partial


def ignorable_globs(cfg: config.Config) -> list[str]:
    """Paths whose changes need no new test run: tests.ignore, fingerprint excludes, caches."""
    return [
        *cfg.get("tests.ignore"),
        *cfg.get("tests.fingerprint_exclude"),
        *fingerprint.BUILTIN_EXCLUDE,
    ]


def command_hint(root: Path, cfg: config.Config) -> str | None:
    """The command that would record a full run: pytest directly, anything else via `run`."""
    from reflection_core.project import repo_signals

    command = repo_signals(root, cfg).test_command
    if command is None:
        return None
    if "pytest" in command.split()[:3] or command.startswith("reflection run"):
        return command
    return f"reflection run -- {command}"


def describe(stamp: Stamp) -> str:
    when = stamp.timestamp[:19].replace("T", " ") + " UTC" if stamp.timestamp else "at some time"
    return f"`{stamp.command}` ({stamp.source}, exit {stamp.exit_code}, {when})"


# ---------------------------------------------------------------- pure decision


def decide(
    tree: str,
    stamps: Sequence[Stamp],
    diffs: Mapping[str, list[str]],
    ignore: Sequence[str],
    allow_partial: bool,
) -> TreeEvidence:
    """Evidence for `tree` from the ledger's stamps and each candidate tree's changed paths.

    `diffs` maps a passing stamp's tree to the paths that differ from `tree`
    (missing when git no longer has that tree).
    """
    on_tree = [s for s in stamps if s.tree == tree]
    counted = [s for s in on_tree if counts_as_full(s, allow_partial) or not s.passed]
    if counted:
        latest = counted[-1]
        if latest.passed:
            return TreeEvidence(
                tree,
                True,
                exact=True,
                stamp=latest,
                reason=f"tests passed on this tree: {describe(latest)}",
            )
        return TreeEvidence(
            tree,
            False,
            exact=True,
            stamp=latest,
            reason=f"the latest test run on this tree failed: {describe(latest)}",
        )
    best: tuple[Stamp, list[str]] | None = None
    for stamp in reversed(stamps):
        if not stamp.passed or not counts_as_full(stamp, allow_partial) or stamp.tree not in diffs:
            continue
        changed = diffs[stamp.tree]
        relevant = [p for p in changed if not path_matches(p, list(ignore))]
        if not relevant:
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
        if best is None or len(changed) < len(best[1]):
            best = (stamp, changed)
    partial_passes = [s for s in on_tree if s.passed]
    if best is not None:
        stamp, changed = best
        reason = (
            f"no passing test run on this tree; {len(changed)} file(s) changed since the "
            f"nearest passing run {describe(stamp)}"
        )
        return TreeEvidence(tree, False, stamp=stamp, changed_paths=changed, reason=reason)
    if partial_passes:
        return TreeEvidence(
            tree,
            False,
            stamp=partial_passes[-1],
            reason=(
                f"only a partial test run passed on this tree ({describe(partial_passes[-1])}); "
                "a full run is needed (or set tests.allow_partial)"
            ),
        )
    return TreeEvidence(tree, False, reason="no passing test run is recorded for this tree")


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
    if not pairs:
        return {}
    text = "".join(f"{old} {new}\n" for old, new in pairs)
    out = gitcmd.run(
        root,
        ["diff-tree", "--stdin", "-r", "-z", "--no-renames", "--name-only"],
        input=text,
        check=False,
    )
    return parse_diff_tree_stdin(out)


def candidate_trees(stamps: Sequence[Stamp], allow_partial: bool) -> list[str]:
    """Distinct trees with a counted passing run, newest first, at most MAX_CANDIDATE_TREES."""
    seen: list[str] = []
    for stamp in reversed(stamps):
        if stamp.passed and counts_as_full(stamp, allow_partial) and stamp.tree not in seen:
            seen.append(stamp.tree)
            if len(seen) >= MAX_CANDIDATE_TREES:
                break
    return seen


def evidence_for_trees(root: Path, trees: Sequence[str], cfg: config.Config) -> list[TreeEvidence]:
    """Evidence for several trees with one ledger read and one diff process."""
    hint = command_hint(root, cfg)
    if not cfg.get("tests.ledger"):
        note = "tests.ledger is false: test evidence is not recorded or checked"
        return [TreeEvidence(t, True, reason=note, command_hint=hint) for t in trees]
    stamps = ledger.read(root)
    allow_partial = cfg.get("tests.allow_partial")
    candidates = candidate_trees(stamps, allow_partial)
    # Trees whose own counted runs decide them need no comparison with other trees.
    decided = {s.tree for s in stamps if counts_as_full(s, allow_partial) or not s.passed}
    pairs = [(c, t) for t in trees if t not in decided for c in candidates if c != t]
    diffs = diff_candidates(root, pairs)
    ignore = ignorable_globs(cfg)
    results = []
    for tree in trees:
        per_tree = {old: paths_ for (old, new), paths_ in diffs.items() if new == tree}
        evidence = decide(tree, stamps, per_tree, ignore, allow_partial)
        evidence.command_hint = hint
        results.append(evidence)
    return results


def evidence_for_tree(root: Path, tree: str, cfg: config.Config) -> TreeEvidence:
    """What the ledger proves about `tree` (a tree id): passed, exactly or up to ignorable paths."""
    return evidence_for_trees(root, [tree], cfg)[0]


def current_tree_evidence(root: Path, cfg: config.Config) -> TreeEvidence:
    """Evidence for the working tree as it is now (unstaged and untracked files included)."""
    tree = fingerprint.worktree_tree(root, cfg.get("tests.fingerprint_exclude"))
    return evidence_for_tree(root, tree, cfg)


def refusal_text(evidence: TreeEvidence, headline: str, *, skip_hint: bool = True) -> str:
    """The message for a refused commit or push: why, what changed, what to run."""
    lines = [f"reflection: {headline}: {evidence.reason}."]
    if evidence.changed_paths:
        lines.append("  Changed since that run:")
        shown = evidence.changed_paths[:MAX_LISTED_PATHS]
        lines.extend(f"    {p}" for p in shown)
        if len(evidence.changed_paths) > len(shown):
            lines.append(f"    ... and {len(evidence.changed_paths) - len(shown)} more")
    if evidence.command_hint:
        lines.append(f"  Run the full test suite, then try again:  {evidence.command_hint}")
    else:
        lines.append(
            "  Run the full test suite through `reflection run -- <your test command>` "
            "(or set tests.command), then try again."
        )
    if skip_hint:
        lines.append(
            "  Skip once: SKIP=reflection-tests-ran git commit ...  (pre-commit framework), "
            "or git commit/push --no-verify."
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- the two stages


def check_staged(root: Path, cfg: config.Config) -> int:
    """pre-commit stage: the staged tree needs a passing run. 1 when refused."""
    evidence = evidence_for_tree(root, fingerprint.staged_tree(root), cfg)
    return _report(evidence, "refusing the commit")


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


def check_push_refs(
    root: Path, cfg: config.Config, refs: Sequence[tuple[str, str]], remote: str
) -> int:
    """pre-push stage: every pushed commit's tree needs a passing run. 1 when refused.

    `refs` holds (local sha, remote sha) for each non-delete ref. A push of more than
    MAX_PUSH_COMMITS new commits (a first push of an existing history) checks each
    ref's tip only, and says so.
    """
    tip_only = cfg.get("tests.push_commits") == "tip"
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
    for commit, evidence in unproven[:MAX_REPORTED_COMMITS]:
        subject = gitcmd.run(root, ["log", "-1", "--format=%s", commit], check=False).strip()
        _report(evidence, f"refusing the push of {commit[:12]} ({subject[:60]})")
    if len(unproven) > MAX_REPORTED_COMMITS:
        more = len(unproven) - MAX_REPORTED_COMMITS
        sys.stderr.write(f"reflection: ... and {more} more pushed commits without test evidence.\n")
    return 1 if unproven else 0


def _report(evidence: TreeEvidence, headline: str) -> int:
    if evidence.passed:
        return 0
    sys.stderr.write(refusal_text(evidence, headline) + "\n")
    return 1


def push_targets_from_env(root: Path, env: Mapping[str, str]) -> list[tuple[str, str]] | None:
    """(local sha, remote sha) from the pre-commit framework's variables, or None outside a push."""
    if not (env.get("PRE_COMMIT_REMOTE_BRANCH") or env.get("PRE_COMMIT_TO_REF")):
        return None
    local = env.get("PRE_COMMIT_TO_REF") or env.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
    sha = gitcmd.run(root, ["rev-parse", "--verify", f"{local}^{{commit}}"]).strip()
    return [(sha, env.get("PRE_COMMIT_FROM_REF", ""))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reflection-tests-ran", description=__doc__)
    parser.add_argument(
        "--stage",
        choices=("auto", "commit", "push"),
        default="auto",
        help="what to check: the staged tree or pushed commits (auto: from the framework's env)",
    )
    args = parser.parse_args(argv)
    loaded = repo_and_config()
    if isinstance(loaded, int):
        return loaded
    root, cfg = loaded
    if not cfg.get("tests.ledger"):
        sys.stderr.write("reflection: note: tests.ledger is false; the tests-ran gate passes.\n")
        return 0
    try:
        targets = push_targets_from_env(root, os.environ)
        if args.stage == "push" or (args.stage == "auto" and targets is not None):
            remote = os.environ.get("PRE_COMMIT_REMOTE_NAME", "origin")
            return check_push_refs(root, cfg, targets or [], remote)
        return check_staged(root, cfg)
    except gitcmd.GitError as exc:
        sys.stderr.write(f"reflection: tests-ran check could not run git: {exc}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
