"""Classification reads words and actions: the object of the work decides the class."""

from __future__ import annotations

import pytest

from reflection_core.prompt.score import score_prompt


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        # the seed's known misclassifications, pinned
        ("Fix the Dockerfile build error: `COPY failed: file not found`", "devops"),
        ("Fix the email validation regex in `validators.py` so `a@b.co` passes", "backend"),
        ("Write pytest tests for `slugify()` in app/utils/text.py", "testing"),
        ("the tests fail sometimes in CI", "testing"),
        ("In `web/src/checkout/CheckoutForm.tsx` disable the Pay button while loading", "frontend"),
        (
            "Review the diff on feature/rate-limit for race conditions; don't edit anything",
            "review",
        ),
        (
            "Split app/models.py into a `models/` package with one module per aggregate",
            "architectural",
        ),
        ("switch checkout from Stripe to Adyen", "architectural"),
        ("Pin numpy<2 in requirements.txt; torch fails at import", "devops"),
        ("add pagination to the API", "backend"),
        (
            "What does `@retry_on_conflict` do when the lock is held? Just explain it.",
            "conversational",
        ),
        ("why not 1? it seems simpler to me", "conversational"),
        ("why does the cache miss so often?", "conversational"),  # "cache" as a noun
        ("login is broken, pls fix. and the signup email has the wrong logo", "mixed"),
        ("can you improve the README a bit", "mixed"),
    ],
)
def test_classification(prompt: str, expected: str) -> None:
    assert score_prompt(prompt).classification == expected


def test_question_that_complains_is_a_request_not_a_conversation() -> None:
    result = score_prompt("can the ETL be more efficient? it eats a lot of memory")
    assert result.classification != "conversational"
    assert result.turn == "task"


def test_question_asking_for_a_change_is_a_task() -> None:
    result = score_prompt("Can you add validation for the email field in routes/auth.js?")
    assert result.classification == "backend"


def test_a_testing_task_beside_code_tasks_does_not_make_the_bundle_mixed() -> None:
    result = score_prompt(
        "Two API fixes: (1) return 404 from the `/users/{id}` endpoint when the user is missing, "
        "(2) `tests/test_users.py::test_missing` is xfail right now, make it pass."
    )
    assert not result.scope.atomic
    assert result.classification == "backend"
