"""The seven smells: each fires on its shape and stays quiet once the prompt resolves it."""

from __future__ import annotations

import pytest

from reflection_core.prompt.score import score_prompt
from reflection_core.prompt.smells import QUESTION_TEMPLATES, SMELL_IDS


def _smells(prompt: str) -> dict[str, str]:
    return {s.id: s.evidence for s in score_prompt(prompt).smells}


@pytest.mark.parametrize(
    ("prompt", "smell", "evidence"),
    [
        ("pick a retry policy however you think is best", "magic_words", "however you think"),
        ("add toasts, retries, sentry logging etc.", "magic_words", "etc."),
        ("kindly do the needful for the payments page", "magic_words", "do the needful"),
        ("fix the login bug and also add dark mode to settings", "scope_creep", "2 tasks"),
        ("set up the staging deploy the usual way", "implicit_context", "the usual way"),
        ("wire up the CI pipeline as we discussed", "implicit_context", "as we discussed"),
        ("do the same thing for the orders table", "implicit_context", "the same thing"),
        ("clean up utils.py, it's gotten really messy", "vague_improvement", "clean up"),
        ("refactor the auth module so it's easier to work with", "vague_improvement", "refactor"),
        ("add type hints to all the code", "total_system", "all the code"),
        ("make everything prettier", "total_system", "everything"),
        ("fix the paths across my entire laptop", "total_system", "entire laptop"),
        ("the tests fail sometimes in CI", "bug_without_repro", "fail"),
        ("login is broken again, pls fix", "bug_without_repro", "broken"),
        ("the dashboard takes forever to load, make it faster", "performance_without_metric", ""),
        (
            "can the ETL be more efficient? it eats a lot of memory",
            "performance_without_metric",
            "",
        ),
    ],
)
def test_smell_fires_with_its_evidence(prompt: str, smell: str, evidence: str) -> None:
    found = _smells(prompt)
    assert smell in found, found
    assert evidence.lower() in found[smell].lower()


@pytest.mark.parametrize(
    ("prompt", "absent"),
    [
        # a metric-backed optimisation is neither vague nor missing a metric
        (
            "optimize the query in reports/monthly.py so EXPLAIN shows an index scan",
            {"vague_improvement", "performance_without_metric"},
        ),
        (
            "Make `/search` faster: p95 is ~1.8 s under `k6 run load/search.js`; "
            "get it under 300 ms",
            {"performance_without_metric"},
        ),
        # an improvement with a concrete target
        (
            "Improve the error when config.yaml is missing: instead of the traceback, print "
            "`config.yaml not found` and exit with code 2.",
            {"vague_improvement"},
        ),
        (
            "Refactor `OrderService.place_order` in services/orders.py by extracting the payment "
            "capture into a private method. No behavior change.",
            {"vague_improvement"},
        ),
        # the referent is named right after "the same way"
        (
            "Handle it the same way `read_csv_rows` handles a BOM in ingest/readers.py",
            {"implicit_context", "magic_words"},
        ),
        # "every" bounded by a named package is not the whole system
        (
            "Replace every `print(` with `logger.info(` across the entire `etl/` package",
            {"total_system"},
        ),
        # a bug report with the error text is reproducible
        (
            "`acme export` dies with `ValueError: Invalid isoformat string` from cli/export.py "
            "line 41. Accept a trailing Z.",
            {"bug_without_repro"},
        ),
        # a test added alongside a fix is not a second task
        (
            "Fix `calc_discount` for percent coupons and add a test for a one-item cart",
            {"scope_creep"},
        ),
        ("add caching", set(SMELL_IDS)),  # underspecified, but no smell: the score handles it
    ],
)
def test_smell_stays_quiet_when_the_prompt_resolves_it(prompt: str, absent: set[str]) -> None:
    assert not (absent & set(_smells(prompt)))


def test_every_smell_has_a_question_that_makes_the_constraint_explicit() -> None:
    assert set(QUESTION_TEMPLATES) == set(SMELL_IDS)
    result = score_prompt("make everything faster, the usual way, etc.")
    for smell in result.smells:
        assert smell.question.rstrip().endswith("?")
        assert "don't understand" not in smell.question


def test_smell_evidence_keeps_the_users_casing() -> None:
    found = _smells("Set up the staging deploy The Usual Way")
    assert found["implicit_context"] == "The Usual Way"
