"""The hook's output for a score: one visible line, context with the event name, block rules."""

from __future__ import annotations

from typing import Any

from reflection_core.hookio import HookResponse
from reflection_core.hosts import claude
from reflection_core.prompt.hook import build_response
from reflection_core.prompt.score import score_prompt

GOOD = (
    "In src/billing/invoice.py, `compute_tax` rounds every line before summing. Sum the "
    "Decimal amounts and round once; add a test to tests/billing/test_invoice.py."
)


def _rendered(*args: Any, **kwargs: Any) -> HookResponse:
    """The answer as Claude Code receives it."""
    return claude.HOST.render("user-prompt-submit", build_response(*args, **kwargs))


def test_good_prompt_gets_no_answer() -> None:
    assert _rendered(score_prompt(GOOD)).output is None


def test_with_show_score_a_good_prompt_gets_one_line_and_no_context() -> None:
    out = _rendered(score_prompt(GOOD), show_score=True).output or {}
    assert out["systemMessage"].startswith("reflection: prompt ")
    assert "\n" not in out["systemMessage"]
    assert "hookSpecificOutput" not in out


def test_only_a_flagged_prompt_adds_context_for_the_agent() -> None:
    flagged = _rendered(score_prompt("make everything in this file better")).output or {}
    assert flagged["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    context = flagged["hookSpecificOutput"]["additionalContext"]
    assert "Before acting, ask it, in the user's language: “this file”" in context
    assert "If their message already holds what it points at" in context
    assert "Offer this template" not in context  # one gap: the question alone
    for quiet in (
        "yes",
        "why does the cache miss so often?",
        "thanks!",
        "add caching to this file",
    ):
        out = _rendered(score_prompt(quiet, "Want me to add a cache in front of it?"))
        assert "hookSpecificOutput" not in (out.output or {}), quiet


def test_lesson_is_the_only_context_a_good_prompt_gets() -> None:
    out = _rendered(score_prompt(GOOD), lesson="run the migrations first").output or {}
    assert "run the migrations first" in out["hookSpecificOutput"]["additionalContext"]


def test_block_mode_blocks_only_below_the_threshold() -> None:
    vague = score_prompt("make everything in this file better")
    blocked = _rendered(vague, mode="block", block_below=2.0).output or {}
    assert blocked["decision"] == "block"
    assert "To do this well" in blocked["reason"]
    advised = _rendered(vague, mode="advise").output or {}
    assert "decision" not in advised
    clear = _rendered(score_prompt(GOOD), mode="block", block_below=2.0).output or {}
    assert "decision" not in clear


def test_block_mode_never_blocks_plan_mode_continuations_or_questions() -> None:
    vague = score_prompt("make everything in this file better")
    assert "decision" not in (_rendered(vague, mode="block", plan_mode=True).output or {})
    for result in (score_prompt("go ahead"), score_prompt("why does the cache miss so often?")):
        out = _rendered(result, mode="block", block_below=5.0).output or {}
        assert "decision" not in out


def test_history_warning_is_visible_on_the_line() -> None:
    out = _rendered(score_prompt(GOOD), warning="history unavailable: OperationalError")
    assert "history unavailable" in (out.output or {})["systemMessage"]


def test_a_question_about_a_missing_file_is_not_called_a_reply_in_the_agent_context() -> None:
    from reflection_core.prompt.render import agent_context

    context = agent_context(score_prompt("explain this file")) or ""
    assert "message leaves one thing open" in context and "reply" not in context
