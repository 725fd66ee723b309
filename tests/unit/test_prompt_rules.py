"""The gate: a gap asks only if the table says it generalised; unknown gaps never ask."""

from __future__ import annotations

import pytest

from reflection_core.prompt import rules
from reflection_core.prompt.hook import build_response
from reflection_core.prompt.score import score_prompt

# One synthetic prompt per gap the scorer names, with the previous agent message.
EXAMPLES = {
    "referent_nowhere": ("make slides from this file", None),
    "nothing_to_act_on": ("make it better", None),
    "underspecified": ("clean up utils.py, it has gotten really messy", None),
    "irreversible_step": (
        "yes do all of it",
        "Plan:\n1. Run `DROP TABLE old_users;` on production.\n2. Restart the API.",
    ),
    "invited_questions": ("add a retry to the upload client; ask clarifying questions", None),
    "option_not_offered": ("option 4", "1. Index it.\n2. Cache it.\n3. Drop it.\nWhich one?"),
    "choice_left_open": ("yes", "Should I cache the report or paginate the endpoint?"),
}


@pytest.mark.parametrize("rule", sorted(rules.ASKS))
def test_every_gap_asks_exactly_when_the_table_says_so(rule: str) -> None:
    prompt, prev = EXAMPLES[rule]
    result = score_prompt(prompt, prev)
    assert result.rule == rule
    assert result.needs_clarification is rules.asks(rule)
    reply = build_response(result)
    if rules.asks(rule):
        assert reply.context and result.questions
    else:  # held back: recorded, but no context and no line
        assert reply.context is None and not reply.message


def test_an_unknown_gap_never_asks() -> None:
    assert not rules.asks("a-gap-nobody-measured")


def test_a_task_with_only_a_tip_is_silent_unless_tips_are_on() -> None:
    # Below the pass threshold, no gap that asks: the hook is unsure, so it says nothing.
    result = score_prompt("add dark mode to the settings page", None)
    assert result.action == "note" and result.note and not result.rule
    quiet = build_response(result)
    assert quiet.message is None and quiet.context is None
    shown = build_response(result, tips=True)
    assert shown.message is not None and shown.message.endswith(f" · tip: {result.note}")
    assert shown.context is None


def test_a_clear_task_gets_its_score_line_only_when_asked_for() -> None:
    result = score_prompt(
        "In src/billing/invoice.py, `compute_tax` rounds each line before summing. Sum the "
        "Decimal amounts and round once. Add a test to tests/billing/test_invoice.py.",
        None,
    )
    assert result.action == "pass"
    assert build_response(result).message is None
    shown = build_response(result, show_score=True).message
    assert shown == f"reflection: prompt {result.score:.1f}/5 · backend"
