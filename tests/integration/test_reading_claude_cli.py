"""The Claude Code reader through `dispatch.read`, against a stub `claude` executable.

The stub prints the envelope the real CLI prints for `-p --output-format json` (its
keys copied from the pinned CLI's output) and records how it was called. The real
CLI against a scripted model is in tests/e2e/test_claude_reader.py.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reflection_core.config import Config, validate
from reflection_core.reading import claude_cli, ledger
from reflection_core.reading.dispatch import read
from tests.readerutil import builtin, digest
from tests.unit.sessionbuild import SessionBuilder

STUB = """#!{python}
import json, os, subprocess, sys, time
record = os.environ["STUB_RECORD"]
mode = os.environ.get("STUB_MODE", "ok")
with open(record, "w") as handle:
    json.dump({{"argv": sys.argv[1:], "stdin": sys.stdin.read(), "cwd": os.getcwd()}}, handle)
if mode == "hang":
    child = subprocess.Popen(["sleep", "60"])
    with open(record + ".pids", "w") as handle:
        handle.write(f"{{os.getpid()}} {{child.pid}}")
    time.sleep(60)
if mode == "garbage":
    print("Welcome to Claude Code!")
    sys.exit(0)
if mode == "exit":
    print("Invalid API key - Please run /login", file=sys.stderr)
    sys.exit(1)
envelope = {{
    "type": "result", "subtype": "success", "is_error": False, "duration_ms": 2140,
    "duration_api_ms": 1980, "num_turns": 1, "stop_reason": "end_turn",
    "result": os.environ.get("STUB_RESULT", ""), "session_id": "3f1c0d7e-stub",
    "total_cost_usd": 0.00121, "permission_denials": [], "terminal_reason": "completed",
    "usage": {{"input_tokens": 812, "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 2048, "output_tokens": 95,
              "server_tool_use": {{"web_search_requests": 0, "web_fetch_requests": 0}},
              "service_tier": "standard"}},
    "modelUsage": {{"claude-haiku-5-5": {{"inputTokens": 812, "outputTokens": 95}}}},
    "uuid": "9a7e-stub",
}}
if mode == "api_error":
    envelope.update(is_error=True, result="API Error: 529 Overloaded", api_error_status=529)
    print(json.dumps(envelope))
    sys.exit(1)
if mode == "max_turns":
    envelope.update(subtype="error_max_turns", result=None)
