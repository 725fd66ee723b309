"""The command reader through `dispatch.read`: a real program, JSON in on stdin, JSON out."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reflection_core.config import Config, validate
from reflection_core.reading import ledger
from reflection_core.reading.dispatch import read
from reflection_core.reading.facts import FACT_KINDS, TURN_KINDS
from tests.readerutil import builtin, digest

READER = """
import json, sys, time
mode = sys.argv[1]
request = json.load(sys.stdin)
with open(sys.argv[2], "w") as handle:
    json.dump(request, handle)
if mode == "ok":
    question = "?" in request["digest"]["final_message"]
    print(json.dumps({"tokens": 321, "facts": [
        {"kind": "question_for_user", "confidence": 0.9 if question else 0.0, "quote": "?"},
        {"kind": "remaining_work", "confidence": 0.0},
    ]}))
elif mode == "hang":
    time.sleep(60)
elif mode == "fail":
    print("model server unreachable", file=sys.stderr)
    sys.exit(3)
elif mode == "text":
    print("question_for_user: yes")
elif mode == "types":
    print(json.dumps({"facts": [{"kind": "question_for_user", "confidence": [1]},
                                {"kind": "approve_stop", "confidence": 1.0},
                                {"kind": "stuck", "confidence": 0.8, "quote": "x" * 999}]}))
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "reader.py"
    path.write_text(READER, encoding="utf-8")
    return path


def cfg(script: Path, mode: str, tmp_path: Path, **reader: Any) -> Config:
    argv = [sys.executable, str(script), mode, str(tmp_path / "request.json")]
    return Config(data=validate({"reader": {"kind": "command", "command": argv, **reader}}, "t"))


def test_the_command_reads_the_digest_and_its_facts_replace_the_builtin(
    script: Path, tmp_path: Path
) -> None:
    final = "The flag works. Should it also apply to the config file?"
    reading = read(digest(final_message=final), builtin(), cfg(script, "ok", tmp_path))
    assert reading.error is None and reading.reader == "command"
    assert reading.has("question_for_user")
    assert not reading.has("remaining_work", 0.01)  # answered 0: the builtin's fact is replaced
    assert reading.cost_tokens == 321
    request = json.loads((tmp_path / "request.json").read_text())
    assert request["digest"]["final_message"] == final
    assert set(request["kinds"]) == set(FACT_KINDS) - set(TURN_KINDS)  # no trace, no turn kinds
    assert "trace" not in request
    assert request["builtin"] == [
        {"kind": "remaining_work", "confidence": 0.45, "quote": "Next I will wire it"}
    ]
    assert ledger.recent_reads(1)[0]["tokens"] == 321


def test_the_config_may_be_given_as_its_plain_data_dict(script: Path, tmp_path: Path) -> None:
    reading = read(digest(), builtin(), cfg(script, "ok", tmp_path).data)
    assert reading.error is None and reading.reader == "command"


def test_a_command_string_is_split_without_a_shell(script: Path, tmp_path: Path) -> None:
    out = tmp_path / "request with space.json"
    command = f"{sys.executable} {script} ok '{out}'"
    config = Config(data=validate({"reader": {"kind": "command", "command": command}}, "t"))
    assert read(digest(), builtin(), config).error is None
    assert out.is_file()


def test_a_hanging_command_is_killed_within_the_timeout(script: Path, tmp_path: Path) -> None:
    base = builtin()
    started = time.monotonic()
    reading = read(digest(), base, cfg(script, "hang", tmp_path, timeout_seconds=1))
    assert time.monotonic() - started < 20.0  # killed at 1 s, not after the script's 60 s
    assert reading.facts == base.facts
    assert reading.error is not None and "timeout" in reading.error


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("fail", "exited 3: model server unreachable"), ("text", "not JSON")],
)
def test_failures_fall_back_visibly(script: Path, tmp_path: Path, mode: str, expected: str) -> None:
    base = builtin()
    reading = read(digest(), base, cfg(script, mode, tmp_path))
    assert reading.facts == base.facts
    assert reading.error is not None and expected in reading.error


def test_wrong_types_and_unknown_kinds_are_dropped(script: Path, tmp_path: Path) -> None:
    reading = read(digest(), builtin(), cfg(script, "types", tmp_path))
    assert reading.error is None
    assert [(f.kind, len(f.quote)) for f in reading.facts if f.source == "command"] == [
        ("stuck", 200)
    ]
    assert reading.has("remaining_work", 0.4)  # not answered: the builtin's fact stays


def test_an_empty_command_is_a_visible_config_error() -> None:
    config = Config(data=validate({"reader": {"kind": "command"}}, "t"))
    reading = read(digest(), builtin(), config)
    assert reading.error is not None and "reader.command is empty" in reading.error


def test_a_zero_budget_turns_the_command_off(script: Path, tmp_path: Path) -> None:
    reading = read(digest(), builtin(), cfg(script, "ok", tmp_path, budget_tokens_per_session=0))
    assert reading.error is not None and "session budget spent" in reading.error
    assert not (tmp_path / "request.json").exists()


def test_a_bug_in_the_reader_plumbing_is_visible_not_silent(
    script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reflection_core.reading import command

    def broken(*args: Any) -> str:
        raise TypeError("payload builder broke")

    monkeypatch.setattr(command, "stdin_payload", broken)
    base = builtin()
    reading = read(digest(), base, cfg(script, "ok", tmp_path))
    assert reading.facts == base.facts
    assert (
        reading.error == "command reader not used: internal error TypeError: payload builder broke"
    )
    assert ledger.recent_reads(1)[0]["outcome"] == "bug"
