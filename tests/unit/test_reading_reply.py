"""A reader's reply turned into facts; the prompt; the digest's size; voting; merging."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reflection_core.reading import prompt
from reflection_core.reading.dispatch import merge
from reflection_core.reading.facts import FACT_KINDS, TURN_KINDS, Fact, Reading
from reflection_core.reading.reply import (
    MAX_QUOTE_CHARS,
    ReplyError,
    parse_reply,
    parse_text,
)
from reflection_core.reading.voting import vote
from reflection_core.verify.providers import estimate_tokens
from tests.readerutil import builtin, digest


def fact(kind: str, confidence: Any, quote: Any = "q") -> dict[str, Any]:
    return {"kind": kind, "confidence": confidence, "quote": quote}


def test_valid_facts_parse_with_their_source() -> None:
    parsed = parse_reply({"facts": [fact("stuck", 0.8, "I cannot proceed")]}, "llm:m")
    assert parsed.facts == (Fact("stuck", 0.8, "I cannot proceed", "llm:m"),)
    assert parsed.answered == ("stuck",) and parsed.dropped == ()


def test_unknown_kinds_are_dropped_and_named() -> None:
    parsed = parse_reply({"facts": [fact("finished", 0.9), fact("stuck", 0.7)]}, "x")
    assert [f.kind for f in parsed.facts] == ["stuck"]
    assert parsed.dropped == ("facts[0]: unknown kind 'finished'",)


@pytest.mark.parametrize(("given", "clamped"), [(1.7, 1.0), (-0.2, 0.0), (1, 1.0)])
def test_confidences_are_clamped(given: float, clamped: float) -> None:
    parsed = parse_reply({"facts": [fact("human_only", given)]}, "x")
    assert parsed.answered == ("human_only",)
    assert [f.confidence for f in parsed.facts] == ([clamped] if clamped else [])


@pytest.mark.parametrize("bad", ["0.9", True, None, float("nan"), [0.9]])
def test_a_confidence_of_the_wrong_type_drops_that_fact(bad: Any) -> None:
    parsed = parse_reply({"facts": [fact("stuck", bad), fact("deviation", 0.6)]}, "x")
    assert [f.kind for f in parsed.facts] == ["deviation"]
    assert parsed.dropped == ("facts[0]: stuck: confidence is not a number",)


def test_quotes_are_truncated_and_non_strings_emptied() -> None:
    parsed = parse_reply(
        {"facts": [fact("stuck", 0.9, "x" * 5000), fact("deviation", 0.9, {"a": 1})]}, "x"
    )
    assert len(parsed.facts[0].quote) == MAX_QUOTE_CHARS
    assert parsed.facts[1].quote == ""


def test_zero_confidence_answers_a_kind_without_making_a_fact() -> None:
    parsed = parse_reply({"facts": [fact("question_for_user", 0), fact("stuck", 0.0)]}, "x")
    assert parsed.facts == () and parsed.answered == ("question_for_user", "stuck")


def test_a_verdict_in_the_reply_is_ignored() -> None:
    data = {"status": "complete", "block": False, "facts": [fact("report_delivered", 0.9)]}
    parsed = parse_reply(data, "x")
    assert [f.kind for f in parsed.facts] == ["report_delivered"]
    assert parsed.ignored_keys == ("block", "status")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "must be a JSON object"),
        ({"status": "complete"}, "no `facts` list"),
        ({"facts": "stuck"}, "no `facts` list"),
    ],
)
def test_replies_of_the_wrong_shape_are_rejected(data: Any, message: str) -> None:
    with pytest.raises(ReplyError, match=message):
        parse_reply(data, "x")


def test_items_that_are_not_objects_are_dropped() -> None:
    parsed = parse_reply({"facts": ["stuck", 3, fact("stuck", 0.5)]}, "x")
    assert len(parsed.facts) == 1 and len(parsed.dropped) == 2


def test_fenced_text_with_prose_parses_and_prose_alone_does_not() -> None:
    text = "Here:\n```json\n" + json.dumps({"facts": [fact("stuck", 0.6)]}) + "\n```"
    assert parse_text(text, "x").facts[0].kind == "stuck"
    with pytest.raises(ReplyError, match="no JSON object"):
        parse_text("The agent is done.", "x")


def test_the_prompt_explains_every_fact_kind_and_nothing_else() -> None:
    assert set(prompt.KIND_MEANINGS) == set(FACT_KINDS)
    for kind in FACT_KINDS:
        assert f"- {kind}: " in prompt.TURN_SYSTEM
        assert (f"- {kind}: " in prompt.SYSTEM) == (kind not in TURN_KINDS)


def test_the_system_prompt_stays_small() -> None:
    assert estimate_tokens(prompt.SYSTEM) < 600
    assert estimate_tokens(prompt.TURN_SYSTEM) < 800


def test_the_digest_is_capped_however_long_the_session_was() -> None:
    huge = "word " * 20000
    worst = digest(
        task_prompt=huge,
        final_message=huge,
        last_command={"command": huge, "outcome": huge},
        last_check={"command": huge, "passed": False},
        changed_files=[f"src/file_{i}.py" for i in range(500)],
        pushes=[{"ref": huge}] * 50,
        background=[huge] * 50,
        host_failure=huge,
    )
    rendered = prompt.render_digest(worst)
    assert estimate_tokens(rendered) <= 2500
    payload = json.loads(rendered)
    assert payload["task_prompt"].startswith("word word") and "[...]" in payload["task_prompt"]
    assert payload["changed_files"][-1].endswith(" more]")


def test_a_typical_digest_is_a_few_hundred_tokens() -> None:
    assert estimate_tokens(prompt.render_digest(digest())) < 300


def test_secrets_in_the_digest_are_redacted() -> None:
    secret = "sk-proj-abcdefghijklmnopqrstuvwx"
    rendered = prompt.render_digest(digest(final_message=f"deployed with key {secret}"))
    assert secret not in rendered


def test_voting_averages_over_every_voter_and_keeps_the_strongest_quote() -> None:
    one = parse_reply({"facts": [fact("stuck", 0.9, "halted"), fact("deviation", 0)]}, "v")
    two = parse_reply({"facts": [fact("stuck", 0.6, "gave up")]}, "v")
    three = parse_reply({"facts": [fact("human_only", 0.9, "log in")]}, "v")
    facts, answered, spread = vote([one, two, three], "llm:m")
    by_kind = {f.kind: f for f in facts}
    assert by_kind["stuck"].confidence == pytest.approx(0.5)
    assert by_kind["stuck"].quote == "halted"
    assert by_kind["human_only"].confidence == pytest.approx(0.3)
    assert "deviation" in answered and "deviation" not in by_kind
    assert spread["kinds"]["stuck"]["saw"] == 2


def test_merge_replaces_only_the_kinds_the_paid_reader_answered() -> None:
    base = builtin(
        True,
        Fact("remaining_work", 0.45, "next I will", "builtin"),
        Fact("human_only", 0.9, "log in manually", "builtin"),
    )
    paid = Reading(
        reader="claude:haiku",
        facts=(Fact("stuck", 0.7, "cannot proceed", "claude:haiku"),),
        cost_tokens=900,
        latency_ms=1200,
        extra={"answered": ["remaining_work", "stuck"]},
    )
    merged = merge(base, paid)
    assert {(f.kind, f.source) for f in merged.facts} == {
        ("human_only", "builtin"),
        ("stuck", "claude:haiku"),
    }
    assert merged.uncertain is False and merged.error is None
    assert merged.cost_tokens == 900 and merged.latency_ms == 1200
    assert merged.extra["rules"] == "phrase families"  # the built-in's own notes survive
    assert merged.extra["kept_from_builtin"] == ["human_only"]
