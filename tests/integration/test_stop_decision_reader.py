"""A configured reader's facts reach the stop decision itself (not only the record), and a
failed read leaves the built-in decision standing with one visible line."""

from __future__ import annotations

import sys
from pathlib import Path

from reflection_core import config
from reflection_core.session.decide import DecisionContext, decide
from tests.unit.sessionbuild import SessionBuilder

READER = """
import json, sys, time
mode = sys.argv[1]
json.load(sys.stdin)
if mode == "hang":
    time.sleep(60)
print(json.dumps({"tokens": 50, "facts": [
    {"kind": mode, "confidence": 0.95, "quote": "the words the reader pointed at"}]}))
"""


def _ctx(tmp_path: Path, mode: str, **reader: object) -> DecisionContext:
    script = tmp_path / "reader.py"
    script.write_text(READER, encoding="utf-8")
    data = config.validate(
        {
            "reader": {
                "kind": "command",
                "when": "always",
                "command": [sys.executable, str(script), mode],
                **reader,
            }
        },
        "t",
    )
    return DecisionContext(config=data)


def _tested_change() -> object:
    return (
        SessionBuilder("Make the parser accept trailing commas in lists.")
        .edit("src/parser.py")
        .bash("python -m pytest", output="12 passed in 0.4s")
        .build("The parser accepts trailing commas in lists.")
    )


def test_without_a_paid_reader_a_tested_change_is_complete(tmp_path: Path) -> None:
    decision = decide(_tested_change(), DecisionContext(config=config.defaults()))
    assert decision.complete and not decision.should_block
    assert decision.reading is not None and decision.reading.reader == "builtin"


def test_a_sure_remaining_work_fact_from_the_reader_pushes_the_agent_on(tmp_path: Path) -> None:
    decision = decide(_tested_change(), _ctx(tmp_path, "remaining_work"))
    assert decision.reading is not None and decision.reading.reader == "command"
    assert decision.should_block
    assert "the words the reader pointed at" in (decision.feedback or "")


def test_a_reader_that_hangs_falls_back_and_says_so(tmp_path: Path) -> None:
    decision = decide(_tested_change(), _ctx(tmp_path, "hang", timeout_seconds=1))
    assert not decision.should_block
    assert decision.reading is not None and decision.reading.error
    assert decision.note and "timeout" in decision.note
