"""Which reading a stop decision gets: the built-in one, or a paid reader's merged over it.

`read(digest, builtin, cfg, session)` returns `builtin` unchanged unless a paid reader is
configured (`reader.kind` llm, claude or command) AND the built-in reading is uncertain
(or `reader.when: always`) AND the session's and the day's token budgets allow it. A
paid reader gets `reader.timeout_seconds` of wall clock. On a timeout, an HTTP or
process error, malformed output or a spent budget the result is `builtin` with
`error` set, saying which reader failed and why; a failure that is our own bug says
so too. Every paid read is recorded with its tokens and latency (`ledger`).

With `reader.trace_tokens` > 0 and the session at hand, the paid reader also gets the
turn's condensed trace (session/trace.py, capped at that many tokens, redacted); its size
counts in the estimate checked against the budgets. Only such a reader may report the
kinds the turn shows (`TURN_KINDS`); from any other they are dropped.

Merging: a kind the paid reader answered (mentioned with any confidence, 0 included)
replaces the built-in facts of that kind; kinds it did not mention keep the built-in
facts. The paid reader's facts never carry a verdict: the decision reads facts and
evidence, and evidence wins.
"""

from __future__ import annotations

import time

from reflection_core.reading.errors import ReaderError
from reflection_core.reading.facts import TURN_KINDS, Reading
from reflection_core.reading.settings import ReaderSettings, resolve
from reflection_core.records import asdict, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from reflection_core.session.model import Session
    from reflection_core.session.trace import Trace


def read(
    digest: dict[str, Any], builtin: Reading, cfg: Any, session: Session | None = None
) -> Reading:
    """The reading the decision uses for this stop (never raises for a reader's failure)."""
    settings = resolve(cfg)
    if not settings.paid:
        return builtin
    if settings.when == "uncertain" and not builtin.uncertain:
        return builtin
    from reflection_core.reading import ledger  # the paid path only: SQLite, HTTP, processes

    session_id = str(digest.get("session_id") or "")
    started = time.monotonic()
    try:
        trace = turn_trace(session, settings)
        _check_budget(settings, session_id, estimated_tokens(digest, settings, trace))
        paid = seen_only(
            _ask(digest, builtin, settings, started + settings.timeout_s, trace), trace
        )
    except ReaderError as exc:
        return _fall_back(
            builtin, settings, session_id, exc.kind, str(exc), exc.cost_tokens, started
        )
    except Exception as exc:  # our own bug: visible, never a silent pass
        reason = f"internal error {type(exc).__name__}: {exc}"
        return _fall_back(builtin, settings, session_id, "bug", reason, 0, started)
    latency_ms = _elapsed_ms(started)
    ledger.record(session_id, paid.reader, "ok", "", paid.cost_tokens, latency_ms)
    return merge(builtin, replace(paid, latency_ms=latency_ms))


def merge(builtin: Reading, paid: Reading) -> Reading:
    """`paid`'s facts over `builtin`'s, kind by kind (see the module doc)."""
    answered = set(paid.extra.get("answered") or (f.kind for f in paid.facts))
    kept = tuple(f for f in builtin.facts if f.kind not in answered)
    return Reading(
        reader=paid.reader,
        facts=kept + paid.facts,
        uncertain=False,
        cost_tokens=builtin.cost_tokens + paid.cost_tokens,
        latency_ms=builtin.latency_ms + paid.latency_ms,
        error=None,
        extra={
            **builtin.extra,
            "paid": {**paid.extra, "reader": paid.reader, "outcome": "ok"},
            "builtin_facts": [asdict(f) for f in builtin.facts],
            "kept_from_builtin": sorted({f.kind for f in kept}),
        },
    )


def turn_trace(session: Session | None, settings: ReaderSettings) -> Trace | None:
    """The turn's condensed trace for the paid reader, or None (off, or no session)."""
    if session is None or settings.trace_tokens <= 0:
        return None
    from reflection_core.session.trace import build_trace

    return build_trace(session, settings.trace_tokens)


def seen_only(paid: Reading, trace: Trace | None) -> Reading:
    """`paid` without the kinds only the turn shows when it was not shown the turn; with
    what the trace it was shown held, for the record."""
    if trace is not None:
        shown = {"tokens": trace.tokens, "calls": len(trace.calls), "omitted": trace.omitted}
        return replace(paid, extra={**paid.extra, "trace": shown})
    answered = [k for k in paid.extra.get("answered") or () if k not in TURN_KINDS]
    return replace(
        paid,
        facts=tuple(f for f in paid.facts if f.kind not in TURN_KINDS),
        extra={**paid.extra, "answered": answered},
    )


def estimated_tokens(
    digest: dict[str, Any], settings: ReaderSettings, trace: Trace | None = None
) -> int:
    """What one read will likely cost, checked against the budgets before it is made."""
    from reflection_core.reading import prompt
    from reflection_core.verify.providers import estimate_tokens

    if settings.kind == "command":
        return 0  # unknown until the command reports it
    size = estimate_tokens(prompt.system_prompt(trace) + prompt.render_input(digest, trace))
    answer = int(settings.judge.get("max_tokens", 800))
    votes = int(settings.judge.get("votes", 1)) if settings.kind == "llm" else 1
    return (size + answer) * votes


def _check_budget(settings: ReaderSettings, session_id: str, estimate: int) -> None:
    import sqlite3

    from reflection_core.reading import ledger

    try:
        in_session, in_day = ledger.spent(session_id)
    except (OSError, sqlite3.Error) as exc:  # spending unknown: do not spend
        raise ReaderError("budget", f"cannot read what was spent: {exc}") from None
    estimate = max(1, estimate)  # a budget of 0 turns paid reading off
    if in_day + estimate > settings.budget_per_day:
        raise ReaderError(
            "budget",
            f"day budget spent ({in_day} of {settings.budget_per_day} tokens, "
            f"this read needs ~{estimate})",
        )
    if in_session + estimate > settings.budget_per_session:
        raise ReaderError(
            "budget",
            f"session budget spent ({in_session} of {settings.budget_per_session} tokens, "
            f"this read needs ~{estimate})",
        )


def _ask(
    digest: dict[str, Any],
    builtin: Reading,
    settings: ReaderSettings,
    deadline: float,
    trace: Trace | None,
) -> Reading:
    if settings.kind == "llm":
        from reflection_core.reading import llm

        return llm.read(digest, settings, deadline, trace)
    left = deadline - time.monotonic()
    if settings.kind == "claude":
        from reflection_core.reading import claude_cli

        return claude_cli.read(digest, settings, left, trace)
    from reflection_core.reading import command

    return command.read(digest, builtin, settings, left, trace)


def _fall_back(
    builtin: Reading,
    settings: ReaderSettings,
    session_id: str,
    outcome: str,
    reason: str,
    tokens: int,
    started: float,
) -> Reading:
    """`builtin`, with the failure visible in `error` and recorded with what it cost."""
    from reflection_core.reading import ledger

    latency_ms = _elapsed_ms(started)
    ledger.record(session_id, settings.kind, outcome, reason, tokens, latency_ms)
    return replace(
        builtin,
        error=f"{settings.kind} reader not used: {reason}",
        cost_tokens=builtin.cost_tokens + tokens,
        latency_ms=builtin.latency_ms + latency_ms,
        extra={**builtin.extra, "paid": {"reader": settings.kind, "outcome": outcome}},
    )


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
