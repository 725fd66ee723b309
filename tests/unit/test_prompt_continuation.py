"""Continuation (mode 1): selections and go-aheads skip scoring; unclear referents get asked."""

from __future__ import annotations

import pytest

from reflection_core.prompt.continuation import detect, resolve
from reflection_core.prompt.score import score_prompt

# The checks that doubt a pick or a go-ahead: recorded, silent by the gate (prompt.rules).
_DOUBTS = ("option_not_offered", "choice_left_open")


def _doubted(prompt: str, prev: str) -> bool:
    """Was the reply recorded as doubted (a pick not offered, a choice left open)?"""
    result = score_prompt(prompt, prev)
    assert not result.questions or result.rule not in _DOUBTS  # the gate keeps them silent
    return result.rule in _DOUBTS


MENU = (
    "Three ways to fix it:\n\n1. Add `select_related`.\n2. Add `prefetch_related`.\n"
    "3. Annotate the totals.\n\nWhich of these do you want?"
)


@pytest.mark.parametrize(
    "prompt",
    [
        "1",
        "1 and 2",
        "a and c",
        "2, 3 y 4",
        "option 2",
        "dale, la opción 2",
        "do the plan",
        "go ahead",
        "haz el plan",
        "looks good, go ahead with the plan",
        "yes please",
        "👍",
        "ok fix that too",
        "go with what you recommended",
        "fix all of them",
        "the second one",
    ],
)
def test_continuations_bypass_scoring(prompt: str) -> None:
    result = score_prompt(prompt)
    assert result.skipped
    assert result.action == "pass"
    assert result.smells == ()


@pytest.mark.parametrize(
    "prompt",
    [
        "do it for the payments table and the orders table too",  # > 6 words around "do it"
        "please do it in src/api/users.py without touching the tests",
        "none of these, just revert a91f3e0 for now",
        "the first one, plus a unit test for get_by_id when the id doesn't exist",
        "add retries",
    ],
)
def test_new_instructions_are_not_continuations(prompt: str) -> None:
    assert not detect(prompt).is_continuation
    assert not score_prompt(prompt).skipped


def test_selection_of_an_option_that_was_never_offered_is_recorded_as_doubted() -> None:
    found = resolve(detect("option 4"), MENU, "option 4")
    assert found.rule == "option_not_offered"
    assert "no 4" in str(found.unresolved)
    result = score_prompt("option 4", MENU)
    assert result.skipped and result.rule == "option_not_offered"
    assert result.action == "pass" and not result.questions  # silent: 1 real user so far


def test_selection_of_offered_options_passes() -> None:
    assert score_prompt("1 and 3", MENU).action == "pass"
    assert not _doubted("1 and 3", MENU)


def test_bare_yes_to_an_either_or_question_asks_for_the_choice() -> None:
    prev = "I can either (1) upgrade in place or (2) replicate and cut over. Which do you prefer?"
    assert _doubted("yes", prev)


def test_an_acknowledgement_of_a_report_that_mentions_alternatives_is_not_asked_about() -> None:
    report = "Fixed the import. Depending on your shell, you may need to restart it."
    listed = "Done. You can either restart the worker or wait for the next reload."
    for ack in ("ok", "great", "sounds good", "yes"):
        assert not _doubted(ack, report), ack
        assert not _doubted(ack, listed), ack
    assert _doubted("go ahead", listed)  # which of the two?


def test_go_ahead_after_a_diagnosis_is_left_to_the_agent_not_asked_about() -> None:
    prev = "Tokens live in localStorage and the refresh logic exists in two places."
    assert score_prompt("go for it", prev).action != "ask"


@pytest.mark.parametrize(
    "prev",
    [
        "The build passes now. Let me know if you'd like me to continue with the docs.",
        "The build passes. If you want, the docs are next.",
        "Ready to deploy when you are.",
        "The remaining work is the migration of the user table.",
    ],
)
def test_go_ahead_after_an_offer_worded_as_a_statement_passes(prev: str) -> None:
    assert score_prompt("go ahead", prev).action == "pass"


@pytest.mark.parametrize(
    ("reply", "prev"),
    [
        ("dale", "Puedo migrar la tabla de usuarios ahora."),
        ("go ahead", "现在可以部署新版本。"),
        ("ok go", "Le build passe. Prochaine étape : la migration."),
    ],
)
def test_go_ahead_after_a_message_the_proposal_phrases_cannot_read_passes(
    reply: str, prev: str
) -> None:
    assert score_prompt(reply, prev).action == "pass"


