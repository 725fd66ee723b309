"""Lists, code blocks and quotes are read as what they are (issue: words never push alone)."""

from __future__ import annotations

import pytest

from reflection_core import config
from reflection_core.reading.builtin import read_builtin
from reflection_core.session.categories import drift_markers
from reflection_core.session.decide import DecisionContext, decide
from reflection_core.session.human_action import assess_requests, human_only_kind, prose_of
from tests.unit.sessionbuild import SessionBuilder

NUMBERED_HUMAN_ONLY = """I wired the checkout to the plan's price id; the price must exist first.

Only someone with access to your Stripe account can create it:
1. Open the Stripe dashboard and go to Products.
2. Create a product "Pro" with a monthly price.
3. Paste the price id into PRICE_ID in .env.

Then the checkout works."""

CODE_WITH_QUESTION_MARK = """Fixed the path handling:

```ts
const name = path?.replace('/', '') ?? ''
```

The parser now accepts an empty path."""


def test_a_numbered_list_under_a_human_only_lead_in_is_human_only() -> None:
    found = assess_requests(NUMBERED_HUMAN_ONLY)
    assert [kind for kind, _ in found.human_only] == ["account_access"] * 3
    assert found.blocking
    facts = read_builtin({"final_message": NUMBERED_HUMAN_ONLY, "task_prompt": "Add checkout"})
    assert any(f.kind == "human_only" and f.confidence >= 0.8 for f in facts.facts)


def test_a_numbered_human_only_request_holds_the_stop() -> None:
    session = (
        SessionBuilder("Add the Pro plan checkout")
        .edit("src/checkout.py")
        .bash("pytest -q", output="9 passed")
        .build(NUMBERED_HUMAN_ONLY)
    )
    d = decide(session, DecisionContext(config=config.defaults()))
    assert d.status == "waiting_for_user" and not d.should_block and d.requires_human_action


@pytest.mark.parametrize(
    "sentence",
    [
        "Only someone with access to your AWS account can create the bucket.",
        "I don't have access to your Cloudflare dashboard.",
    ],
)
def test_account_access_is_a_human_only_kind(sentence: str) -> None:
    assert human_only_kind(sentence) == "account_access"


def test_a_numbered_plan_of_the_agents_own_steps_is_not_a_request() -> None:
    plan = "Plan for the fix:\n1. Open the parser module.\n2. Add the empty-path branch."
    assert assess_requests(plan).human_only == [] and assess_requests(plan).questions == []


def test_a_question_mark_inside_code_is_not_a_question() -> None:
    assert "?" not in prose_of(CODE_WITH_QUESTION_MARK)
    assert assess_requests(CODE_WITH_QUESTION_MARK).questions == []
    facts = read_builtin({"final_message": CODE_WITH_QUESTION_MARK, "task_prompt": "Fix it"})
    assert not any(f.kind == "question_for_user" for f in facts.facts)


def test_a_question_mark_inside_inline_code_or_a_quote_is_not_a_question() -> None:
    text = "The log said:\n> is the server up?\nI changed `retry?` handling; it works now."
    assert assess_requests(text).questions == []


def test_work_that_waits_on_the_users_answer_is_a_question_not_remaining_work() -> None:
    final = "I'll implement it as soon as you tell me which one: the Redis cache or the file?"
    assert drift_markers(final) == []
    facts = read_builtin({"final_message": final, "task_prompt": "Add a cache"}).facts
    assert any(f.kind == "question_for_user" and f.confidence >= 0.8 for f in facts)
