"""The LLM-judge promptfoo provider against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("reflection_core.verify.judge", reason="the LLM judge has not landed")
pytest.importorskip("reflection_core.session.analyze", reason="the session analysis has not landed")


def _verdict(status: str, needs_user_action: bool) -> dict[str, Any]:
    return {
        "status": status,
        "confidence": 0.9,
        "evidence": {
            "tests": {"ran": True, "results": "passed", "ran_after_changes": True, "commands": []},
            "build": {"ran": False, "results": "not_run"},
            "pr": {"created": False, "url": None, "ci_status": None},
        },
        "remaining_work": [],
        "needs_user_action": needs_user_action,
        "stuck": False,
        "alternate_approach": None,
    }


class _ScriptedModel(BaseHTTPRequestHandler):
    """Answers every chat completion with the verdict the test scripted; records requests."""

    answer: ClassVar[dict[str, Any]] = {}
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body})
        reply = {
            "id": "chatcmpl-1",
            "model": body.get("model"),
            "choices": [{"message": {"role": "assistant", "content": json.dumps(self.answer)}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 80},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def model_url() -> Iterator[str]:
    _ScriptedModel.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ScriptedModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _provider() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "promptfoo_judge_provider", ROOT / "evals" / "promptfoo_judge_provider.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _options(url: str) -> dict[str, Any]:
    return {"config": {"provider": "openai", "base_url": url, "model": "local-judge"}}


def test_the_judge_answer_becomes_the_fields_the_judge_decides(model_url: str) -> None:
    _ScriptedModel.answer = _verdict("blocked", needs_user_action=True)
    result = _provider().call_api(
        "eval case judge-022 of suite judge",
        _options(model_url),
        {"vars": {"suite": "judge", "case_id": "judge-022"}},
    )
    got = json.loads(result["output"])
    assert got["complete"] is False
    assert got["requires_human_action"] is True
    assert got["_judged_fields"] == ["complete", "requires_human_action"]
    request = _ScriptedModel.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "local-judge"
    assert "npm publish" in json.dumps(request["body"])  # the task reached the judge


def test_deterministic_evidence_overrides_a_judge_that_says_complete(model_url: str) -> None:
    _ScriptedModel.answer = _verdict("complete", needs_user_action=False)
    result = _provider().call_api(
        "eval case judge-010 of suite judge",
        _options(model_url),
        {"vars": {"suite": "judge", "case_id": "judge-010"}},
    )
    got = json.loads(result["output"])
    assert got["rules_status"] != "complete"
    assert got["complete"] is False  # failing tests after the last change: evidence wins


def test_an_unreachable_judge_is_a_provider_error_not_a_verdict() -> None:
    result = _provider().call_api(
        "eval case judge-001 of suite judge",
        {
            "config": {
                "provider": "openai",
                "base_url": "http://127.0.0.1:9/v1",
                "model": "m",
                "timeout": 2,
            }
        },
        {"vars": {"suite": "judge", "case_id": "judge-001"}},
    )
    assert "error" in result and "output" not in result
