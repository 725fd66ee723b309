"""The five dimensions, 1-5 each, from signals, smells and scope.

clarity of objective, context sufficiency, restrictions declared,
verifiability, and scope fitting one session. Each is a small additive rule
over what the prompt names, so a reader can see why a prompt got its number.
"""

from __future__ import annotations

from reflection_core.prompt.scope import Scope
from reflection_core.prompt.signals import LazyPattern, Signals
from reflection_core.records import NamedTuple

_REQUEST = LazyPattern(
    r"\b(?:we need|i need|i want|need to|should|would like|let'?s|please|can you|could you)\b",
    # matched against lower-cased text
)
_TARGET_VALUE = LazyPattern(
    r"\b(?:to|from|with|as|=)\s+[`\"']?[\w./<>=-]*\d[\w./<>=-]*|\b(?:to|into)\s+`"
)
LONG_PROMPT_WORDS = 400
# (CO*3 + CS*2 + RD*1 + VR*2 + AA*2) / 10; `prompt.weights` overrides these.
DEFAULT_WEIGHTS = {
    "clarity": 3.0,
    "context": 2.0,
    "restrictions": 1.0,
    "verifiability": 2.0,
    "scope": 2.0,
}


class Dimensions(NamedTuple):
    clarity: int
    context: int
    restrictions: int
    verifiability: int
    scope: int

    def to_dict(self) -> dict[str, int]:
        return {
            "clarity": self.clarity,
            "context": self.context,
            "restrictions": self.restrictions,
            "verifiability": self.verifiability,
            "scope": self.scope,
        }


def _clamp(value: float) -> int:
    rounded = round(value)
    return 1 if rounded < 1 else 5 if rounded > 5 else int(rounded)


def _context(sig: Signals, smells: set[str]) -> int:
    """Concrete references a reader could look up, plus observed-vs-wanted behaviour."""
    anchors = sig.anchors
    value = 1 + (anchors >= 0.75) + (anchors >= 1.5) + (anchors >= 3) + (anchors >= 5)
    if sig.expected_actual and anchors < 5:
        value += 1  # what happens and what should: a situation described, not just a length
    value -= ("implicit_context" in smells) + ("bug_without_repro" in smells)
    return _clamp(value)


def _clarity(sig: Signals, smells: set[str], requested: bool, targeted: bool) -> int:
    """An action, a named target, a done-criterion; hedges and open alternatives subtract."""
    value = 1.0
    value += 1 if requested else 0
    value += 1 if (targeted or sig.named_objects) else 0
    value += 1 if (sig.criteria or sig.restrictions or sig.anchors >= 3) else 0
    value += 1 if (sig.expected_actual or sig.examples or sig.anchors >= 1.5) else 0
    value -= 1 if sig.hedges else 0
    value -= ("vague_improvement" in smells) + ("magic_words" in smells)
    value -= ("total_system" in smells) + 0.5 * ("implicit_context" in smells)
    return _clamp(value)


def _restrictions(sig: Signals, smells: set[str]) -> int:
    value = 1 + min(3, len(set(sig.restrictions)))
    if sig.anchors >= 3:
        value += 1  # naming exact places is itself a boundary
    value -= "magic_words" in smells
    return _clamp(value)


def _verifiability(sig: Signals, smells: set[str], requested: bool, targeted: bool) -> int:
    """Tests, behaviour criteria, a metric, a repro, a worked example: each kind counts once."""
    value = 1.0
    if requested and targeted:
        value += 1  # a named change in a named place can be observed
    kinds = {
        "tests": any(
            c.startswith(("test", "pytest", "jest", "spec", "xfail", "assert"))
            for c in sig.criteria
        ),
        "behaviour": any(
            not c.startswith(("test", "pytest", "jest", "spec")) for c in sig.criteria
        ),
        "metric": bool(sig.metrics),
        "repro": sig.has_repro,
        "example": bool(sig.examples),
    }
    value += min(3, sum(kinds.values()))
    value -= ("performance_without_metric" in smells) + ("vague_improvement" in smells)
    return _clamp(value)


def _scope(sig: Signals, scope: Scope, smells: set[str]) -> int:
    value = 5.0
    if not scope.atomic:
        extra = len(scope.tasks) - 1
        value -= 0.5 if scope.override else min(2.5, 1 + 0.5 * extra)
    value -= 2 * ("total_system" in smells)
    if sig.words > LONG_PROMPT_WORDS:
        value -= 1  # the one place length counts: a very long prompt rarely fits one session
    return _clamp(value)


def rate(text: str, sig: Signals, scope: Scope, smell_ids: set[str]) -> Dimensions:
    """Pure: the five 1-5 ratings."""
    text = text.lower()
    # An action asked for and a target named: clarity and verifiability both read them.
    requested = bool(sig.verbs) or _REQUEST.search(text) is not None
    targeted = sig.anchors >= 0.75 or _TARGET_VALUE.search(text) is not None
    return Dimensions(
        clarity=_clarity(sig, smell_ids, requested, targeted),
        context=_context(sig, smell_ids),
        restrictions=_restrictions(sig, smell_ids),
        verifiability=_verifiability(sig, smell_ids, requested, targeted),
        scope=_scope(sig, scope, smell_ids),
    )
