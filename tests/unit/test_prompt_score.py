"""score_prompt: the contract fields, the composite, actions, bypass, truncation, robustness."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from reflection_core.config import Config, defaults
from reflection_core.prompt import questions, rules
from reflection_core.prompt.dimensions import Dimensions
from reflection_core.prompt.score import action_for, composite, score_prompt

GOOD = (
    "In src/billing/invoice.py, `compute_tax` rounds every line item before summing, so "
    "invoices are off by a cent. Sum the unrounded Decimal amounts and round once with "
    "ROUND_HALF_UP. Add a test to tests/billing/test_invoice.py with three items at 0.335 each."
)
CONTRACT_KEYS = {
    "score",
    "action",
    "skipped",
    "dimensions",
    "smells",
    "classification",
    "questions",
    "reformulation",
    "scope",
    "live_context_bonus",
}


def _cfg(**prompt_overrides: object) -> Config:
    data = defaults()
    data["prompt"].update(prompt_overrides)
    return Config(data=data)


def test_to_dict_has_every_contract_field_with_its_type() -> None:
    result = score_prompt(GOOD).to_dict()
    assert set(result) >= CONTRACT_KEYS
    assert 1.0 <= result["score"] <= 5.0
    assert result["action"] in ("pass", "note", "ask", "reformulate", "skip")
    assert set(result["dimensions"]) == {
        "clarity",
        "context",
        "restrictions",
        "verifiability",
        "scope",
    }
    assert all(1 <= v <= 5 for v in result["dimensions"].values())
    assert set(result["scope"]) == {"atomic", "tasks"}
    assert isinstance(result["live_context_bonus"], bool)


def test_composite_uses_the_documented_weights() -> None:
    dims = Dimensions(clarity=5, context=4, restrictions=1, verifiability=3, scope=5)
    weights = {"clarity": 3, "context": 2, "restrictions": 1, "verifiability": 2, "scope": 2}
    assert composite(dims, weights) == (5 * 3 + 4 * 2 + 1 * 1 + 3 * 2 + 5 * 2) / 10


def test_actions_follow_the_thresholds_at_their_edges() -> None:
    thresholds = {"pass": 4.0, "note": 3.0, "ask": 2.0}
    assert action_for(4.0, thresholds) == "pass"
    assert action_for(3.9, thresholds) == "note"
    assert action_for(3.0, thresholds) == "note"
    assert action_for(2.9, thresholds) == "ask"
    assert action_for(2.0, thresholds) == "ask"
    assert action_for(1.9, thresholds) == "reformulate"


def test_precise_prompt_passes_quietly_without_questions() -> None:
    result = score_prompt(GOOD)
    assert result.action == "pass"
    assert result.questions == ()
    assert result.smells == ()
    assert result.classification == "backend"


def test_a_feature_for_a_file_nobody_supplied_gets_the_question_about_the_file() -> None:
    result = score_prompt("add caching to this file")
    assert result.action in ("ask", "reformulate")
    assert len(result.questions) == 1 and "this file" in result.questions[0]


def test_questions_are_warm_and_never_say_i_dont_understand() -> None:
    for prompt in ("make it better", "add retries", "fix the login bug and also add dark mode"):
        result = score_prompt(prompt)
        assert len(result.questions) <= 3
        for question in result.questions:
            assert "don't understand" not in question.lower()
            assert "?" in question


def test_very_vague_prompt_gets_a_reformulation_template_with_placeholders() -> None:
    result = score_prompt("make everything in this file better")
    assert result.action == "reformulate"
    assert result.reformulation is not None
    assert "Goal: make everything in this file better" in result.reformulation
    assert "Done when: <" in result.reformulation


def test_note_action_carries_exactly_one_suggestion() -> None:
    result = score_prompt("bump version to 2.4.1")
    assert result.action == "note"
    assert result.note
    assert result.questions == ()


def test_weights_and_thresholds_come_from_config() -> None:
    strict = _cfg(thresholds={"pass": 5.0, "note": 4.9, "ask": 4.8})
    assert score_prompt(GOOD, cfg=strict).action == "note"  # a low score alone never asks
    lenient = _cfg(thresholds={"pass": 2.0, "note": 1.5, "ask": 1.0})
    assert score_prompt("add rate limiting").action == "note"
    assert score_prompt("add rate limiting", cfg=lenient).action == "pass"
    only_scope = _cfg(
        weights={"clarity": 0, "context": 0, "restrictions": 0, "verifiability": 0, "scope": 1}
    )
    assert score_prompt("add caching to this file", cfg=only_scope).score == 5.0


def test_bypass_prefix_and_slash_commands_skip_evaluation() -> None:
    for prompt in ("* just do whatever", "/compact", "  /review"):
        result = score_prompt(prompt)
        assert result.action == "skip"
        assert result.skipped
    custom = _cfg(bypass_prefix=["!!"])
    assert score_prompt("!! anything", cfg=custom).action == "skip"
    assert score_prompt("* not bypassed now", cfg=custom).action != "skip"


def test_conversational_prompt_is_not_scored_as_a_task() -> None:
    result = score_prompt(
        "What exactly does the `@retry_on_conflict` decorator in storage/locks.py do when the "
        "row lock is already held? Just explain it, don't change anything."
    )
    assert result.classification == "conversational"
    assert result.action == "pass"
    assert result.questions == ()


def test_mixed_prompt_gets_a_decomposition_and_no_question() -> None:
    result = score_prompt(
        "Add a `--verbose` flag to scripts/sync.py that logs each file it copies, and while "
        "you're at it bump the boto3 pin in requirements.txt to 1.34.x."
    )
    assert result.classification == "mixed"
    assert len(result.decomposition) == 2
    assert result.decomposition[0].startswith("1. ")
    assert result.questions == ()


def test_prompt_over_max_chars_is_truncated_with_a_flag() -> None:
    cfg = _cfg(max_chars=1000)
    result = score_prompt("fix the parser in src/parse.py " * 200, cfg=cfg)
    assert result.truncated
    assert result.to_dict()["truncated"] is True


def test_one_megabyte_prompt_scores_in_well_under_a_few_seconds() -> None:
    # A guard against catastrophic regexes, not a speed target (see benchmarks/).
    big = ("Refactor `parse_row` in etl/rows.py; tests must pass. " * 20000)[:1_000_000]
    start = time.perf_counter()
    result = score_prompt(big)
    assert time.perf_counter() - start < 20
    assert 1.0 <= result.score <= 5.0


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=300)))
def test_no_input_crashes_the_scorer(prompt: str, prev: str | None) -> None:
    result = score_prompt(prompt, prev)
    data = result.to_dict()
    json.dumps(data, ensure_ascii=False).encode("utf-8")  # printable, even from lone surrogates
    assert 1.0 <= data["score"] <= 5.0
    assert len(data["questions"]) <= 3
    assert data["action"] in ("pass", "note", "ask", "reformulate", "skip")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["fix", "1", "and", "also", "`x`", "a/b.py", "etc.", "(1)", "\n- ", "?", "ok", "*"]
        ),
        max_size=40,
    )
)
def test_no_combination_of_trigger_tokens_crashes_the_scorer(tokens: list[str]) -> None:
    result = score_prompt(" ".join(tokens), "1. one\n2. two")
    assert result.action in ("pass", "note", "ask", "reformulate", "skip")


def _questions(prompt: str) -> list[str]:
    """The questions the scorer would choose, whether or not the gate lets them through."""
    result = score_prompt(prompt)
    found = list(result.smells)
    pairs = questions.choose(found, result.dimensions, result.scope, 3, result.classification)
    return [question for _, question in pairs]


def test_questions_are_tailored_to_the_class() -> None:
    assert score_prompt("support dark mode").classification == "frontend"
    assert "screen or component" in _questions("support dark mode")[0]
    assert score_prompt("set up the staging deploy").classification == "devops"
    assert "Dockerfile" in _questions("set up the staging deploy")[0]


def test_lone_surrogates_are_replaced_so_the_result_can_be_printed() -> None:
    result = score_prompt("make everything \ud800 better", "1. a\ud800\n2. b")
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    assert "\ud800" not in (result.reformulation or "")


def test_length_alone_earns_no_specificity() -> None:
    short = score_prompt("add retries to the upload client")
    padded = score_prompt(
        "so we have been talking about this for a while now and I really think that at this "
        "point in time it would be good to finally add retries to the upload client"
    )
    assert padded.dimensions.clarity <= short.dimensions.clarity
    assert padded.dimensions.context <= short.dimensions.context
    assert padded.dimensions.verifiability <= short.dimensions.verifiability


def test_observed_versus_wanted_behaviour_and_examples_raise_the_score() -> None:
    bare = score_prompt("fix `parse_price` in shop/money.py")
    described = score_prompt(
        "fix `parse_price` in shop/money.py: it returns 1250 for '12,50' instead of 12.5, "
        "e.g. parse_price('3,99') should be 3.99"
    )
    assert described.dimensions.context > bare.dimensions.context
    assert described.dimensions.verifiability > bare.dimensions.verifiability
    assert described.score > bare.score


def test_a_choice_left_open_on_a_named_target_is_held_back_but_recorded() -> None:
    result = score_prompt(
        "Write `round_price(value)` in shop/money.py that rounds either half up or half even."
    )
    assert not result.needs_clarification
    assert result.questions == ()
    assert result.rule == "underspecified"  # the gap is known, the gate keeps it silent
    assert not rules.asks("underspecified")