print(json.dumps(envelope))
"""

USAGE_TOKENS = 812 + 2048 + 95


@pytest.fixture
def stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    path = bin_dir / "claude"
    path.write_text(STUB.format(python=sys.executable), encoding="utf-8")
    path.chmod(0o755)
    monkeypatch.setenv("STUB_RECORD", str(tmp_path / "call.json"))
    monkeypatch.setenv("STUB_RESULT", answer(remaining_work=0.85))
    return path


def answer(**confidences: float) -> str:
    facts = [{"kind": k, "confidence": c, "quote": f"on {k}"} for k, c in confidences.items()]
    return json.dumps({"facts": facts})


def cfg(stub: Path | None, **reader: Any) -> Config:
    settings: dict[str, Any] = {"kind": "claude", **reader}
    if stub is not None:
        settings["claude_path"] = str(stub)
    return Config(data=validate({"reader": settings}, "test"))


def call(stub: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((stub.parent.parent / "call.json").read_text())
    return data


def test_the_envelope_result_becomes_facts_with_cost(stub: Path) -> None:
    reading = read(digest(), builtin(), cfg(stub))
    assert reading.error is None and reading.reader == "claude:haiku"
    assert reading.confidence("remaining_work") == pytest.approx(0.85)
    assert reading.cost_tokens == USAGE_TOKENS
    assert reading.extra["paid"]["usd"] == pytest.approx(0.00121)
    row = ledger.recent_reads(1)[0]
    assert row["outcome"] == "ok" and row["tokens"] == USAGE_TOKENS


def test_the_cli_is_called_headless_without_hooks_tools_or_a_shell(stub: Path) -> None:
    read(digest(), builtin(), cfg(stub))
    seen = call(stub)
    argv = seen["argv"]
    assert argv[:2] == ["-p", "--model"] and argv[2] == "haiku"
    assert argv[argv.index("--output-format") + 1] == "json"
    assert "--safe-mode" in argv and "--no-session-persistence" in argv
    assert argv[argv.index("--tools") + 1] == ""
    assert "report facts only" in argv[argv.index("--system-prompt") + 1]
    assert json.loads(seen["stdin"])["task_prompt"] == digest()["task_prompt"]
    assert digest()["task_prompt"] not in " ".join(argv)
    assert Path(seen["cwd"]).name.startswith("reflection-reader-")


def test_the_turn_goes_on_stdin_after_the_digest_with_the_turn_prompt(
    stub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_RESULT", answer(unfinished_work=0.92))
    session = (
        SessionBuilder("Add a --verbose flag to the CLI and cover it with a test.")
        .edit("cli.py", new="parser.add_argument('--verbose')")
        .bash("python -m pytest -q", output="5 passed in 0.2s")
        .build("Added the flag.")
    )
    reading = read(digest(), builtin(), cfg(stub, trace_tokens=500), session)
    seen = call(stub)
    system = seen["argv"][seen["argv"].index("--system-prompt") + 1]
    assert "- unfinished_work: " in system
    head, trace = seen["stdin"].split("\n\nTRACE OF THE TURN", 1)
    assert json.loads(head)["task_prompt"] == digest()["task_prompt"]
    assert "#1 Bash: python -m pytest -q -> exit 0\n    5 passed in 0.2s" in trace
    assert reading.has("unfinished_work", 0.9)
    assert reading.extra["paid"]["trace"]["calls"] == 2


def test_reader_model_picks_the_cli_model(stub: Path) -> None:
    reading = read(digest(), builtin(), cfg(stub, model="sonnet"))
    assert call(stub)["argv"][2] == "sonnet" and reading.reader == "claude:sonnet"


def test_the_cli_is_found_on_path_by_default(stub: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{stub.parent}{os.pathsep}{os.environ['PATH']}")
    reading = read(digest(), builtin(), cfg(None))
    assert reading.error is None and reading.has("remaining_work")


def test_a_hanging_cli_is_killed_with_its_children_and_the_builtin_is_used(
    stub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_MODE", "hang")
    base = builtin()
    started = time.monotonic()
    reading = read(digest(), base, cfg(stub, timeout_seconds=1.5))
    elapsed = time.monotonic() - started
    assert elapsed < 20.0  # killed at the 1.5 s budget, not after the stub's 60 s
    assert reading.facts == base.facts
    assert reading.error is not None and "timeout" in reading.error
    pids = (stub.parent.parent / "call.json.pids").read_text().split()
    for pid in map(int, pids):
        assert not _alive(pid), f"process {pid} survived the timeout"
    assert ledger.recent_reads(1)[0]["outcome"] == "timeout"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("api_error", "API Error: 529 Overloaded"),
        ("max_turns", "error_max_turns"),
        ("garbage", "format"),
        ("exit", "Please run /login"),
    ],
)
def test_cli_failures_fall_back_visibly(
    stub: Path, monkeypatch: pytest.MonkeyPatch, mode: str, expected: str
) -> None:
    monkeypatch.setenv("STUB_MODE", mode)
    base = builtin()
    reading = read(digest(), base, cfg(stub))
    assert reading.facts == base.facts
    assert reading.error is not None and expected in reading.error


def test_an_error_envelope_still_counts_its_tokens(
    stub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_MODE", "api_error")
    reading = read(digest(), builtin(), cfg(stub))
    assert reading.cost_tokens == USAGE_TOKENS
    assert ledger.recent_reads(1)[0]["tokens"] == USAGE_TOKENS


@pytest.mark.parametrize(
    "result",
    [
        "The agent has finished the task.",
        json.dumps({"status": "complete"}),
        json.dumps({"facts": {"stuck": 0.9}}),
    ],
)
def test_a_malformed_result_falls_back(
    stub: Path, monkeypatch: pytest.MonkeyPatch, result: str
) -> None:
    monkeypatch.setenv("STUB_RESULT", result)
    reading = read(digest(), builtin(), cfg(stub))
    assert reading.error is not None and "malformed" in reading.error
    assert reading.cost_tokens == USAGE_TOKENS


def test_unknown_kinds_and_wrong_types_in_the_result_are_dropped(
    stub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = [
        {"kind": "all_done", "confidence": 1.0},
        {"kind": "stuck", "confidence": "0.9"},
        {"kind": "human_only", "confidence": 2, "quote": 42},
    ]
    monkeypatch.setenv("STUB_RESULT", json.dumps({"facts": facts}))
    reading = read(digest(), builtin(), cfg(stub))
    assert reading.error is None
    assert reading.confidence("human_only") == 1.0
    assert not reading.has("stuck", 0.01)
    assert len(reading.extra["paid"]["dropped"]) == 2


def test_a_missing_cli_falls_back(tmp_path: Path) -> None:
    reading = read(digest(), builtin(), cfg(tmp_path / "no-such-claude"))
    assert reading.error is not None and "missing" in reading.error


def test_the_envelope_parser_takes_the_result_line() -> None:
    noise = "warning: something\n" + json.dumps({"type": "result", "result": "x"}) + "\n"
    assert claude_cli.parse_envelope(noise) == {"type": "result", "result": "x"}
    assert claude_cli.parse_envelope("not json") is None
    assert claude_cli.envelope_tokens({"usage": {"input_tokens": 3, "output_tokens": True}}) == 3
