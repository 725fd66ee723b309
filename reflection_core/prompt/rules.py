"""Which gaps may ask the user before the agent starts: the gate, as data.

Every question the scorer would ask names the gap behind it (`PromptScore.rule`).
A gap asks only if, on the labelled real prompts, it was right on at least three
different users and on at least 60% of its flags (`python -m
reflection_core.evals.real_prompts DATA --worst 0` prints the per-rule table).
A gap that fails is still scored and recorded, but stays silent: a needless
question costs a round trip, and the user who gets a few switches the hook off.
"""

from __future__ import annotations

# gap -> asks, from the per-rule table on the labelled real prompts (522 prompts, 57 users):
# right flags / distinct users, wrong flags / distinct users. See docs/prompt.md.
ASKS: dict[str, bool] = {
    # "this file" with none named, pasted or shown, a dropped screenshot the system has
    # already deleted: right 3 / 3 users, wrong 0.
    "referent_nowhere": True,
    # "option 4" after three numbered options: right 1 / 1 user, wrong 0. Two hunts on
    # hand-written replies found numbers answering "how many?" and picks from layouts the
    # lists do not number taken for it: silent until real users confirm it.
    "option_not_offered": False,
    # "go ahead" to a message still ending on "A or B?": no flag on the real prompts yet.
    "choice_left_open": False,
    # ".", a lone word, a cold request naming nothing: right 2 / 2 users, wrong 2 / 2.
    "nothing_to_act_on": False,
    # "ask clarifying questions if needed": right 2 / 2 users, wrong 1 / 1.
    "invited_questions": False,
    # a named target with a smell (no repro, no metric, "everything"): right 1, wrong 1.
    "underspecified": False,
    # a go-ahead to a plan that drops production data: right 1 / 1 user, wrong 0.
    "irreversible_step": False,
}


def asks(rule: str) -> bool:
    """May a question about this gap reach the user? Unknown gaps never do."""
    return ASKS.get(rule, False)
