"""A reader that sees the turn, end to end: the stop decision, the LLM reader over HTTP, and a
model on 127.0.0.1 speaking the OpenAI-compatible API that checks what it was sent (the
digest, then the turn's trace: tool calls with their result tails, within the cap)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reflection_core import config
from reflection_core.reading.facts import FACT_KINDS
from reflection_core.session.decide import DecisionContext, decide
from reflection_core.session.model import Session
from reflection_core.verify import providers
from tests.loopback import ChatServer, Reply
from tests.unit.sessionbuild import SessionBuilder

CAP = 600  # reader.trace_tokens in these tests: the session below is several times larger
REASON = "#32 only strips whitespace from the cell; nothing pads postal codes with zeros"
SEARCH_OUTPUT = "\n".join(f"src/export/row_{n}.py:{n}: def write_row(cells):" for n in range(30))
FINAL = "The export keeps leading zeros now; the writer tests pass."


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    monkeypatch.setattr(providers, "BACKOFF_BASE_S", 0.01)
    monkeypatch.setenv("TURN_READER_KEY", "turn-reader-key")
    server = ChatServer()
    yield server
    server.close()


def context(api: ChatServer, **reader: Any) -> DecisionContext:
    judge = {
        "provider": "openai",
        "base_url": api.url + "/v1",
        "model": "turn-model",
        "api_key_env": "TURN_READER_KEY",
        "timeout": 5,
        "retries": 0,
    }
    settings = {"when": "always", "trace_tokens": CAP, **reader}
    return DecisionContext(config=config.validate({"judge": judge, "reader": settings}, "t"))


def answer(api: ChatServer, **confidences: float) -> None:
    """The model answers every kind, those given with their confidence and the reason."""
    facts = [
        {"kind": k, "confidence": confidences.get(k, 0.0), "quote": REASON} for k in FACT_KINDS
    ]
    body = {
        "model": "turn-model",
        "choices": [{"message": {"content": json.dumps({"facts": facts})}}],
        "usage": {"prompt_tokens": 1400, "completion_tokens": 120},
    }
    reply: Reply = (200, body, {}, 0.0)
    api.respond = lambda request: reply


def checked_change() -> Session:
    """Thirty searches, then a change and a passing test run of it: the evidence is fine."""
    builder = SessionBuilder("Make the CSV export keep leading zeros in postal codes.")
    for n in range(30):
        builder.bash(f"grep -rn write_row_{n} src/export", output=SEARCH_OUTPUT)
    return (
        builder.read("src/export/writer.py")
        .say("The zeros are lost when the cell is written.")
        .edit("src/export/writer.py", new="cell = str(cell).strip()")
        .bash(
            "python -m pytest -q tests/test_writer.py",
            output="....\n4 passed in 0.31s",
        )
        .build(FINAL)
    )


def sent(api: ChatServer) -> tuple[str, str]:
    """The system prompt and the user message of the one request the model got."""
    assert len(api.requests) == 1
    messages = api.requests[0]["json"]["messages"]
    return messages[0]["content"], messages[1]["content"]


def trace_part(user: str) -> str:
    return user[user.index("TRACE OF THE TURN") :]


def test_the_model_gets_the_digest_then_the_turn_capped_with_result_tails(
    api: ChatServer,
) -> None:
    answer(api)
    decide(checked_change(), context(api))
    system, user = sent(api)
    assert "- unfinished_work: " in system and "TRACE OF THE TURN" in system
    digest = json.loads(user[: user.index("\n\nTRACE OF THE TURN")])
    assert digest["task_prompt"].startswith("Make the CSV export")
    trace = trace_part(user)
    assert len(trace) // 4 <= CAP
    assert "#32 Edit: src/export/writer.py (+1 lines): cell = str(cell).strip() -> ok" in trace
    assert "#33 Bash: python -m pytest -q tests/test_writer.py -> exit 0\n" in trace
    assert "    4 passed in 0.31s" in trace  # the result's tail
    assert "#0 Bash: grep" not in trace and "calls not shown]" in trace  # oldest left out
    assert trace.endswith(f"FINAL MESSAGE\n{FINAL}")


def test_a_sure_unfinished_work_reading_pushes_the_agent_on_with_its_reason(
    api: ChatServer,
) -> None:
    answer(api, unfinished_work=0.95)
    decision = decide(checked_change(), context(api))
    assert decision.should_block
    assert decision.pushed_by == ["reading:unfinished_work"]
    assert REASON in (decision.feedback or "")
    assert decision.reading is not None and decision.reading.reader == "llm:turn-model"


def test_an_unsure_unfinished_work_reading_does_not_push(api: ChatServer) -> None:
    answer(api, unfinished_work=0.85)
    decision = decide(checked_change(), context(api))
    assert not decision.should_block
    assert decision.note and REASON[:60] in decision.note  # said to the user, not pushed


def test_a_passing_check_of_the_change_outweighs_a_sure_reading_about_checking(
    api: ChatServer,
) -> None:
    answer(api, unexercised_change=0.97)
    decision = decide(checked_change(), context(api))
    assert not decision.should_block
    assert "reading:unexercised_change" in decision.open_patterns


def test_a_sure_reading_about_checking_pushes_when_no_check_ran_after_the_change(
    api: ChatServer,
) -> None:
    answer(api, unexercised_change=0.97)
    session = (
        SessionBuilder("Make the CSV export keep leading zeros in postal codes.")
        .bash("python -m pytest -q tests/test_writer.py", output="4 passed in 0.30s")
        .edit("src/export/writer.py", new="cell = str(cell).zfill(5)")
        .build(FINAL)
    )
    decision = decide(session, context(api))
    assert decision.should_block and "reading:unexercised_change" in decision.pushed_by


def test_a_reader_not_shown_the_turn_cannot_report_what_only_the_turn_shows(
    api: ChatServer,
) -> None:
    answer(api, unfinished_work=0.95)
    decision = decide(checked_change(), context(api, trace_tokens=0))
    system, user = sent(api)
    assert "TRACE OF THE TURN" not in user and "unfinished_work" not in system
    assert not decision.should_block
    assert decision.reading is not None and not decision.reading.has("unfinished_work", 0.01)


def test_a_spent_budget_leaves_the_builtin_reading_with_one_visible_line(
    api: ChatServer,
) -> None:
    answer(api, unfinished_work=0.95)
    decision = decide(checked_change(), context(api, budget_tokens_per_session=500))
    assert api.requests == []  # the digest and the trace need more than the budget allows
    assert not decision.should_block
    assert decision.reading is not None and decision.reading.reader == "builtin"
    assert decision.note and "llm reader not used: budget: session budget spent" in decision.note


COMMAND_READER = """
import json, sys
request = json.load(sys.stdin)
open(sys.argv[1], "w").write(json.dumps(request))
print(json.dumps({"tokens": 40, "facts": [
    {"kind": "unfinished_work", "confidence": 0.93, "quote": "nothing pads the zeros"}]}))
"""


def test_a_command_reader_gets_the_turn_as_data_and_its_reading_pushes(tmp_path: Path) -> None:
    script = tmp_path / "reader.py"
    script.write_text(COMMAND_READER, encoding="utf-8")
    request_file = tmp_path / "request.json"
    reader = {
        "kind": "command",
        "when": "always",
        "trace_tokens": CAP,
        "command": [sys.executable, str(script), str(request_file)],
    }
    ctx = DecisionContext(config=config.validate({"reader": reader}, "t"))
    decision = decide(checked_change(), ctx)
    request = json.loads(request_file.read_text(encoding="utf-8"))
    trace = request["trace"]
    assert "unfinished_work" in request["kinds"]
    assert trace["total_calls"] == 33 and trace["omitted_calls"] > 0
    assert trace["calls"][-1] == {
        "at": 33,
        "tool": "Bash",
        "what": "python -m pytest -q tests/test_writer.py",
        "outcome": "exit 0",
        "tail": ["....", "4 passed in 0.31s"],
    }
    assert trace["tokens"] <= CAP and trace["final_message"] == FINAL
    assert decision.should_block and "nothing pads the zeros" in (decision.feedback or "")
