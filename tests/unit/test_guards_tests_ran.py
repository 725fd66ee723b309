"""The pure tests-ran decision: exact passes, failures that stand, ignorable differences."""

from __future__ import annotations

from pathlib import Path

from reflection_core.config import Config
from reflection_core.guards import ledger
from reflection_core.guards.fingerprint import worktree_tree
from reflection_core.guards.ledger import Stamp
from reflection_core.guards.tests_ran import (
    SuiteRules,
    evidence_for_tree,
    parse_diff_tree_stdin,
    tree_evidence,
)
from tests.gitutil import git

T1, T2, T3 = "1" * 40, "2" * 40, "3" * 40
IGNORE = ["docs/**", "*.md"]
RULES = SuiteRules("python -m pytest")
PARTIAL_OK = SuiteRules("python -m pytest", allow_partial=True)


def stamp(tree: str, exit_code: int = 0, partial: bool = False, command: str = "pytest") -> Stamp:
    made = Stamp(
        tree=tree,
        command=command,
        exit_code=exit_code,
        passed=exit_code == 0,
        partial=partial,
        timestamp="2026-01-01T00:00:00Z",
        source="pytest",
    )
    made.verified = True
    return made


def test_a_full_passing_run_on_the_exact_tree_passes() -> None:
    evidence = tree_evidence(T1, [stamp(T1)], {}, IGNORE, RULES)
    assert evidence.passed and evidence.exact
    assert "tests passed on this tree" in evidence.reason


def test_the_latest_run_on_the_tree_decides_a_later_failure_stands() -> None:
    evidence = tree_evidence(T1, [stamp(T1), stamp(T1, exit_code=1)], {}, IGNORE, RULES)
    assert not evidence.passed and evidence.exact
    assert "latest test run on this tree failed" in evidence.reason
    assert "exit 1" in evidence.reason


def test_a_later_pass_after_a_failure_passes() -> None:
    assert tree_evidence(T1, [stamp(T1, 1), stamp(T1)], {}, IGNORE, RULES).passed


def test_a_partial_run_does_not_count_unless_allowed() -> None:
    stamps = [stamp(T1, partial=True, command="pytest -k foo")]
    refused = tree_evidence(T1, stamps, {}, IGNORE, RULES)
    assert not refused.passed and "does not count: `pytest -k foo`" in refused.reason
    assert "a partial run" in refused.reason
    assert tree_evidence(T1, stamps, {}, IGNORE, PARTIAL_OK).passed


def test_a_failing_partial_run_is_evidence_of_failure() -> None:
    failing = stamp(T1, exit_code=1, partial=True)
    failing.counts = {"passed": 3, "failed": 1}
    stamps = [stamp(T1), failing]
    assert not tree_evidence(T1, stamps, {}, IGNORE, RULES).passed


def test_differences_only_in_ignorable_paths_pass() -> None:
    diffs = {T2: ["docs/guide.md", "README.md"]}
    evidence = tree_evidence(T1, [stamp(T2)], diffs, IGNORE, RULES)
    assert evidence.passed and not evidence.exact and evidence.ignorable_only
    assert evidence.changed_paths == ["docs/guide.md", "README.md"]


def test_code_changes_since_the_nearest_pass_are_listed() -> None:
    diffs = {T2: ["src/a.py", "src/b.py", "README.md"], T3: ["src/a.py"]}
    evidence = tree_evidence(T1, [stamp(T2), stamp(T3)], diffs, IGNORE, RULES)
    assert not evidence.passed
    assert evidence.changed_paths == ["src/a.py"]  # the nearest passing tree
    assert evidence.stamp is not None and evidence.stamp.tree == T3
    assert "1 file(s) changed since the nearest passing run" in evidence.reason


def test_the_nearest_pass_counts_only_paths_that_need_a_run() -> None:
    # The newer run differs in one module and a docs file, the older in one module: the
    # newer is as near, so it is the one named (the user's latest run, not an older one),
    # and the docs file is no reason to refuse.
    diffs = {T2: ["src/a.py"], T3: ["src/extra.py", "NOTES.md"]}
    evidence = tree_evidence(T1, [stamp(T2), stamp(T3)], diffs, IGNORE, RULES)
    assert evidence.stamp is not None and evidence.stamp.tree == T3
    assert evidence.changed_paths == ["src/extra.py"]
    assert "1 file(s) changed since the nearest passing run" in evidence.reason


def test_failing_runs_on_other_trees_are_not_candidates() -> None:
    evidence = tree_evidence(T1, [stamp(T2, exit_code=1)], {T2: ["README.md"]}, IGNORE, RULES)
    assert not evidence.passed
    assert evidence.reason == "no passing test run is recorded for this tree"


def test_trees_git_no_longer_has_are_skipped() -> None:
    assert not tree_evidence(T1, [stamp(T2)], {}, IGNORE, RULES).passed


def test_parses_batched_diff_tree_output() -> None:
    output = f"{T2} {T1}\ndocs/a.md\0src/x y.py\0{T3} {T1}\n{T2} {T3}\nz\0"
    assert parse_diff_tree_stdin(output) == {
        (T2, T1): ["docs/a.md", "src/x y.py"],
        (T3, T1): [],
        (T2, T3): ["z"],
    }


def test_a_partial_run_does_not_hide_a_full_pass_on_an_ignorably_different_tree(
    git_repo: Path,
) -> None:
    (git_repo / "pytest.ini").write_text("[pytest]\n")
    git(git_repo, "add", "pytest.ini")
    git(git_repo, "commit", "-q", "-m", "pytest")
    full_tree = worktree_tree(git_repo)
    ledger.append(git_repo, stamp(full_tree))
    (git_repo / "README.md").write_text("more docs\n")
    docs_tree = worktree_tree(git_repo)
    ledger.append(git_repo, stamp(docs_tree, partial=True, command="pytest -k x"))
    evidence = evidence_for_tree(git_repo, docs_tree, Config())
    assert evidence.passed and evidence.ignorable_only
    assert evidence.changed_paths == ["README.md"]
