"""The LLM reader through `dispatch.read`, against a loopback server speaking both APIs."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from reflection_core.config import Config, validate
from reflection_core.reading import ledger
from reflection_core.reading.dispatch import read
from reflection_core.reading.facts import FACT_KINDS
from reflection_core.verify import providers
from tests.loopback import ChatServer, Reply, unreachable_judge
from tests.readerutil import builtin, digest


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    monkeypatch.setattr(providers, "BACKOFF_BASE_S", 0.01)
    server = ChatServer()
    yield server
    server.close()


def cfg_for(api: ChatServer, provider: str = "openai", reader: Any = None, **judge: Any) -> Config:
    settings = {
        "provider": provider,
        "base_url": api.url + "/v1",
        "model": "m",
        "api_key_env": "READER_TEST_KEY",
        "timeout": 5,
        **judge,
    }
    return Config(data=validate({"judge": settings, "reader": reader or {}}, "test"))


def facts_json(**confidences: float) -> str:
    """A full answer: every kind listed, those given with their confidence, the rest 0."""
    return json.dumps(
        {
            "facts": [
                {"kind": k, "confidence": confidences.get(k, 0.0), "quote": f"about {k}"}
                for k in FACT_KINDS
            ]
        }
    )


def openai_reply(text: str) -> Reply:
    body = {
        "model": "m",
        "choices": [{"message": {"content": text}}],
        "usage": {"prompt_tokens": 700, "completion_tokens": 90},
    }
    return 200, body, {}, 0.0


def anthropic_reply(text: str) -> Reply:
    body = {
        "model": "claude-x",
        "content": [{"type": "text", "text": text}],
        "usage": {"input_tokens": 650, "output_tokens": 80},
    }
    return 200, body, {}, 0.0


def test_openai_reader_replaces_the_uncertain_builtin_facts(
    api: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READER_TEST_KEY", "reader-key-1")
    api.respond = lambda req: openai_reply(facts_json(remaining_work=0.9))
    reading = read(digest(), builtin(), cfg_for(api))
    assert reading.error is None and reading.reader == "llm:m"
    assert reading.confidence("remaining_work") == pytest.approx(0.9)
    assert {f.source for f in reading.facts} == {"llm:m"}
    assert reading.cost_tokens == 790 and reading.latency_ms >= 0
    (request,) = api.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer reader-key-1"
    system, user = request["json"]["messages"]
    assert "report facts only" in system["content"]
    assert json.loads(user["content"])["task_prompt"] == digest()["task_prompt"]
    (row,) = ledger.recent_reads()
    assert row["outcome"] == "ok" and row["tokens"] == 790
    assert row["session_id"] == "sess-reader-1"


def test_anthropic_reader_with_a_fenced_answer(
    api: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READER_TEST_KEY", "reader-key-2")
    api.respond = lambda req: anthropic_reply("```json\n" + facts_json(human_only=0.8) + "\n```")
    reading = read(digest(), builtin(), cfg_for(api, provider="anthropic"))
    assert reading.error is None
    assert reading.has("human_only") and not reading.has("remaining_work", 0.01)
    (request,) = api.requests
    assert request["path"] == "/v1/messages"
    assert request["headers"]["x-api-key"] == "reader-key-2"
    assert "report facts only" in request["json"]["system"]
    assert reading.cost_tokens == 730


def test_a_sure_builtin_reading_costs_nothing(api: ChatServer) -> None:
    base = builtin(uncertain=False)
    assert read(digest(), base, cfg_for(api)) is base
    assert api.requests == []


def test_always_asks_even_when_the_builtin_is_sure(api: ChatServer) -> None:
    api.respond = lambda req: openai_reply(facts_json(stuck=0.7))
    reading = read(digest(), builtin(uncertain=False), cfg_for(api, reader={"when": "always"}))
    assert reading.has("stuck") and len(api.requests) == 1


def test_no_judge_provider_means_the_builtin_reader(api: ChatServer) -> None:
    base = builtin()
    assert read(digest(), base, Config()) is base
    assert api.requests == []


def test_reader_kind_builtin_turns_a_configured_judge_off_for_reading(api: ChatServer) -> None:
    base = builtin()
    assert read(digest(), base, cfg_for(api, reader={"kind": "builtin"})) is base
    assert api.requests == []


def test_a_slow_server_times_out_and_the_builtin_reading_is_used(api: ChatServer) -> None:
    api.respond = lambda req: (*openai_reply(facts_json(stuck=0.9))[:3], 30.0)
    started = time.monotonic()
    base = builtin()
    reading = read(digest(), base, cfg_for(api, reader={"timeout_seconds": 1.5}))
    elapsed = time.monotonic() - started
    assert reading.facts == base.facts and reading.uncertain is True
    assert reading.error is not None and "timeout" in reading.error
    assert elapsed < 15.0  # the reader's 1.5 s wall clock, not the server's 30 s
    assert ledger.recent_reads(1)[0]["outcome"] == "timeout"


def test_slow_server_errors_are_not_retried_past_the_wall_clock(api: ChatServer) -> None:
    api.respond = lambda req: (503, {"error": "busy"}, {"Retry-After": "8"}, 0.8)
    started = time.monotonic()
    reading = read(digest(), builtin(), cfg_for(api, retries=5, reader={"timeout_seconds": 2}))
    assert time.monotonic() - started < 15.0  # unbounded: 6 x 0.8 s + 5 x 8 s backoff
    assert reading.error is not None and "timeout" in reading.error
    assert len(api.requests) <= 3


def test_http_errors_fall_back_with_the_status(api: ChatServer) -> None:
    api.respond = lambda req: (503, {"error": "down"}, {}, 0.0)
    reading = read(digest(), builtin(), cfg_for(api, retries=1))
    assert reading.error is not None and "HTTP 503" in reading.error
    assert len(api.requests) == 2


def test_a_non_json_body_falls_back(api: ChatServer) -> None:
    api.respond = lambda req: (200, b"<html>gateway</html>", {}, 0.0)
    reading = read(digest(), builtin(), cfg_for(api))
    assert reading.error is not None and "format" in reading.error


def test_a_malformed_answer_gets_one_repair(api: ChatServer) -> None:
    replies = iter(["The agent still has work to do.", facts_json(remaining_work=0.8)])
    api.respond = lambda req: openai_reply(next(replies))
    reading = read(digest(), builtin(), cfg_for(api))
    assert reading.error is None and reading.has("remaining_work")
    repair = api.requests[1]["json"]["messages"][-1]["content"]
    assert "could not be used" in repair


@pytest.mark.parametrize(
    "answer",
    [
        "not json at all",
        json.dumps({"status": "complete"}),
        json.dumps({"facts": "remaining_work"}),
        json.dumps([{"kind": "stuck", "confidence": 0.9}]),
    ],
)
def test_malformed_twice_falls_back(api: ChatServer, answer: str) -> None:
    api.respond = lambda req: openai_reply(answer)
    base = builtin()
    reading = read(digest(), base, cfg_for(api))
    assert reading.facts == base.facts
    assert reading.error is not None and "malformed" in reading.error
    assert reading.cost_tokens == 2 * 790  # what the failed read spent is still counted
    assert len(api.requests) == 2


def test_unknown_kinds_and_wrong_types_are_dropped_not_fatal(api: ChatServer) -> None:
    answer = {
        "status": "complete",
        "facts": [
            {"kind": "task_done", "confidence": 0.99},
            {"kind": "stuck", "confidence": "high"},
            {"kind": "deviation", "confidence": 3.5, "quote": "y" * 900},
        ],
    }
    api.respond = lambda req: openai_reply(json.dumps(answer))
    reading = read(digest(), builtin(), cfg_for(api))
    assert reading.error is None
    assert [(f.kind, f.confidence, len(f.quote)) for f in reading.facts[-1:]] == [
        ("deviation", 1.0, 200)
    ]
    assert reading.extra["paid"]["ignored_keys"] == ["status"]
    assert len(reading.extra["paid"]["dropped"]) == 2
    assert reading.confidence("remaining_work") == 0.45  # a kind not answered keeps the builtin's


def test_voting_over_models_and_stances(api: ChatServer) -> None:
    answers = {
        "a": facts_json(question_for_user=0.9),
        "b": facts_json(question_for_user=0.6),
        "c": facts_json(),
    }
    api.respond = lambda req: openai_reply(answers[req["json"]["model"]])
    reading = read(digest(), builtin(), cfg_for(api, model="a", models=["b", "c"], votes=3))
    assert reading.confidence("question_for_user") == pytest.approx(0.5)
    assert len({r["json"]["messages"][0]["content"] for r in api.requests}) == 3
    assert reading.extra["paid"]["spread"]["kinds"]["question_for_user"]["saw"] == 2


def test_the_committee_disapproving_becomes_remaining_work(api: ChatServer) -> None:
    def respond(req: dict[str, Any]) -> Reply:
        system = req["json"]["messages"][0]["content"]
        if "You are the reviewer" in system:
            return openai_reply(json.dumps({"approve": False, "comments": ["cli.py: no test"]}))
        if "You are the auditor" in system:
            return openai_reply(json.dumps({"agree": False, "dissent": ["flag ignored"]}))
        return openai_reply(facts_json())

    api.respond = respond
    diff = "--- a/cli.py\n+++ b/cli.py\n+VERBOSE = True\n"
    reading = read(digest(diff=diff), builtin(), cfg_for(api, committee=True))
    assert reading.confidence("remaining_work") == pytest.approx(0.75)
    assert reading.extra["paid"]["review_comments"] == ["cli.py: no test", "Auditor: flag ignored"]


def test_a_spent_day_budget_makes_no_call(api: ChatServer) -> None:
    ledger.record("earlier-session", "llm:m", "ok", "", 199_500, 900)
    api.respond = lambda req: openai_reply(facts_json(stuck=0.9))
    base = builtin()
    reading = read(digest(), base, cfg_for(api))
    assert api.requests == []
    assert reading.facts == base.facts
    assert reading.error is not None and "day budget spent" in reading.error
    assert ledger.recent_reads(1)[0]["outcome"] == "budget"


def test_a_spent_session_budget_makes_no_call_for_that_session_only(api: ChatServer) -> None:
    api.respond = lambda req: openai_reply(facts_json(stuck=0.9))
    cfg = cfg_for(api, reader={"budget_tokens_per_session": 1500})
    assert read(digest(), builtin(), cfg).error is None
    second = read(digest(), builtin(), cfg)
    assert second.error is not None and "session budget spent" in second.error
    other = read(digest(session_id="sess-other"), builtin(), cfg)
    assert other.error is None
    assert len(api.requests) == 2


def test_the_per_read_token_budget_refuses_calls(api: ChatServer) -> None:
    api.respond = lambda req: openai_reply(facts_json(stuck=0.9))
    reading = read(digest(), builtin(), cfg_for(api, token_budget=500, max_tokens=600))
    assert api.requests == []
    assert reading.error is not None and "budget" in reading.error


def test_no_model_is_a_visible_config_error(api: ChatServer) -> None:
    reading = read(digest(), builtin(), cfg_for(api, model=None))
    assert reading.error is not None and "config" in reading.error
    assert api.requests == []


def test_reader_model_overrides_the_judge_model(api: ChatServer) -> None:
    api.respond = lambda req: openai_reply(facts_json())
    read(digest(), builtin(), cfg_for(api, reader={"model": "small"}))
    assert api.requests[0]["json"]["model"] == "small"


def test_unreachable_server_falls_back(api: ChatServer) -> None:
    cfg = unreachable_judge()
    reading = read(digest(), builtin(), cfg)
    assert reading.error is not None and "connection" in reading.error
