from __future__ import annotations

from reflection_core.consumers.curate import (
    SECTION,
    SessionEvidence,
    apply_proposals,
    corrections,
    missed_gates,
    propose,
)

TESTS_OPEN = {"tests": {"required": True, "satisfied": False, "evidence": "no run"}}


def test_corrections_come_from_follow_up_prompts_only() -> None:
    prompts = [
        "Never use tabs. Add a --json flag to the export command.",
        "no, use pnpm instead of npm",
        "Don't touch the migrations folder. Thanks!",
        "Use this file please",
        "looks good",
    ]
    assert corrections(prompts) == [
        "Use pnpm instead of npm.",
        "Don't touch the migrations folder.",
    ]


def test_a_bare_instead_phrase_becomes_a_rule() -> None:
    assert corrections(["task", "the script should use httpx rather than requests"]) == [
        "Use httpx rather than requests."
    ]


def test_corrections_redact_secrets() -> None:
    lessons = corrections(["task", "no, always use token ghp_abcdefghijklmnopqrstuvwxyz012345"])
    assert lessons and "ghp_" not in lessons[0]


def test_missed_gates_counts_required_unsatisfied_gates_per_stop() -> None:
    decisions = [
        {"gates": TESTS_OPEN},
        {"gates": {**TESTS_OPEN, "push": {"required": False, "satisfied": False}}},
        {"gates": "broken"},
    ]
    assert missed_gates(decisions) == {"tests": 2}


def test_propose_turns_repeats_into_lessons_and_skips_one_offs() -> None:
    evidence = SessionEvidence(
        user_prompts=["fix it", "no, use pytest -x not unittest"],
        decisions=[{"gates": TESTS_OPEN}, {"gates": TESTS_OPEN}],
        prompt_smells=[["bug_without_repro"], ["bug_without_repro", "scope_creep"]],
        commit_subjects=['Revert "Drop the cache layer"', "Add cache"],
        test_command="python -m pytest -q",
    )
    titles = [p.title for p in propose(evidence, "")]
    assert titles == [
        "User correction",
        "Repeated prompt smell: bug_without_repro",
        "Gate the agent kept missing: tests",
        "Reverted commit",
    ]
    tests_lesson = propose(evidence, "")[2].lines[0]
    assert "`python -m pytest -q`" in tests_lesson


def test_propose_skips_lessons_the_memory_file_already_has() -> None:
    evidence = SessionEvidence(user_prompts=["x", "no, use pnpm instead of npm"])
    assert propose(evidence, "# Rules\n- use pnpm instead of npm.\n") == []


def test_apply_adds_a_section_once_and_appends_to_it_later() -> None:
    evidence = SessionEvidence(user_prompts=["x", "no, use pnpm instead of npm"])
    first = apply_proposals("# Project\n\nIntro.\n", propose(evidence, ""))
    assert first == f"# Project\n\nIntro.\n\n{SECTION}\n\n- Use pnpm instead of npm.\n"
    more = SessionEvidence(user_prompts=["x", "never commit to main"])
    second = apply_proposals(first + "\n## Other\ntext\n", propose(more, first))
    assert second.count(SECTION) == 1
    assert "- Use pnpm instead of npm.\n- Never commit to main.\n\n## Other" in second
