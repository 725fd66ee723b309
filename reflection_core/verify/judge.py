"""The verdict judge: a model's complete/incomplete verdict on a stop, under evidence.

Used by the promptfoo LLM-judge eval, which compares a model's verdict with the
labels. The Stop decision does not take verdicts: it takes facts from a reader
(`reflection_core.reading`); the LLM reader shares this module's machinery (asking
with one repair under a token budget, voting, the committee, the call log).

The deterministic evidence is given to the model and always wins (`judge_evidence`).
With `judge.votes` > 1 several judges (models x stances) vote; with
`judge.committee` a reviewer and an auditor read the diff. `second_opinion` never
raises: on any failure it returns None and the reason is in the call log.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from reflection_core.config import Config
from reflection_core.reading import committee
from reflection_core.reading.call_log import CallLog, record_calls
from reflection_core.reading.model_calls import Asker, TokenBudget
from reflection_core.reading.settings import judge_endpoint
from reflection_core.verify import prompts
from reflection_core.verify.judge_evidence import apply_evidence, evidence_facts
from reflection_core.verify.judge_schema import parse_verdict
from reflection_core.verify.voting import aggregate

MAX_CONTEXT_CHARS = 12000
# Evidence keys the judge context places itself; everything else goes in `other_evidence`.
_CONTEXT_KEYS = frozenset(
    {
        "task_prompt",
        "last_assistant_message",
        "tests",
        "build",
        "pr",
        "diff",
        "task_category",
        "judge",
    }
)
_RULES = (
    "status",
    "stop_category",
    "task_type",
    "missing",
    "severity",
    "unsupported_claims",
    "changed_paths",
    "human_actions",
)


def route_model(category: str | None, cfg: Config) -> str | None:
    """The model configured for a task category (`judge.routing`), if any."""
    routing: dict[str, str] = cfg.get("judge.routing") or {}
    return routing.get(category) if category else None


def judge_context(decision: dict[str, Any], evidence: dict[str, Any], facts: dict[str, Any]) -> str:
    """The user message: task, final message, rules' decision and the evidence, redacted, capped."""
    from reflection_core.redact import redact_obj

    other = {k: v for k, v in evidence.items() if k not in _CONTEXT_KEYS}
    payload = {
        "task": str(evidence.get("task_prompt") or decision.get("task_prompt") or "")[:3000],
        "final_message": str(evidence.get("last_assistant_message") or "")[-3000:],
        "deterministic_decision": {k: decision.get(k) for k in _RULES if k in decision},
        "deterministic_evidence": facts,
        "other_evidence": json.dumps(other, default=str)[:3000] if other else None,
    }
    text = json.dumps(redact_obj(payload), ensure_ascii=False, default=str)
    return text[:MAX_CONTEXT_CHARS]


def second_opinion(
    decision: dict[str, Any], evidence: dict[str, Any], cfg: Config
) -> dict[str, Any] | None:
    """The judge's verdict merged with the evidence; None when off or when no judge answered."""
    provider = cfg.get("judge.provider")
    if provider == "none":
        return None
    log = CallLog(provider=str(provider))
    try:
        return _second_opinion(decision, evidence, cfg, log)
    except Exception as exc:  # never break the caller: fall back to the rules alone
        log.add(
            str(cfg.get("judge.model") or ""),
            "judge",
            "error",
            f"{type(exc).__name__}: {exc}",
            None,
            0.0,
        )
        return None
    finally:
        record_calls(log)


