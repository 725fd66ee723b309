"""The facts a reader may report, and the `Reading` that carries them.

Kept free of imports from the rest of the package so that every reader (built-in, LLM,
`claude -p`, a user's command) and the decision can depend on it without cycles.
"""

from __future__ import annotations

from reflection_core.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# One line per kind of fact a reader may report about a stop. The decision owns what each
# kind means for the verdict; a reader only says whether the words show it.
FACT_KINDS: tuple[str, ...] = (
    "remaining_work",  # the agent announces work it could still do itself
    "permission_for_requested",  # asks leave for an action the task already asked for
    "punt_to_user",  # hands the user a run, check or retry its own tools can do
    "question_for_user",  # a real question or choice only the user can answer
    "confirm_irreversible",  # asks before a destructive or irreversible action
    "human_only",  # needs the human: credentials, login, payment, approval, hardware
    "deviation",  # did a different task than the one asked
    "claim_contradicted",  # claims success the evidence contradicts
    "stuck",  # gave up, halted on an error, or says it cannot proceed
    "background_pending",  # waiting on background work it started (subagent, shell, CI)
    "host_failure",  # the stop is the host's failure (API error, usage limit, compaction)
    "report_delivered",  # a report-only / read-only task answered in the final message
    "reported_failure",  # the task says something does not work (still, again, the same error)
    "unfinished_work",  # the turn shows the work unfinished where the evidence cannot see it
    "unexercised_change",  # the turn shows the checks that ran never reached the change
)
# Kinds read from the turn's trace (session/trace.py): asked only of a reader given it, and
# dropped from a reader that was not.
TURN_KINDS: tuple[str, ...] = ("unfinished_work", "unexercised_change")


@record(frozen=True)
class Fact:
    """One semantic finding: what kind, how sure, and the words that show it."""

    kind: str
    confidence: float  # 0.0 .. 1.0
    quote: str = ""  # at most ~200 characters from the final message or the prompt
    source: str = "builtin"  # the reader that produced it

    def __post_init__(self) -> None:
        if self.kind not in FACT_KINDS:
            raise ValueError(f"unknown fact kind {self.kind!r}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence {self.confidence!r} is outside 0..1")


@record(frozen=True)
class Reading:
    """What one reader made of a stop's words, with what it cost."""

    reader: str
    facts: tuple[Fact, ...] = ()
    uncertain: bool = False  # the reader itself is unsure: a paid reader may be asked
    cost_tokens: int = 0
    latency_ms: int = 0
    error: str | None = None  # why a reader failed and another reading was used
    extra: dict[str, Any] = field(default_factory=dict)

    def confidence(self, kind: str) -> float:
        """The highest confidence any fact of `kind` has (0.0 when absent)."""
        return max((f.confidence for f in self.facts if f.kind == kind), default=0.0)

    def has(self, kind: str, threshold: float = 0.5) -> bool:
        return self.confidence(kind) >= threshold
