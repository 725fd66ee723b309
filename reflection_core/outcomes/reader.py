"""Who reads the next prompt: the built-in phrase tables, or the configured command reader.

The same seam as the stop's reading (`reflection_core.reading.dispatch`): the built-in
reading unless `reader.kind: command` is configured, and then only when the built-in
reading is unsure (its default `moves_on`) or `reader.when: always`. The command gets

    {"next_turn": {"prompt": "...", "asked": bool, "status": "..."},
     "outcomes": {"<name>": "<meaning>", ...}, "builtin": {"outcome": ..., "rule": ...}}

on stdin and prints `{"outcome": "<name>", "rule": "<id>"}`. A failure (exit, timeout,
malformed output) keeps the built-in outcome with `error` saying why. The LLM and
`claude` readers answer the stop's facts, not this question: with them the built-in
reading stands.
"""

from __future__ import annotations

import json

from reflection_core.outcomes.grade import (
    NEXT_PROMPT_OUTCOMES,
    OUTCOME_MEANINGS,
    Graded,
    Previous,
    grade_next_prompt,
)
from reflection_core.records import replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_PROMPT_CHARS = 4000
_UNSURE_RULES = ("moves_on",)


def read_next_turn(prompt: str, previous: Previous, cfg: Any) -> Graded:
    """The outcome of the previous stop; never raises for a reader's failure."""
    builtin = grade_next_prompt(prompt, previous)
    from reflection_core.reading.settings import resolve

    settings = resolve(cfg)
    if settings.kind != "command":
        return builtin
    if settings.when == "uncertain" and builtin.rule not in _UNSURE_RULES:
        return builtin
    try:
        return _ask_command(prompt, previous, builtin, settings)
    except Exception as exc:  # a reader's failure or our bug: visible in the outcome
        return replace(builtin, error=f"command reader not used: {exc}"[:300])


def _ask_command(prompt: str, previous: Previous, builtin: Graded, settings: Any) -> Graded:
    from reflection_core.reading import process

    if not settings.command:
        raise ValueError("reader.kind is command but reader.command is empty")
    payload = {
        "next_turn": {
            "prompt": prompt[:MAX_PROMPT_CHARS],
            "asked": previous.asked,
            "status": previous.status,
        },
        "outcomes": {name: OUTCOME_MEANINGS[name] for name in NEXT_PROMPT_OUTCOMES},
        "builtin": {"outcome": builtin.outcome, "rule": builtin.rule},
    }
    argv = list(settings.command)
    done = process.run(argv, json.dumps(payload, ensure_ascii=False), settings.timeout_s, None)
    if done.returncode != 0:
        raise ValueError(f"{argv[0]} exited {done.returncode}")
    answer = json.loads(done.stdout)
    outcome = answer.get("outcome") if isinstance(answer, dict) else None
    if outcome not in NEXT_PROMPT_OUTCOMES:
        raise ValueError(f"the command answered no known outcome ({str(outcome)[:40]!r})")
    rule = answer.get("rule")
    rule_id = str(rule)[:60] if isinstance(rule, str) and rule else "command"
    return Graded(str(outcome), rule_id, reader="command")
