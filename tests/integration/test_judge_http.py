"""The LLM judge against a real loopback HTTP server speaking the OpenAI and Anthropic APIs."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reflection_core.config import Config, validate
from reflection_core.reading.call_log import recent_calls
from reflection_core.verify import providers
from reflection_core.verify.judge import second_opinion
from tests.gitutil import git
from tests.loopback import ChatServer as Loopback
from tests.loopback import Reply, unreachable_judge


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[Loopback]:
    monkeypatch.setattr(providers, "BACKOFF_BASE_S", 0.01)
    server = Loopback()
    yield server
    server.close()


def verdict(status: str = "complete", ran: bool = True, **extra: Any) -> dict[str, Any]:
    return {
        "status": status,
        "confidence": extra.pop("confidence", 0.9),
        "evidence": {
            "tests": {
                "ran": ran,
                "results": "passed" if ran else "not_run",
                "ran_after_changes": ran,
                "commands": ["pytest -q"] if ran else [],
            },
            "build": {"ran": False, "results": "not_run"},
            "pr": {"created": False, "url": None, "ci_status": None},
        },
        "remaining_work": extra.pop("remaining_work", []),
        "needs_user_action": False,
        "stuck": False,
        "alternate_approach": None,
        **extra,
    }


def openai_reply(text: str, usage: bool = True) -> Reply:
    body: dict[str, Any] = {"model": "m", "choices": [{"message": {"content": text}}]}
    if usage:
        body["usage"] = {"prompt_tokens": 120, "completion_tokens": 30}
    return 200, body, {}, 0.0


def anthropic_reply(text: str) -> Reply:
    body = {
        "model": "claude-x",
        "content": [{"type": "text", "text": text}],
        "usage": {"input_tokens": 100, "output_tokens": 20},
    }
    return 200, body, {}, 0.0


def cfg_for(api: Loopback, provider: str = "openai", **judge: Any) -> Config:
    base = api.url + "/v1"
    settings = {
        "provider": provider,
        "base_url": base,
        "model": "m",
        "api_key_env": "JUDGE_TEST_KEY",
        "timeout": 5,
        **judge,
    }
    return Config(data=validate({"judge": settings}, "test"))


DECISION = {"status": "complete", "gates": {"tests": {"required": True, "satisfied": True}}}
TESTED = {"tests": {"ran": True, "passed": True, "ran_after_changes": True}}
UNTESTED = {"tests": {"ran": False, "passed": None, "ran_after_changes": False}}


def test_openai_compatible_valid_verdict_with_cost(
    api: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_TEST_KEY", "test-key-123")
    api.respond = lambda req: openai_reply(json.dumps(verdict()))
    cfg = cfg_for(api, input_usd_per_mtok=1.0, output_usd_per_mtok=2.0)
    result = second_opinion(DECISION, TESTED, cfg)
    assert result is not None
    assert result["status"] == "complete" and result["overrides"] == []
    assert result["cost"]["input_tokens"] == 120 and result["cost"]["output_tokens"] == 30
    assert result["cost"]["usd"] == pytest.approx((120 * 1 + 30 * 2) / 1e6)
    (request,) = api.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer test-key-123"
    assert request["json"]["response_format"] == {"type": "json_object"}
    assert request["json"]["messages"][0]["role"] == "system"


def test_anthropic_messages_api(api: Loopback, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_TEST_KEY", "test-key-456")
    api.respond = lambda req: anthropic_reply("```json\n" + json.dumps(verdict()) + "\n```")
    result = second_opinion(DECISION, TESTED, cfg_for(api, provider="anthropic"))
    assert result is not None and result["status"] == "complete"
    (request,) = api.requests
    assert request["path"] == "/v1/messages"
    assert request["headers"]["x-api-key"] == "test-key-456"
    assert request["headers"]["anthropic-version"] == providers.ANTHROPIC_VERSION
    assert isinstance(request["json"]["system"], str)
    assert result["cost"]["input_tokens"] == 100


def test_malformed_reply_gets_one_repair(api: Loopback) -> None:
    replies = iter(["Sure! The task looks done.", json.dumps(verdict())])
    api.respond = lambda req: openai_reply(next(replies))
    result = second_opinion(DECISION, TESTED, cfg_for(api))
    assert result is not None and result["status"] == "complete"
    assert len(api.requests) == 2
    repair = api.requests[1]["json"]["messages"][-1]["content"]
    assert "could not be used" in repair
    assert [c["outcome"] for c in result["calls"]] == ["malformed", "ok"]


def test_malformed_twice_falls_back_to_none_with_a_recorded_reason(api: Loopback) -> None:
    api.respond = lambda req: openai_reply('{"status": "done"}')
    assert second_opinion(DECISION, TESTED, cfg_for(api)) is None
    assert len(api.requests) == 2
    reasons = [c["reason"] for c in recent_calls()]
    assert any("repair: status must be one of" in r for r in reasons)


def test_timeout_falls_back_without_retrying(api: Loopback) -> None:
    api.respond = lambda req: (*openai_reply(json.dumps(verdict()))[:3], 2.5)
    assert second_opinion(DECISION, TESTED, cfg_for(api, timeout=1, retries=3)) is None
    assert len(api.requests) == 1
    assert recent_calls(1)[0]["outcome"] == "timeout"


def test_429_and_500_are_retried_with_backoff(api: Loopback) -> None:
    script = iter(
        [
            (429, {"error": "slow down"}, {"Retry-After": "0"}, 0.0),
            (500, {"error": "boom"}, {}, 0.0),
            openai_reply(json.dumps(verdict())),
        ]
    )
    api.respond = lambda req: next(script)
    result = second_opinion(DECISION, TESTED, cfg_for(api, retries=2))
    assert result is not None and result["status"] == "complete"
    assert len(api.requests) == 3


def test_server_errors_beyond_the_retries_give_none(api: Loopback) -> None:
    api.respond = lambda req: (503, {"error": "down"}, {}, 0.0)
    assert second_opinion(DECISION, TESTED, cfg_for(api, retries=1)) is None
    assert len(api.requests) == 2
    assert "HTTP 503 after 2 attempts" in recent_calls(1)[0]["reason"]


def test_server_without_json_mode_is_asked_again_without_it(api: Loopback) -> None:
    def respond(req: dict[str, Any]) -> Reply:
        if "response_format" in req["json"]:
            return 400, {"error": "unknown field response_format"}, {}, 0.0
        return openai_reply(json.dumps(verdict()))

    api.respond = respond
    assert second_opinion(DECISION, TESTED, cfg_for(api)) is not None
    assert len(api.requests) == 2


def test_claimed_completion_contradicted_by_evidence_is_overridden(api: Loopback) -> None:
    api.respond = lambda req: openai_reply(json.dumps(verdict("complete", ran=True)))
    decision = {"status": "incomplete", "gates": {"tests": {"required": True, "satisfied": False}}}
    result = second_opinion(decision, UNTESTED, cfg_for(api))
    assert result is not None
    assert result["status"] == "incomplete"
    assert result["evidence"]["tests"]["ran"] is False
    assert result["evidence"]["tests"]["results"] == "not_run"
    assert any("untested work complete" in note for note in result["overrides"])
    assert any("claimed tests ran" in note for note in result["overrides"])
    context = json.loads(api.requests[0]["json"]["messages"][1]["content"])
    assert context["deterministic_evidence"]["tests"]["ran"] is False


def by_model(answers: dict[str, dict[str, Any]]) -> Callable[[dict[str, Any]], Reply]:
    return lambda req: openai_reply(json.dumps(answers[req["json"]["model"]]))


def test_voting_takes_the_majority_and_records_the_spread(api: Loopback) -> None:
    api.respond = by_model(
        {
            "a": verdict("complete", confidence=0.9),
            "b": verdict("incomplete", confidence=0.6, remaining_work=["Add docs"]),
            "c": verdict("complete", confidence=0.7),
        }
    )
    result = second_opinion(DECISION, TESTED, cfg_for(api, model="a", models=["b", "c"], votes=3))
    assert result is not None
    assert result["status"] == "complete"
    assert result["confidence"] == pytest.approx(0.8)
    assert result["spread"]["agreement"] == pytest.approx(0.667)
    assert result["spread"]["statuses"] == {"complete": 2, "incomplete": 1}
    assert sorted(v["model"] for v in result["votes"]) == ["a", "b", "c"]
    systems = {r["json"]["messages"][0]["content"] for r in api.requests}
    assert len(systems) == 3  # each judge votes under its own stance


def test_a_split_vote_never_declares_completion(api: Loopback) -> None:
    api.respond = by_model({"a": verdict("complete"), "b": verdict("incomplete")})
    result = second_opinion(DECISION, TESTED, cfg_for(api, model="a", models=["b"], votes=2))
    assert result is not None and result["status"] == "incomplete"


def test_committee_dissent_comes_back_as_review_comments(api: Loopback) -> None:
    def respond(req: dict[str, Any]) -> Reply:
        system = req["json"]["messages"][0]["content"]
        if "You are the reviewer" in system:
            return openai_reply(json.dumps({"approve": True, "comments": ["a.py: ok"]}))
        if "You are the auditor" in system:
            body = {"agree": False, "dissent": ["a.py: the empty-list case is untested"]}
            return openai_reply(json.dumps(body))
        return openai_reply(json.dumps(verdict()))

    api.respond = respond
    evidence = {**TESTED, "diff": "--- a/a.py\n+++ b/a.py\n+def f(x): return x[0]\n"}
    result = second_opinion(DECISION, evidence, cfg_for(api, committee=True))
    assert result is not None
    assert result["committee"]["approved"] is False
    assert result["review_comments"] == [
        "a.py: ok",
        "Auditor: a.py: the empty-list case is untested",
    ]
    audit_request = next(
        r for r in api.requests if "auditor" in r["json"]["messages"][0]["content"]
    )
    assert "REVIEWER VERDICT" in audit_request["json"]["messages"][1]["content"]


def test_token_budget_stops_calls_before_they_are_made(api: Loopback) -> None:
    api.respond = lambda req: openai_reply(json.dumps(verdict()))
    assert second_opinion(DECISION, TESTED, cfg_for(api, token_budget=500, max_tokens=600)) is None
    assert api.requests == []
    assert recent_calls(1)[0]["reason"] == "token budget spent"


def test_routing_picks_the_model_for_the_task_category(api: Loopback) -> None:
    api.respond = lambda req: openai_reply(json.dumps(verdict()))
    cfg = cfg_for(api, routing={"frontend": "ui-model"})
    result = second_opinion(DECISION, {**TESTED, "task_category": "frontend"}, cfg)
    assert result is not None and result["routed_model"] == "ui-model"
    assert api.requests[0]["json"]["model"] == "ui-model"


def test_provider_none_makes_no_call(api: Loopback) -> None:
    assert second_opinion(DECISION, TESTED, Config()) is None
    assert api.requests == []


def test_unreachable_server_falls_back(api: Loopback) -> None:
    cfg = unreachable_judge()
    assert second_opinion(DECISION, TESTED, cfg) is None
    assert recent_calls(1)[0]["outcome"] == "connection"


def test_a_non_json_answer_body_falls_back(api: Loopback) -> None:
    api.respond = lambda req: (200, b"<html>gateway</html>", {}, 0.0)
    assert second_opinion(DECISION, {"tests": "not a mapping"}, cfg_for(api)) is None
    assert recent_calls(1)[0]["outcome"] == "format"


def test_secrets_in_the_evidence_never_reach_the_judge(api: Loopback) -> None:
    api.respond = lambda req: openai_reply(json.dumps(verdict()))
    secret = "sk-proj-abcdefghijklmnopqrstuvwx"
    evidence = {**TESTED, "last_assistant_message": f"deployed with OPENAI_API_KEY={secret}"}
    assert second_opinion(DECISION, evidence, cfg_for(api)) is not None
    assert secret not in json.dumps(api.requests[0]["json"])


def test_committee_reads_the_working_diff_when_none_is_given(api: Loopback, git_repo: Path) -> None:
    (git_repo / "calc.py").write_text("def half(x):\n    return x / 2\n", encoding="utf-8")
    git(git_repo, "add", "calc.py")
    api.respond = lambda req: openai_reply(
        json.dumps({"approve": True, "comments": [], "agree": True, "dissent": []})
        if "committee" in req["json"]["messages"][0]["content"]
        else json.dumps(verdict())
    )
    cfg = cfg_for(api, committee=True)
    cfg = Config(data=cfg.data, root=git_repo)
    result = second_opinion(DECISION, TESTED, cfg)
    assert result is not None and result["committee"]["approved"] is True
    reviewer = next(
        r for r in api.requests if "You are the reviewer" in r["json"]["messages"][0]["content"]
    )
    assert "+def half(x):" in reviewer["json"]["messages"][1]["content"]


def test_azure_style_url_keeps_its_query_and_uses_the_api_key_header(
    api: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_TEST_KEY", "azure-key")
    api.respond = lambda req: openai_reply(json.dumps(verdict()))
    base = api.url + "/openai/deployments/judge?api-version=2024-06-01"
    assert second_opinion(DECISION, TESTED, cfg_for(api, base_url=base)) is not None
    (request,) = api.requests
    assert request["path"] == "/openai/deployments/judge/chat/completions?api-version=2024-06-01"
    assert request["headers"]["api-key"] == "azure-key"
    assert "authorization" not in {k.lower() for k in request["headers"]}


def test_servers_without_usage_get_estimated_tokens(api: Loopback) -> None:
    api.respond = lambda req: openai_reply(json.dumps(verdict()), usage=False)
    result = second_opinion(DECISION, TESTED, cfg_for(api))
    assert result is not None
    assert result["cost"]["input_tokens"] > 100 and result["cost"]["output_tokens"] > 20