def test_go_ahead_after_a_single_proposal_passes() -> None:
    prev = "I can add `timeout=(3.05, 30)` to every call. Want me to do that?"
    assert score_prompt("go for it", prev).action == "pass"


def test_choice_with_a_recommendation_resolves_a_go_ahead() -> None:
    prev = "1. Debounce the observer.\n2. Drop the observer.\n\nI'd recommend 1."
    found = resolve(detect("go with what you recommended"), prev)
    assert found.unresolved is None


def test_without_a_previous_message_a_continuation_just_passes() -> None:
    assert score_prompt("option 9").action == "pass"


def test_taking_all_items_of_a_list_of_unrelated_fixes_yields_a_task_table() -> None:
    prev = (
        "I noticed:\n1. `scripts/old.py` is unused.\n2. `.github/workflows/lint.yml` runs "
        "Node 16.\n3. `README.md` documents a removed flag."
    )
    result = score_prompt("do all three", prev)
    assert result.skipped
    assert not result.scope.atomic
    assert len(result.scope.tasks) == 3


def test_an_acknowledgement_after_a_report_is_not_asked_about() -> None:
    report = "Done. The migration ran and all tests pass."
    for ack in ("ok", "thanks", "great", "perfect"):
        assert not _doubted(ack, report), ack


@pytest.mark.parametrize(
    "menu",
    [
        "### Option 1\nKeep cron.\n### Option 2\nMove it to Celery beat.",
        "**1.** Keep cron\n**2.** Move it to Celery beat",
        "方案1：保留 cron。方案2：改用 Celery。",
    ],
)
def test_options_numbered_outside_list_syntax_are_offered(menu: str) -> None:
    assert not _doubted("2", menu)
    assert _doubted("4", menu)


def test_a_number_can_pick_a_bullet_of_the_previous_message() -> None:
    findings = "Findings:\n- the cache never expires\n- the retry loop has no cap"
    assert not _doubted("2", findings)
    assert _doubted("4", findings)


@pytest.mark.parametrize(
    "prev",
    [
        "It fails on either Linux or macOS. Should I add a retry?",
        "Depending on your shell you may need to restart it. Want me to add that to the docs?",
        "Two options: cache it or paginate. I'd suggest caching. Shall I start?",
        "We could patch it or rewrite it. I'll patch it first: it is the smaller change.",
        "Should I add the retry or not?",
    ],
)
def test_a_go_ahead_to_a_message_that_settled_its_choice_passes(prev: str) -> None:
    for reply in ("yes", "go ahead"):
        assert not _doubted(reply, prev), (reply, prev)


@pytest.mark.parametrize(
    "prev",
    [
        "Should I fix the parser or rewrite the caller?",
        "Options: keep the flag or remove it. Let me know which.",
        "1. Add an index.\n2. Cache the report.\n\nWhich one?",
    ],
)
def test_a_go_ahead_to_a_message_ending_on_its_choice_is_doubted(prev: str) -> None:
    assert _doubted("yes", prev)


@pytest.mark.parametrize(
    ("reply", "prev"),
    [
        ("b", "Plan A: patch the parser.\n- it is small\n- it is safe\nPlan B: rewrite it."),
        ("the second one", "**A.** Patch it.\n**B.** Rewrite it."),
        ("3", "Three routes: (i) autogenerate, (ii) hand-written SQL, (iii) recreate. Which?"),
        ("2", "| Approach | Effort |\n|---|---|\n| Index | S |\n| Cache | M |\n\nWhich one?"),
        ("8", "1. Threads\n2. Processes\n\nHow many workers should I start?"),
        ("88", "Line lengths differ:\n- ruff: 100\n- black: 88\n\nWhich should we use?"),
        ("2", "### Solution 1 — retry\n### Solution 2 — idempotency key\n\nWhich one?"),
    ],
)
def test_a_pick_in_a_layout_the_lists_do_not_number_is_not_doubted(reply: str, prev: str) -> None:
    assert not _doubted(reply, prev), (reply, prev)


@pytest.mark.parametrize(
    ("reply", "prev"),
    [
        ("4", "| # | Fix |\n|---|---|\n| 1 | Index |\n| 2 | Cache |\n| 3 | View |\n\nWhich one?"),
        ("3", "Tengo dos opciones:\n1. Un índice\n2. Una caché\n\n¿Cuál prefieres?"),
        ("5", "1. Add a cache\n2. Rewrite the query\n3. Add an index\n\nWhich one?"),
    ],
)
def test_a_pick_beyond_numbered_options_is_doubted(reply: str, prev: str) -> None:
    assert _doubted(reply, prev), (reply, prev)
