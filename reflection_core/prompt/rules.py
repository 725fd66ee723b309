"""Which gaps may ask the user before the agent starts: the gate, as data.

Every question the scorer would ask names the gap behind it (`PromptScore.rule`).
A gap asks only if, on the labelled real prompts, it was right on at least three
different users and on at least 60% of its flags (`python -m
reflection_core.evals.real_prompts DATA --worst 0` prints the per-rule table).
A gap that fails is still scored and recorded, but stays silent: a needless
question costs a round trip, and the user who gets a few switches the hook off.
"""

from __future__ import annotations

# gap -> asks. Figures (right/wrong flags, distinct users) in docs/prompt.md.
ASKS: dict[str, bool] = {
    "referent_nowhere": True,  # "this file", "option 4", "go ahead": nothing it points at
    "nothing_to_act_on": True,  # ".", a lone word naming nothing, "make it better" cold
    "invited_questions": True,  # "ask clarifying questions if needed": the user wants them
    "underspecified": False,  # a named target with a smell (no repro, no metric): guesses
    "irreversible_step": False,  # a go-ahead to a plan that drops production data
}


def asks(rule: str) -> bool:
    """May a question about this gap reach the user? Unknown gaps never do."""
    return ASKS.get(rule, False)
