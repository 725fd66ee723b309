"""The previous assistant message from the tail of a transcript, tolerant of bad files."""

from __future__ import annotations

import json
import os
from pathlib import Path

from reflection_core.prompt.transcript_tail import (
    assistant_turn,
    previous_assistant_turn,
    read_tail,
)


def previous_assistant_message(path: object) -> str | None:
    """The last message alone, as most of these cases read it."""
    return previous_assistant_turn(path)[0]


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


def test_reads_codex_rollout_files_last_message_only(tmp_path: Path) -> None:
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
    assert previous_assistant_turn(str(path)) == ("1. x\n2. y", "")  # the last message only


def test_missing_file_empty_path_and_wrong_types_give_none(tmp_path: Path) -> None:
    assert previous_assistant_message(str(tmp_path / "nope.jsonl")) is None
    assert previous_assistant_message("") is None
    assert previous_assistant_message(None) is None
    assert previous_assistant_message(42) is None
    assert previous_assistant_message(str(tmp_path)) is None  # a directory
    assert previous_assistant_turn(None) == (None, "")


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


def _result(tool_use_id: str) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": "done"}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


def _prompt(text: str) -> dict:
    return {"type": "user", "message": {"role": "user", "content": text}}


def test_the_turn_text_before_the_last_message_reaches_back_to_the_users_prompt() -> None:
    lines = [
        _line(_assistant("m0", [{"type": "text", "text": "the turn before"}])),
        _line(_prompt("pick a fix")),
        _line(_assistant("m1", [{"type": "text", "text": "Options:\n1. a\n2. b"}])),
        _line(_assistant("m1", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}])),
        _line(_result("t1")),
        _line(_assistant("m2", [{"type": "text", "text": "Checked."}])),
        _line(_assistant("m2", [{"type": "tool_use", "id": "t2", "name": "Read", "input": {}}])),
        _line(_result("t2")),
        _line(_assistant("m3", [{"type": "text", "text": "Tell me which."}])),
    ]
    assert assistant_turn(lines) == ("Tell me which.", "Options:\n1. a\n2. b\nChecked.")


def test_a_turn_of_one_message_has_no_earlier_text(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        _line(_prompt("hi")) + _line(_assistant("m1", [{"type": "text", "text": "1. x"}])),
        encoding="utf-8",
    )
    assert previous_assistant_turn(str(path)) == ("1. x", "")
    assert assistant_turn([_line(_assistant("m1", [{"type": "text", "text": "only"}]))]) == (
        "only",
        "",
    )


def test_the_earlier_text_of_a_long_turn_is_capped_to_its_newest_part() -> None:
    from reflection_core.prompt.transcript_tail import MAX_EARLIER_CHARS

    lines = [_line(_prompt("go"))]
    for n in range(40):
        lines.append(_line(_assistant(f"m{n}", [{"type": "text", "text": f"<{n}>" + "x" * 500}])))
        lines.append(_line(_result(f"t{n}")))
    lines.append(_line(_assistant("last", [{"type": "text", "text": "Done."}])))
    last, earlier = assistant_turn(lines)
    assert last == "Done."
    assert len(earlier) <= MAX_EARLIER_CHARS
    assert "<39>" in earlier and "<0>" not in earlier
