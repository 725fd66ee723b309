"""Push, PR, CI and build gates."""

from __future__ import annotations

from typing import Any

from reflection_core.session import gates
from reflection_core.session.gates import GateInputs
from reflection_core.session.model import Session
from reflection_core.session.task import build_task_context
from tests.unit.sessionbuild import SessionBuilder


def inputs(session: Session, required: set[str], **kwargs: Any) -> GateInputs:
    return GateInputs(
        task=build_task_context(session),
        required=required,
        protected_branches=["main", "master", "release/*", "re:^hotfix-\\d+$"],
        **kwargs,
    )


def test_push_to_a_protected_branch_fails_the_push_gate() -> None:
    s = SessionBuilder("Fix it").edit("a.py").bash("git push origin HEAD:main").build()
    result = gates.push_gate(s, inputs(s, {"push"}))
    assert not result.satisfied and result.severity == "HIGH"
    assert "'main'" in result.evidence


def test_a_push_to_the_protected_branch_the_task_names_is_what_the_user_asked() -> None:
    prompt = "Revert the TTL commit, make sure tests pass, and push main."
    s = SessionBuilder(prompt).edit("a.py").bash("git push origin main").build()
    assert gates.push_gate(s, inputs(s, {"push"})).satisfied
    other = SessionBuilder("Revert it and push").edit("a.py").bash("git push origin main").build()
    assert not gates.push_gate(other, inputs(other, {"push"})).satisfied


def test_push_matches_globs_and_regex_rules() -> None:
    for ref in ("release/2.0", "hotfix-12"):
        s = SessionBuilder("Ship").bash(f"git push origin feat:{ref}").build()
        assert not gates.push_gate(s, inputs(s, {"push"})).satisfied, ref


def test_implicit_push_uses_the_checked_out_branch() -> None:
    s = SessionBuilder("Ship", branch="main").bash("git push").build()
    assert not gates.push_gate(s, inputs(s, {"push"})).satisfied
    s = SessionBuilder("Ship", branch="feature/x").bash("git push").build()
    assert gates.push_gate(s, inputs(s, {"push"})).satisfied


def test_refused_push_is_the_guard_working_not_a_violation() -> None:
    s = SessionBuilder("Ship").bash("git push origin HEAD:main", exit=1, output="refused").build()
    result = gates.push_gate(s, inputs(s, {"push"}))
    assert result.satisfied and "refused attempt" in result.evidence


def test_feature_branch_push_is_fine() -> None:
    s = SessionBuilder("Ship").bash("git push -u origin feature/x").build()
    assert gates.push_gate(s, inputs(s, {"push"})).satisfied


def test_pr_gate_needs_a_created_or_found_pr() -> None:
    s = SessionBuilder("Fix it and open a PR").edit("a.py").build()
    assert not gates.pr_gate(s, inputs(s, {"pr"})).satisfied
    s = (
        SessionBuilder("Fix it and open a PR")
        .edit("a.py")
        .bash("gh pr create --fill", output="https://github.com/o/r/pull/7")
        .build()
    )
    result = gates.pr_gate(s, inputs(s, {"pr"}))
    assert result.satisfied and "/pull/7" in result.evidence


def test_failed_pr_creation_is_not_a_pr() -> None:
    s = SessionBuilder("Open a PR").bash("gh pr create --fill", exit=1, output="no auth").build()
    assert not gates.pr_gate(s, inputs(s, {"pr"})).satisfied


def test_ci_gate_needs_green_checks_after_the_last_push() -> None:
    base = SessionBuilder("Fix it, open a PR and make CI green").edit("a.py")
    s = base.bash("git push origin feature/x").build()
    assert not gates.ci_gate(s, inputs(s, {"ci"})).satisfied
    s = base.bash("gh pr checks 7", output="all checks passed").build()
    assert gates.ci_gate(s, inputs(s, {"ci"})).satisfied
    s = base.bash("git push origin feature/x").build()  # checks were before this push
    assert not gates.ci_gate(s, inputs(s, {"ci"})).satisfied


def test_failing_ci_is_high() -> None:
    s = SessionBuilder("CI green").bash("gh pr checks 7", exit=1, output="1 failing").build()
    result = gates.ci_gate(s, inputs(s, {"ci"}))
    assert not result.satisfied and result.severity == "HIGH"


def test_build_gate_requires_a_passing_build_after_the_change() -> None:
    s = SessionBuilder("Fix the build").edit("src/a.ts").bash("npm run build").build()
    assert gates.evaluate_gates(s, inputs(s, {"build"}))["build"].satisfied
    s = SessionBuilder("Fix the build").bash("npm run build").edit("src/a.ts").build()
    build = gates.evaluate_gates(s, inputs(s, {"build"}))["build"]
    assert build.failing and build.severity == "MEDIUM"
