"""The next-turn reading through the configured command reader: a real program."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reflection_core.config import Config, validate
from reflection_core.outcomes.grade import NEXT_PROMPT_OUTCOMES, Previous
from reflection_core.outcomes.reader import read_next_turn

READER = """
import json, sys
request = json.load(sys.stdin)
with open(sys.argv[2], "w") as handle:
    json.dump(request, handle)
if sys.argv[1] == "ok":
    print(json.dumps({"outcome": "premature", "rule": "sarcasm"}))
elif sys.argv[1] == "odd":
    print(json.dumps({"outcome": "great job"}))
else:
    sys.exit(3)
"""


def cfg(tmp_path: Path, mode: str, when: str = "uncertain") -> Config:
    script = tmp_path / "reader.py"
    script.write_text(READER, encoding="utf-8")
    argv = [sys.executable, str(script), mode, str(tmp_path / "request.json")]
    reader = {"kind": "command", "command": argv, "when": when}
    return Config(data=validate({"reader": reader}, "t"))


def test_an_unsure_builtin_reading_is_handed_to_the_command(tmp_path: Path) -> None:
    graded = read_next_turn("oh great, another blank page", Previous(), cfg(tmp_path, "ok"))
    assert (graded.outcome, graded.rule, graded.reader) == ("premature", "sarcasm", "command")
    request = json.loads((tmp_path / "request.json").read_text(encoding="utf-8"))
    assert request["next_turn"]["prompt"] == "oh great, another blank page"
    assert set(request["outcomes"]) == set(NEXT_PROMPT_OUTCOMES)
    assert request["builtin"] == {"outcome": "fine", "rule": "moves_on"}


def test_a_sure_builtin_reading_is_not_sent_unless_always(tmp_path: Path) -> None:
    graded = read_next_turn("it still doesn't work", Previous(), cfg(tmp_path, "ok"))
    assert (graded.reader, graded.outcome) == ("builtin", "premature")
    assert not (tmp_path / "request.json").exists()
    always = read_next_turn("thanks!", Previous(), cfg(tmp_path, "ok", when="always"))
    assert always.reader == "command"


def test_a_failing_or_odd_command_keeps_the_builtin_outcome_and_says_why(tmp_path: Path) -> None:
    failed = read_next_turn("add a footer", Previous(), cfg(tmp_path, "fail"))
    assert (failed.outcome, failed.reader) == ("fine", "builtin")
    assert failed.error and "exited 3" in failed.error
    odd = read_next_turn("add a footer", Previous(), cfg(tmp_path, "odd"))
    assert odd.reader == "builtin" and odd.error and "no known outcome" in odd.error


def test_without_a_configured_reader_the_builtin_reads(tmp_path: Path) -> None:
    graded = read_next_turn("continue", Previous(), Config(data=validate({}, "t")))
    assert (graded.outcome, graded.rule, graded.reader) == ("premature", "pushes_on", "builtin")
