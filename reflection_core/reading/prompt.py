"""What a paid reader is told: one system prompt and the evidence digest, capped and redacted.

The digest is the decision's compact evidence (task prompt, trimmed final message,
task kind, last command and check, changed files, pushes, background work, host
failure markers, plan mode). It is sent as JSON with every string and list capped,
so a reader's input stays a few thousand tokens however long the session was. With
`reader.trace_tokens` > 0 the turn's condensed trace follows it (session/trace.py), and
the prompt asks for the kinds only the turn can show (`TURN_KINDS`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from reflection_core.reading.facts import FACT_KINDS, TURN_KINDS

if TYPE_CHECKING:  # the trace is built on the paid path only
    from reflection_core.session.trace import Trace

MAX_DIGEST_CHARS = 10000  # about 2,500 tokens
# (longest string, longest list), tried in order until the digest fits; a string over
# its cap keeps its head and its tail.
CAPS = ((1500, 20), (600, 10), (240, 5), (100, 3))
MAX_DEPTH = 4

# What each fact kind means, in the words a reader is given. A test keeps it in step
# with FACT_KINDS.
KIND_MEANINGS: dict[str, str] = {
    "remaining_work": "the final message announces work the agent could still do itself",
    "permission_for_requested": "it asks leave for an action the task already asked for",
    "question_for_user": "it asks a real question or offers a choice only the user can make",
    "confirm_irreversible": "it asks to confirm before a destructive or irreversible action",
    "human_only": "it needs the human: credentials, a login, payment, approval, hardware",
    "deviation": "it did a different task than the one the prompt asked for",
    "claim_contradicted": "it claims success that the digest's evidence contradicts",
    "stuck": "it gave up, halted on an error, or says it cannot proceed",
    "background_pending": "it waits on background work it started (subagent, shell, CI run)",
    "host_failure": "the stop is the host's failure (API error, usage limit, compaction)",
    "report_delivered": "a report-only or read-only task was answered in the final message",
    "punt_to_user": "it hands the user a run, check or retry that its own tools could do",
    "reported_failure": "the task prompt says something does not work, still fails or errors",
    "unfinished_work": "the work is not done although the evidence looks fine: the fix treats "
    "a symptom, not the cause; the result lacks what the task asked for; part of it was skipped",
    "unexercised_change": "the checks that ran after the change never reach it (another module "
    "or test, skipped, mocked away, the old build)",
}

_INTRO = (
    "You read why a coding agent stopped. You get JSON: the task prompt, the agent's final\n"
    "message and the evidence recorded from its session (commands, checks, changed files,\n"
    "pushes, background work). The evidence is true; words that contradict it are not.\n"
    "Report which of these facts the words show, each with your confidence 0.0-1.0:\n"
)
_DIGEST_KINDS = "".join(
    f"- {kind}: {KIND_MEANINGS[kind]}\n" for kind in FACT_KINDS if kind not in TURN_KINDS
)
_TURN = (
    "After the JSON comes a TRACE OF THE TURN: the task's tool calls in order (#N is the\n"
    "record index), how each ended and the last lines of its result, then the final\n"
    "message. From the trace, also report whether the work is unfinished in a way the\n"
    "evidence cannot show:\n"
    + "".join(f"- {kind}: {KIND_MEANINGS[kind]}\n" for kind in TURN_KINDS)
    + "For these two, `quote` is a one-line reason naming the calls (#N) it rests on and\n"
    "what is missing. Be sure (0.9 or more) only when the trace shows it plainly.\n"
)
_ANSWER = (
    "List every kind once, with confidence 0 when the words do not show it. `quote` is the\n"
    "shortest phrase (under 200 characters) from the final message or the prompt that shows\n"
    "it. Do not judge whether the task is complete; report facts only.\n"
    "Answer with ONE JSON object and nothing else:\n"
    '{"facts": [{"kind": "<kind>", "confidence": <0.0-1.0>, "quote": "<phrase>"}, ...]}\n'
)
SYSTEM = _INTRO + _DIGEST_KINDS + _ANSWER
# The system prompt of a reader that also gets the turn's trace.
TURN_SYSTEM = _INTRO + _DIGEST_KINDS + _TURN + _ANSWER


def system_prompt(trace: Trace | None) -> str:
    return TURN_SYSTEM if trace is not None else SYSTEM


def kinds_asked(trace: Trace | None) -> dict[str, str]:
    """The kinds a reader is asked about, with their meanings (the turn's only with it)."""
    return {k: v for k, v in KIND_MEANINGS.items() if trace is not None or k not in TURN_KINDS}


REPAIR = (
    "Your reply could not be used: {error}. Reply again with only the JSON object "
    '{{"facts": [...]}}, no prose and no code fences.'
)


def compact(value: Any, string_cap: int = 1500, list_cap: int = 20, depth: int = 0) -> Any:
    """`value` with long strings cut to head and tail, long lists cut, deep nesting flattened."""
    if isinstance(value, str):
        if len(value) <= string_cap:
            return value
        half = string_cap // 2
        return value[:half] + " [...] " + value[-half:]
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    if depth >= MAX_DEPTH:
        return compact(json.dumps(value, default=str), string_cap, list_cap, depth)
    if isinstance(value, dict):
        items = list(value.items())[: list_cap * 2]
        return {str(k): compact(v, string_cap, list_cap, depth + 1) for k, v in items}
    if isinstance(value, (list, tuple)):
        kept = [compact(v, string_cap, list_cap, depth + 1) for v in list(value)[:list_cap]]
        if len(value) > list_cap:
            kept.append(f"[... {len(value) - list_cap} more]")
        return kept
    return compact(str(value), string_cap, list_cap, depth)


def digest_payload(digest: dict[str, Any]) -> Any:
    """The digest as a reader receives it: compacted until it fits, secrets redacted."""
    from reflection_core.redact import redact_obj

    for string_cap, list_cap in CAPS:
        payload = compact(digest, string_cap, list_cap)
        if len(json.dumps(payload, ensure_ascii=False)) <= MAX_DIGEST_CHARS:
            break
    return redact_obj(payload)


def render_digest(digest: dict[str, Any]) -> str:
    """The compacted, redacted digest as JSON."""
    return json.dumps(digest_payload(digest), ensure_ascii=False, separators=(",", ":"))


def render_input(digest: dict[str, Any], trace: Trace | None) -> str:
    """The user message for a model reader: the digest, then the turn's trace if any (built
    redacted and within its cap)."""
    rendered = render_digest(digest)
    return rendered if trace is None else f"{rendered}\n\n{trace.text}"
