"""The LLM reader: the facts prompt over an OpenAI-compatible or Anthropic endpoint.

The model gets the compact evidence digest (never the transcript) and, when
`reader.trace_tokens` > 0, the turn's condensed trace, and answers with JSON facts. With
`judge.votes` > 1 several voters (models x prompt stances) answer in parallel and
`voting.vote` merges them; with `judge.committee` a reviewer and an
auditor read the diff and a disapproval becomes a `remaining_work` fact. The endpoint
is the `judge:` section; `reader.model` overrides `judge.model`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from reflection_core.reading import committee, prompt
from reflection_core.reading.call_log import CallLog, record_calls
from reflection_core.reading.errors import ReaderError
from reflection_core.reading.facts import Reading
from reflection_core.reading.model_calls import Asker, TokenBudget
from reflection_core.reading.reply import ParsedReply, parse_text
from reflection_core.reading.settings import ReaderSettings
from reflection_core.reading.voting import vote
from reflection_core.verify.prompts import STANCES

if TYPE_CHECKING:
    from collections.abc import Mapping

    from reflection_core.session.trace import Trace


def read(
    digest: dict[str, Any], settings: ReaderSettings, deadline: float, trace: Trace | None = None
) -> Reading:
    """The model's reading of `digest` (and `trace`); raises ReaderError when no voter
    answered usably."""
    endpoint = settings.endpoint()
    log = CallLog(provider=endpoint.provider)
    try:
        return _read(digest, settings, deadline, log, trace)
    finally:
        record_calls(log)


def _read(
    digest: dict[str, Any],
    settings: ReaderSettings,
    deadline: float,
    log: CallLog,
    trace: Trace | None,
) -> Reading:
    judge = settings.judge
    models = _models(digest, settings)
    asker = Asker(
        endpoint=settings.endpoint(),
        max_tokens=int(judge.get("max_tokens", 800)),
        budget=TokenBudget(limit=int(judge.get("token_budget", 20000))),
        log=log,
        repair_prompt=prompt.REPAIR,
        deadline=deadline,
    )
    source = f"llm:{models[0]}"
    context = prompt.render_input(digest, trace)
    answers = _voters_answers(asker, models, int(judge.get("votes", 1)), context, trace, source)
    if not answers:
        raise _no_answer(log)
    facts, answered, spread = vote(answers, source)
    review = None
    diff = _diff_for_committee(digest, settings)
    if diff:
        review = committee.run_committee(asker, models[0], context, diff)
        facts = _with_committee(facts, committee.committee_facts(review, source))
        answered = tuple(dict.fromkeys([*answered, "remaining_work"]))
    tokens_in, tokens_out = log.tokens()
    return Reading(
        reader=source,
        facts=facts,
        cost_tokens=tokens_in + tokens_out,
        extra={
            "answered": list(answered),
            "dropped": sorted({d for a in answers for d in a.dropped}),
            "ignored_keys": sorted({k for a in answers for k in a.ignored_keys}),
            "spread": spread,
            "committee": review,
            "review_comments": review["review_comments"] if review else [],
            "usd": _usd(judge, tokens_in, tokens_out),
            "calls": list(log.calls),
        },
    )


def _models(digest: dict[str, Any], settings: ReaderSettings) -> list[str]:
    """The models to ask, the one `judge.routing` names for this task kind first."""
    models = settings.llm_models()
    routed = (settings.judge.get("routing") or {}).get(str(digest.get("task_kind") or ""))
    if routed:
        models = [routed, *(m for m in models if m != routed)]
    if not models:
        raise ReaderError("config", "no model: set reader.model or judge.model")
    return models


def _voters_answers(
    asker: Asker,
    models: list[str],
    votes: int,
    context: str,
    trace: Trace | None,
    source: str,
) -> list[ParsedReply]:
    """The usable answers of `votes` voters (models x stances in turn), asked in parallel."""
    plan = [(models[i % len(models)], i % len(STANCES)) for i in range(votes)]

    def ask(item: tuple[str, int]) -> ParsedReply | None:
        model, stance = item
        system = (prompt.system_prompt(trace) + STANCES[stance]).strip() + "\n"
        answer: ParsedReply | None = asker.ask(
            model, "reader", system, context, lambda text: parse_text(text, source)
        )
        return answer

    with ThreadPoolExecutor(max_workers=min(votes, 4)) as pool:
        return [a for a in pool.map(ask, plan) if a is not None]


def _no_answer(log: CallLog) -> ReaderError:
    """Why no voter answered, from the last call: over budget, timed out, malformed, ..."""
    tokens_in, tokens_out = log.tokens()
    last = log.calls[-1] if log.calls else {"outcome": "malformed", "reason": "no answer"}
    kind = "budget" if last["outcome"] == "skipped" else last["outcome"]
    return ReaderError(kind, str(last["reason"]), tokens_in + tokens_out)


def _diff_for_committee(digest: dict[str, Any], settings: ReaderSettings) -> str:
    """With `judge.committee`, the diff its reviewer and auditor read; '' when none."""
    if not settings.judge.get("committee"):
        return ""
    diff = digest.get("diff")
    if not isinstance(diff, str):
        diff = committee.working_diff(settings.root)
    return diff if diff.strip() else ""


def _usd(judge: Mapping[str, Any], tokens_in: int, tokens_out: int) -> float:
    """The calls' price at the configured per-million-token rates."""
    usd_in = float(judge.get("input_usd_per_mtok", 0.0))
    usd_out = float(judge.get("output_usd_per_mtok", 0.0))
    return round((tokens_in * usd_in + tokens_out * usd_out) / 1_000_000, 6)


def _with_committee(facts: tuple[Any, ...], found: tuple[Any, ...]) -> tuple[Any, ...]:
    """The voters' facts plus the committee's, keeping the stronger `remaining_work`."""
    if not found:
        return facts
    mine = max(
        (f for f in facts if f.kind == "remaining_work"), key=lambda f: f.confidence, default=None
    )
    if mine is not None and mine.confidence >= found[0].confidence:
        return facts
    return tuple(f for f in facts if f.kind != "remaining_work") + found
