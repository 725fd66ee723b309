"""The previous assistant message from the tail of a transcript, tolerant of bad files."""

from __future__ import annotations

import json
import os
from pathlib import Path

from reflection_core.prompt.transcript_tail import previous_assistant_message, read_tail


def _line(record: dict) -> str:
    return json.dumps(record) + "\n"


def _assistant(msg_id: str, blocks: list[dict]) -> dict:
    return {"type": "assistant", "message": {"id": msg_id, "role": "assistant", "content": blocks}}


def test_reads_the_last_assistant_text_across_lines_of_one_message(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        _line(_assistant("m1", [{"type": "text", "text": "old message"}]))
        + _line({"type": "user", "message": {"role": "user", "content": "next"}})
        + _line(_assistant("m2", [{"type": "text", "text": "Options:"}]))
        + _line(_assistant("m2", [{"type": "tool_use", "name": "Bash", "input": {}}]))
        + _line(_assistant("m2", [{"type": "text", "text": "1. a\n2. b"}])),
        encoding="utf-8",
    )
    assert previous_assistant_message(str(path)) == "Options:\n1. a\n2. b"


def test_reads_codex_rollout_files(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    item = {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "1. x\n2. y"}],
        },
    }
    path.write_text(_line({"type": "session_meta", "payload": {}}) + _line(item), encoding="utf-8")
    assert previous_assistant_message(str(path)) == "1. x\n2. y"


def test_missing_file_empty_path_and_wrong_types_give_none(tmp_path: Path) -> None:
    assert previous_assistant_message(str(tmp_path / "nope.jsonl")) is None
    assert previous_assistant_message("") is None
    assert previous_assistant_message(None) is None
    assert previous_assistant_message(42) is None
    assert previous_assistant_message(str(tmp_path)) is None  # a directory


def test_truncated_and_garbled_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    good = _line(_assistant("m1", [{"type": "text", "text": "kept"}]))
    path.write_bytes(good.encode() + b'{"type": "assistant", "message": {"id": "m2", "cont\xff\xfe')
    assert previous_assistant_message(str(path)) == "kept"


def test_only_the_tail_is_read_from_a_huge_file(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    filler = _line({"type": "user", "message": {"content": "x" * 1000}}) * 2000  # ~2 MB
    last = _line(_assistant("m9", [{"type": "text", "text": "final words"}]))
    path.write_text(filler + last, encoding="utf-8")
    lines = read_tail(path, limit=64 * 1024)
    assert len(lines) < 100
    assert previous_assistant_message(str(path)) == "final words"


def test_a_fifo_is_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert previous_assistant_message(str(fifo)) is None  # returns instead of blocking
