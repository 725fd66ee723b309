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
    models = settings.llm_models()
    routed = (judge.get("routing") or {}).get(str(digest.get("task_kind") or ""))
    if routed:
        models = [routed, *(m for m in models if m != routed)]
    if not models:
        raise ReaderError("config", "no model: set reader.model or judge.model")
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
    votes = int(judge.get("votes", 1))
    plan = [(models[i % len(models)], i % len(STANCES)) for i in range(votes)]

    def ask(item: tuple[str, int]) -> ParsedReply | None:
        model, stance = item
        system = (prompt.system_prompt(trace) + STANCES[stance]).strip() + "\n"
        answer: ParsedReply | None = asker.ask(
            model, "reader", system, context, lambda text: parse_text(text, source)
        )
        return answer

    with ThreadPoolExecutor(max_workers=min(votes, 4)) as pool:
        answers = [a for a in pool.map(ask, plan) if a is not None]
    tokens_in, tokens_out = log.tokens()
    if not answers:
        last = log.calls[-1] if log.calls else {"outcome": "malformed", "reason": "no answer"}
        kind = "budget" if last["outcome"] == "skipped" else last["outcome"]
        raise ReaderError(kind, str(last["reason"]), tokens_in + tokens_out)
    facts, answered, spread = vote(answers, source)
    review = None
    if judge.get("committee"):
        diff = digest.get("diff")
        if not isinstance(diff, str):
            diff = committee.working_diff(settings.root)
        if diff.strip():
            review = committee.run_committee(asker, models[0], context, diff)
            facts = _with_committee(facts, committee.committee_facts(review, source))
            answered = tuple(dict.fromkeys([*answered, "remaining_work"]))
    tokens_in, tokens_out = log.tokens()
    usd_in = float(judge.get("input_usd_per_mtok", 0.0))
    usd_out = float(judge.get("output_usd_per_mtok", 0.0))
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
            "usd": round((tokens_in * usd_in + tokens_out * usd_out) / 1_000_000, 6),
            "calls": list(log.calls),
        },
    )


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