def _second_opinion(
    decision: dict[str, Any], evidence: dict[str, Any], cfg: Config, log: CallLog
) -> dict[str, Any] | None:
    started = time.monotonic()
    endpoint = judge_endpoint(cfg["judge"], float(cfg.get("judge.timeout")))
    budget = TokenBudget(limit=int(cfg.get("judge.token_budget")))
    asker = Asker(endpoint, int(cfg.get("judge.max_tokens")), budget, log, prompts.REPAIR_PROMPT)
    routed, models = _judge_models(decision, evidence, cfg)
    if not models:
        log.add("", "judge", "config", "judge.model is not set", None, 0.0)
        return None
    facts = evidence_facts(decision, evidence)
    context = judge_context(decision, evidence, facts)
    votes = int(cfg.get("judge.votes"))
    plan = [(models[i % len(models)], i % len(prompts.STANCES)) for i in range(votes)]
    valid, overrides, ballot = _count_ballot(plan, _ask_judges(asker, plan, context), facts)
    if not valid:
        return None
    merged = aggregate(valid)
    review = _committee_review(evidence, cfg, asker, models[0], context)
    merged.update(
        source="judge",
        provider=endpoint.provider,
        routed_model=routed,
        overrides=overrides,
        votes=ballot,
        agrees_with_rules=merged["status"] == decision.get("status"),
        committee=review,
        review_comments=review["review_comments"] if review else [],
        cost=_cost(cfg, log, budget),
        latency_s=round(time.monotonic() - started, 3),
        calls=log.calls,
    )
    return merged


def _judge_models(
    decision: dict[str, Any], evidence: dict[str, Any], cfg: Config
) -> tuple[str | None, list[str]]:
    """The model routed to for the task's category, and every model to ask, it first."""
    category = (
        evidence.get("task_category") or decision.get("task_category") or decision.get("task_type")
    )
    routed = route_model(category, cfg)
    models = [m for m in [routed, cfg.get("judge.model"), *cfg.get("judge.models")] if m]
    return routed, list(dict.fromkeys(models))


def _ask_judges(
    asker: Asker, plan: list[tuple[str, int]], context: str
) -> list[dict[str, Any] | None]:
    """Each planned judge's (model, stance) verdict, asked in parallel; None when unusable."""

    def vote(item: tuple[str, int]) -> dict[str, Any] | None:
        model, stance = item
        system = (prompts.JUDGE_SYSTEM + "\n" + prompts.STANCES[stance]).strip() + "\n"
        result: dict[str, Any] | None = asker.ask(model, "judge", system, context, parse_verdict)
        return result

    with ThreadPoolExecutor(max_workers=min(len(plan), 4)) as pool:
        return list(pool.map(vote, plan))


def _count_ballot(
    plan: list[tuple[str, int]], raw_votes: list[dict[str, Any] | None], facts: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    """The usable verdicts corrected by the evidence, the corrections made, and the ballot
    (every judge's vote before and after the evidence)."""
    valid: list[dict[str, Any]] = []
    overrides: list[str] = []
    ballot = []
    for (model, stance), raw in zip(plan, raw_votes, strict=True):
        ballot.append(
            {
                "model": model,
                "stance": stance,
                "status": raw["status"] if raw else None,
                "confidence": raw["confidence"] if raw else None,
                "valid": raw is not None,
            }
        )
        if raw is None:
            continue
        corrected, notes = apply_evidence(raw, facts)
        ballot[-1]["status_after_evidence"] = corrected["status"]
        valid.append(corrected)
        overrides.extend(n for n in notes if n not in overrides)
    return valid, overrides, ballot


def _committee_review(
    evidence: dict[str, Any], cfg: Config, asker: Asker, model: str, context: str
) -> dict[str, Any] | None:
    """With `judge.committee`, the reviewer's and auditor's findings on the diff."""
    diff = evidence.get("diff")
    if cfg.get("judge.committee") and not isinstance(diff, str):
        diff = committee.working_diff(cfg.root)
    if cfg.get("judge.committee") and isinstance(diff, str) and diff.strip():
        return committee.run_committee(asker, model, context, diff)
    return None


def _cost(cfg: Config, log: CallLog, budget: TokenBudget) -> dict[str, Any]:
    """Tokens, price and calls spent on the second opinion, against the budget."""
    usd_in = float(cfg.get("judge.input_usd_per_mtok"))
    usd_out = float(cfg.get("judge.output_usd_per_mtok"))
    tokens_in, tokens_out = log.tokens()
    return {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "usd": round((tokens_in * usd_in + tokens_out * usd_out) / 1_000_000, 6),
        "calls": len(log.calls),
        "token_budget": budget.limit,
        "budget_refusals": budget.refused,
    }
