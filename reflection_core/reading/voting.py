"""Several readers' answers made one: per kind, the mean confidence over every voter.

Each voter was asked about every kind, so a voter that did not report a kind counts as
confidence 0 for it: a kind that only one of three voters saw ends at a third of that
voter's confidence, and a narrow majority cannot reach a high-confidence fact. Pure.
"""

from __future__ import annotations

import statistics
from typing import Any

from reflection_core.reading.facts import FACT_KINDS, Fact
from reflection_core.reading.reply import ParsedReply


def vote(
    replies: list[ParsedReply], source: str
) -> tuple[tuple[Fact, ...], tuple[str, ...], dict[str, Any]]:
    """(facts, answered kinds, spread) from the valid replies of several voters."""
    if not replies:
        raise ValueError("vote needs at least one reply")
    answered = tuple(k for k in FACT_KINDS if any(k in r.answered for r in replies))
    facts: list[Fact] = []
    spread: dict[str, Any] = {"voters": len(replies), "kinds": {}}
    for kind in answered:
        best = [_best(r, kind) for r in replies]
        confidences = [f.confidence if f else 0.0 for f in best]
        mean = round(statistics.fmean(confidences), 3)
        spread["kinds"][kind] = {
            "saw": sum(c >= 0.5 for c in confidences),
            "stdev": round(statistics.pstdev(confidences), 3),
        }
        if mean <= 0.0:
            continue
        strongest = max((f for f in best if f), key=lambda f: f.confidence)
        facts.append(Fact(kind=kind, confidence=mean, quote=strongest.quote, source=source))
    return tuple(facts), answered, spread


def _best(reply: ParsedReply, kind: str) -> Fact | None:
    return max((f for f in reply.facts if f.kind == kind), key=lambda f: f.confidence, default=None)
