"""A reader's reply checked and turned into facts (pure).

Whatever a paid reader says is untrusted: a model, a CLI or a user's command. The
reply must be one JSON object with a `facts` list; inside it, facts of unknown kinds
are dropped, confidences are clamped to 0..1, quotes are cut to `MAX_QUOTE_CHARS`,
and items of the wrong shape are dropped and counted. Keys that would be a verdict
(`status`, `block`, ...) are ignored: a reader reports facts, never the decision.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from reflection_core.lazyre import lazy
from reflection_core.reading.facts import FACT_KINDS, Fact

MAX_QUOTE_CHARS = 200
MAX_FACTS = 3 * len(FACT_KINDS)
_FENCE = lazy(r"^```(?:json)?\s*|\s*```$", re.I)


class ReplyError(ValueError):
    """A reply that is not the required JSON shape; the message says what is wrong."""


@dataclass(frozen=True)
class ParsedReply:
    """The valid facts of a reply, the kinds it answered, and what was thrown away."""

    facts: tuple[Fact, ...]
    answered: tuple[str, ...]  # kinds the reply mentioned, with any confidence (0 included)
    dropped: tuple[str, ...]  # one line per item that was not a usable fact
    ignored_keys: tuple[str, ...]  # top-level keys other than `facts` (verdicts among them)


def extract_json(text: str) -> Any:
    """The JSON object in a reply, tolerating code fences and prose around it."""
    stripped = _FENCE.sub("", text.strip())
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    start, end = stripped.find("{"), stripped.rfind("}")
    if start < 0 or end <= start:
        raise ReplyError("no JSON object in the reply")
    try:
        return json.loads(stripped[start : end + 1])
    except ValueError as exc:
        raise ReplyError(f"invalid JSON: {exc}") from None


def parse_reply(data: Any, source: str) -> ParsedReply:
    """The facts in a decoded reply `{"facts": [{kind, confidence, quote}, ...]}`."""
    if not isinstance(data, dict):
        raise ReplyError(f"the reply must be a JSON object, not {type(data).__name__}")
    items = data.get("facts")
    if not isinstance(items, list):
        raise ReplyError("the reply has no `facts` list")
    facts: list[Fact] = []
    answered: list[str] = []
    dropped: list[str] = []
    for index, item in enumerate(items):
        fact = _fact(item, source)
        if isinstance(fact, str):
            dropped.append(f"facts[{index}]: {fact}")
            continue
        if fact.kind not in answered:
            answered.append(fact.kind)
        if fact.confidence > 0.0 and len(facts) < MAX_FACTS:
            facts.append(fact)
    ignored = tuple(sorted(str(k) for k in data if k != "facts"))
    return ParsedReply(tuple(facts), tuple(answered), tuple(dropped), ignored)


def parse_text(text: str, source: str) -> ParsedReply:
    """`parse_reply` over a model's text answer (fences and prose tolerated)."""
    return parse_reply(extract_json(text), source)


def _fact(item: Any, source: str) -> Fact | str:
    """One valid fact, or the reason the item is not one."""
    if not isinstance(item, dict):
        return f"not an object ({type(item).__name__})"
    kind = item.get("kind")
    if kind not in FACT_KINDS:
        return f"unknown kind {str(kind)[:40]!r}"
    confidence = item.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        return f"{kind}: confidence is not a number"
    if confidence != confidence:  # NaN
        return f"{kind}: confidence is not a number"
    quote = item.get("quote")
    return Fact(
        kind=str(kind),
        confidence=min(1.0, max(0.0, float(confidence))),
        quote=quote.strip()[:MAX_QUOTE_CHARS] if isinstance(quote, str) else "",
        source=source,
    )
