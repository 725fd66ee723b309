"""Optional LLM judge: a second opinion on the Stop hook's verdict, under evidence.

The deterministic evidence (transcript, ledger, git) is always given to the model
and always wins: `apply_evidence` overrides any claim it contradicts, so a model
cannot mark untested work complete. A reply must match a strict JSON shape; a
malformed reply gets one repair request, then that judge's vote is dropped. With
`judge.votes` > 1 several judges (models x stances) vote; with `judge.committee`
a reviewer and an auditor read the diff and the auditor's dissent comes back as
review comments. A per-stop token budget caps spending; tokens, cost and latency
go into the result for the full record. `second_opinion` never raises: on any
failure it returns None and records the reason (`judge_calls` table).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from reflection_core.config import Config
from reflection_core.verify import prompts
from reflection_core.verify.providers import (
    ChatReply,
    Endpoint,
    ProviderError,
    chat,
    estimate_tokens,
)
from reflection_core.verify.voting import aggregate

STATUSES = ("complete", "incomplete", "blocked", "waiting_for_user")
RESULTS = ("passed", "failed", "not_run", "unknown")
MAX_CONTEXT_CHARS = 12000
KEEP_S = 30 * 86400  # judge call log kept 30 days
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
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.I)
DDL = """
CREATE TABLE IF NOT EXISTS judge_calls (
    created_at REAL NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    role TEXT NOT NULL,
    outcome TEXT NOT NULL,
    reason TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS judge_calls_time ON judge_calls(created_at);
"""


class VerdictError(ValueError):
    """A model reply that is not the required JSON shape; the message says what is wrong."""


# ---------------------------------------------------------------- strict parsing (pure)


def extract_json(text: str) -> Any:
    """The JSON object in a reply, tolerating code fences and prose around it."""
    stripped = _FENCE.sub("", text.strip())
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    start, end = stripped.find("{"), stripped.rfind("}")
    if start < 0 or end <= start:
        raise VerdictError("no JSON object in the reply")
    try:
        return json.loads(stripped[start : end + 1])
    except ValueError as exc:
        raise VerdictError(f"invalid JSON: {exc}") from None


def _expect(value: Any, kind: type | tuple[type, ...], where: str) -> Any:
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise VerdictError(f"{where} must be a number")
    if not isinstance(value, kind):
        raise VerdictError(f"{where} has the wrong type ({type(value).__name__})")
    return value


def _str_list(value: Any, where: str) -> list[str]:
    items = _expect(value, list, where)
    if not all(isinstance(item, str) for item in items):
        raise VerdictError(f"{where} must be a list of strings")
    return [item.strip()[:300] for item in items if item.strip()]


def _opt_str(value: Any, where: str) -> str | None:
    return None if value is None else str(_expect(value, str, where))[:500]


def _results(value: Any, where: str) -> str:
    if value not in RESULTS:
        raise VerdictError(f"{where} must be one of {', '.join(RESULTS)}")
    return str(value)


def parse_verdict(text: str) -> dict[str, Any]:
    """A judge reply checked against the strict verdict shape (unknown keys dropped)."""
    data = _expect(extract_json(text), dict, "the reply")
    if data.get("status") not in STATUSES:
        raise VerdictError(f"status must be one of {', '.join(STATUSES)}")
    confidence = float(_expect(data.get("confidence"), (int, float), "confidence"))
    if not 0.0 <= confidence <= 1.0:
        raise VerdictError("confidence must be between 0.0 and 1.0")
    ev = _expect(data.get("evidence"), dict, "evidence")
    tests = _expect(ev.get("tests"), dict, "evidence.tests")
    build = _expect(ev.get("build"), dict, "evidence.build")
    pr = _expect(ev.get("pr"), dict, "evidence.pr")
    return {
        "status": data["status"],
        "confidence": confidence,
        "evidence": {
            "tests": {
                "ran": _expect(tests.get("ran"), bool, "evidence.tests.ran"),
                "results": _results(tests.get("results"), "evidence.tests.results"),
                "ran_after_changes": _expect(
                    tests.get("ran_after_changes"), bool, "evidence.tests.ran_after_changes"
                ),
                "commands": _str_list(tests.get("commands", []), "evidence.tests.commands"),
            },
            "build": {
                "ran": _expect(build.get("ran"), bool, "evidence.build.ran"),
                "results": _results(build.get("results"), "evidence.build.results"),
            },
            "pr": {
                "created": _expect(pr.get("created"), bool, "evidence.pr.created"),
                "url": _opt_str(pr.get("url"), "evidence.pr.url"),
                "ci_status": _opt_str(pr.get("ci_status"), "evidence.pr.ci_status"),
            },
        },
        "remaining_work": _str_list(data.get("remaining_work", []), "remaining_work")[:5],
        "needs_user_action": _expect(data.get("needs_user_action"), bool, "needs_user_action"),
        "stuck": _expect(data.get("stuck"), bool, "stuck"),
        "alternate_approach": _opt_str(data.get("alternate_approach"), "alternate_approach"),
    }


# ---------------------------------------------------------------- evidence wins (pure)


def evidence_facts(decision: dict[str, Any], evidence: dict[str, Any]) -> dict[str, Any]:
    """The deterministic facts the judge must respect, from evidence and the decision's gates.

    Reads `evidence.tests` {ran, passed, ran_after_changes, commands, required},
    `evidence.build` {ran, passed}, `evidence.pr` {created, url, ci_status, required}
    and, for what is missing there, `decision.gates.<name>` {required, satisfied}.
    """
    raw_gates = decision.get("gates")
    gates: dict[str, Any] = raw_gates if isinstance(raw_gates, dict) else {}
    tests = _as_dict(evidence.get("tests"))
    tests_gate = gates.get("tests") if isinstance(gates.get("tests"), dict) else None
    if tests_gate is not None:
        tests.setdefault("required", bool(tests_gate.get("required")))
        if tests_gate.get("satisfied") is True:
            tests.setdefault("ran", True)
            tests.setdefault("passed", True)
            tests.setdefault("ran_after_changes", True)
        elif tests_gate.get("required") and tests_gate.get("satisfied") is False:
            tests.setdefault("ran_after_changes", False)
    unsatisfied = sorted(
        name
        for name, gate in gates.items()
        if isinstance(gate, dict) and gate.get("required") and gate.get("satisfied") is False
    )
    return {
        "tests": tests,
        "build": _as_dict(evidence.get("build")),
        "pr": _as_dict(evidence.get("pr")),
        "unsatisfied_gates": unsatisfied,
    }


def _as_dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def apply_evidence(
    verdict: dict[str, Any], facts: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The verdict with every claim the facts contradict replaced; and what was overridden."""
    out = json.loads(json.dumps(verdict))
    notes: list[str] = []
    tests, claimed = facts["tests"], out["evidence"]["tests"]
    if tests.get("ran") is False and claimed["ran"]:
        claimed.update(ran=False, results="not_run", ran_after_changes=False)
        notes.append("model claimed tests ran; no test run was recorded")
    if tests.get("passed") is False and claimed["results"] == "passed":
        claimed["results"] = "failed"
        notes.append("model claimed tests passed; the recorded run failed")
    if tests.get("passed") is True and tests.get("ran") is not False:
        claimed.update(ran=True, results="passed")
    if tests.get("ran_after_changes") is False and claimed["ran_after_changes"]:
        claimed["ran_after_changes"] = False
        notes.append("model claimed tests ran after the latest change; they did not")
    if tests.get("ran_after_changes") is True:
        claimed["ran_after_changes"] = True
    if tests.get("commands"):
        claimed["commands"] = [str(c) for c in tests["commands"]][:10]
    build, claimed_build = facts["build"], out["evidence"]["build"]
    if build.get("passed") is False and claimed_build["results"] == "passed":
        claimed_build["results"] = "failed"
        notes.append("model claimed the build passed; it failed")
    if build.get("ran") is False and claimed_build["ran"]:
        claimed_build.update(ran=False, results="not_run")
        notes.append("model claimed a build ran; none was recorded")
    pr, claimed_pr = facts["pr"], out["evidence"]["pr"]
    if pr.get("created") is False and claimed_pr["created"]:
        claimed_pr.update(created=False, url=None, ci_status=None)
        notes.append("model claimed a pull request exists; none was found")
    if pr.get("ci_status") and pr.get("ci_status") != claimed_pr["ci_status"]:
        claimed_pr["ci_status"] = pr["ci_status"]
    if out["status"] == "complete":
        untested = tests.get("required", True) and (
            tests.get("ran_after_changes") is False or tests.get("passed") is False
        )
        if untested:
            out["status"] = "incomplete"
            notes.append("model marked untested work complete; status set to incomplete")
            out["remaining_work"] = [
                "Run the tests after the latest change and make them pass."
            ] + [w for w in out["remaining_work"] if "test" not in w.lower()]
        elif facts["unsatisfied_gates"]:
            out["status"] = "incomplete"
            names = ", ".join(facts["unsatisfied_gates"])
            notes.append(f"model marked the task complete; required gates unsatisfied: {names}")
            out["remaining_work"].append(f"Satisfy the required gates: {names}.")
    return out, notes


def route_model(category: str | None, cfg: Config) -> str | None:
    """The model configured for a task category (`judge.routing`), if any."""
    routing: dict[str, str] = cfg.get("judge.routing") or {}
    return routing.get(category) if category else None


# ---------------------------------------------------------------- the shell


@dataclass
class Budget:
    """Tokens per stop across every judge call; a call that might overrun is not made."""

    limit: int
    used: int = 0
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reserve(self, tokens: int) -> bool:
        with self.lock:
            if self.used + tokens > self.limit:
                self.refused += 1
                return False
            self.used += tokens
            return True

    def settle(self, reserved: int, actual: int) -> None:
        with self.lock:
            self.used += actual - reserved


@dataclass
class CallLog:
    """Every call made for one stop: for cost, latency and the recorded reasons."""

    provider: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(
        self,
        model: str,
        role: str,
        outcome: str,
        reason: str,
        reply: ChatReply | None,
        latency_s: float,
    ) -> None:
        with self.lock:
            self.calls.append(
                {
                    "model": model,
                    "role": role,
                    "outcome": outcome,
                    "reason": reason,
                    "input_tokens": reply.input_tokens if reply else 0,
                    "output_tokens": reply.output_tokens if reply else 0,
                    "latency_s": round(latency_s, 3),
                }
            )


@dataclass
class Judge:
    """One stop's judging context: endpoint, limits, budget and the call log."""

    endpoint: Endpoint
    max_tokens: int
    budget: Budget
    log: CallLog

    def ask(
        self, model: str, role: str, system: str, user: str, parse: Callable[[str], Any]
    ) -> Any:
        """One judged answer: call, parse, one repair on a malformed reply; None on failure."""
        messages = [{"role": "user", "content": user}]
        for attempt in ("first", "repair"):
            reserved = estimate_tokens(system + "".join(m["content"] for m in messages))
            reserved += self.max_tokens
            if not self.budget.reserve(reserved):
                self.log.add(model, role, "skipped", "token budget spent", None, 0.0)
                return None
            started = time.monotonic()
            try:
                reply = chat(
                    self.endpoint,
                    model=model,
                    system=system,
                    messages=messages,
                    max_tokens=self.max_tokens,
                )
            except ProviderError as exc:
                self.budget.settle(reserved, 0)
                self.log.add(model, role, exc.kind, str(exc), None, time.monotonic() - started)
                return None
            self.budget.settle(reserved, reply.input_tokens + reply.output_tokens)
            try:
                parsed = parse(reply.text)
            except VerdictError as exc:
                self.log.add(model, role, "malformed", f"{attempt}: {exc}", reply, reply.latency_s)
                messages += [
                    {"role": "assistant", "content": reply.text[:4000]},
                    {"role": "user", "content": prompts.REPAIR_PROMPT.format(error=exc)},
                ]
                continue
            self.log.add(model, role, "ok", attempt, reply, reply.latency_s)
            return parsed
        return None


def judge_context(decision: dict[str, Any], evidence: dict[str, Any], facts: dict[str, Any]) -> str:
    """The user message: task, final message, rules' decision and the evidence, redacted, capped."""
    from reflection_core.redact import redact_obj

    rules = (
        "status",
        "stop_category",
        "task_type",
        "missing",
        "severity",
        "unsupported_claims",
        "changed_paths",
        "human_actions",
    )
    other = {k: v for k, v in evidence.items() if k not in _CONTEXT_KEYS}
    payload = {
        "task": str(evidence.get("task_prompt") or decision.get("task_prompt") or "")[:3000],
        "final_message": str(evidence.get("last_assistant_message") or "")[-3000:],
        "deterministic_decision": {k: decision.get(k) for k in rules if k in decision},
        "deterministic_evidence": facts,
        "other_evidence": json.dumps(other, default=str)[:3000] if other else None,
    }
    text = json.dumps(redact_obj(payload), ensure_ascii=False, default=str)
    return text[:MAX_CONTEXT_CHARS]


def _parse_review(text: str) -> dict[str, Any]:
    data = _expect(extract_json(text), dict, "the reply")
    return {
        "approve": _expect(data.get("approve"), bool, "approve"),
        "comments": _str_list(data.get("comments", []), "comments")[:10],
    }


def _parse_audit(text: str) -> dict[str, Any]:
    data = _expect(extract_json(text), dict, "the reply")
    return {
        "agree": _expect(data.get("agree"), bool, "agree"),
        "dissent": _str_list(data.get("dissent", []), "dissent")[:10],
    }


def _committee(judge: Judge, model: str, context: str, diff: str) -> dict[str, Any] | None:
    from reflection_core.redact import redact

    material = context + "\n\nDIFF:\n" + redact(diff)[:MAX_CONTEXT_CHARS]
    review = judge.ask(model, "reviewer", prompts.REVIEWER_SYSTEM, material, _parse_review)
    if review is None:
        return None
    audit_input = material + "\n\nREVIEWER VERDICT:\n" + json.dumps(review)
    audit = judge.ask(model, "auditor", prompts.AUDITOR_SYSTEM, audit_input, _parse_audit)
    dissent = audit["dissent"] if audit else []
    return {
        "approved": bool(review["approve"] and (audit is None or audit["agree"])),
        "reviewer": review,
        "auditor": audit,
        "review_comments": review["comments"] + [f"Auditor: {d}" for d in dissent],
    }


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
    except Exception as exc:  # never break the Stop hook: fall back to the rules alone
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
        _record_calls(log)


def _second_opinion(
    decision: dict[str, Any], evidence: dict[str, Any], cfg: Config, log: CallLog
) -> dict[str, Any] | None:
    started = time.monotonic()
    key_env = cfg.get("judge.api_key_env")
    endpoint = Endpoint(
        provider=str(cfg.get("judge.provider")),
        base_url=cfg.get("judge.base_url") or "",
        api_key=os.environ.get(key_env) if key_env else None,
        timeout=float(cfg.get("judge.timeout")),
        retries=int(cfg.get("judge.retries")),
    )
    budget = Budget(limit=int(cfg.get("judge.token_budget")))
    judge = Judge(endpoint, int(cfg.get("judge.max_tokens")), budget, log)
    category = (
        evidence.get("task_category") or decision.get("task_category") or decision.get("task_type")
    )
    routed = route_model(category, cfg)
    models = [m for m in [routed, cfg.get("judge.model"), *cfg.get("judge.models")] if m]
    models = list(dict.fromkeys(models))
    if not models:
        log.add("", "judge", "config", "judge.model is not set", None, 0.0)
        return None
    facts = evidence_facts(decision, evidence)
    context = judge_context(decision, evidence, facts)
    votes = int(cfg.get("judge.votes"))
    plan = [(models[i % len(models)], i % len(prompts.STANCES)) for i in range(votes)]

    def vote(item: tuple[str, int]) -> dict[str, Any] | None:
        model, stance = item
        system = (prompts.JUDGE_SYSTEM + "\n" + prompts.STANCES[stance]).strip() + "\n"
        result: dict[str, Any] | None = judge.ask(model, "judge", system, context, parse_verdict)
        return result

    with ThreadPoolExecutor(max_workers=min(votes, 4)) as pool:
        raw_votes = list(pool.map(vote, plan))
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
    if not valid:
        return None
    merged = aggregate(valid)
    diff = evidence.get("diff")
    if cfg.get("judge.committee") and not isinstance(diff, str) and cfg.root is not None:
        diff = working_diff(cfg.root)
    committee = None
    if cfg.get("judge.committee") and isinstance(diff, str) and diff.strip():
        committee = _committee(judge, models[0], context, diff)
    usd_in = float(cfg.get("judge.input_usd_per_mtok"))
    usd_out = float(cfg.get("judge.output_usd_per_mtok"))
    tokens_in = sum(c["input_tokens"] for c in log.calls)
    tokens_out = sum(c["output_tokens"] for c in log.calls)
    merged.update(
        source="judge",
        provider=endpoint.provider,
        routed_model=routed,
        overrides=overrides,
        votes=ballot,
        agrees_with_rules=merged["status"] == decision.get("status"),
        committee=committee,
        review_comments=committee["review_comments"] if committee else [],
        cost={
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "usd": round((tokens_in * usd_in + tokens_out * usd_out) / 1_000_000, 6),
            "calls": len(log.calls),
            "token_budget": budget.limit,
            "budget_refusals": budget.refused,
        },
        latency_s=round(time.monotonic() - started, 3),
        calls=log.calls,
    )
    return merged


def working_diff(root: Any) -> str:
    """The uncommitted changes (`git diff HEAD`) for the committee, capped; '' when unknown."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "diff", "HEAD", "--no-color", "--no-ext-diff"],
            cwd=root,
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    if proc.returncode != 0:
        return ""
    return proc.stdout[:MAX_CONTEXT_CHARS].decode("utf-8", errors="replace")


def _record_calls(log: CallLog) -> None:
    """Keep every call's outcome and reason in the state database (best effort)."""
    if not log.calls:
        return
    try:
        from reflection_core import state

        conn = state.connect()
        try:
            state.ensure_schema(conn, DDL)
            now = time.time()
            with conn:
                conn.executemany(
                    "INSERT INTO judge_calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            now,
                            log.provider,
                            c["model"],
                            c["role"],
                            c["outcome"],
                            c["reason"][:500],
                            c["input_tokens"],
                            c["output_tokens"],
                            c["latency_s"],
                        )
                        for c in log.calls
                    ],
                )
                conn.execute("DELETE FROM judge_calls WHERE created_at < ?", (now - KEEP_S,))
        finally:
            conn.close()
    except Exception:  # recording must never turn a fallback into a crash
        pass


def recent_calls(limit: int = 20) -> list[dict[str, Any]]:
    """The latest recorded judge calls, newest first (for `doctor`, stats and tests)."""
    from reflection_core import state

    conn = state.connect()
    try:
        state.ensure_schema(conn, DDL)
        conn.row_factory = _dict_row
        return list(conn.execute("SELECT * FROM judge_calls ORDER BY rowid DESC LIMIT ?", (limit,)))
    finally:
        conn.close()


def _dict_row(cursor: Any, row: tuple[Any, ...]) -> dict[str, Any]:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}
