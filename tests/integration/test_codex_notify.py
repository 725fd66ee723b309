"""`reflection hook codex-notify JSON` as Codex runs it: one argv JSON, real files and HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from reflection_core.consumers import verdict_files
from tests.loopback import json_receiver
from tests.verdictutil import write_verdict

REFLECTION = str(Path(sys.executable).with_name("reflection"))
VERDICT_SCHEMA = json.loads(
    resources.files("reflection_core").joinpath("data/verdict.schema.json").read_text("utf-8")
)


@pytest.fixture
def posts(git_repo: Path) -> Iterator[list[dict[str, Any]]]:
    with json_receiver() as (received, port):
        url = f"json://127.0.0.1:{port}/"
        (git_repo / ".reflection.yaml").write_text(
            f"notify:\n  urls: [{json.dumps(url)}]\n", encoding="utf-8"
        )
        yield received.posts


def codex_notify(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [REFLECTION, "hook", "codex-notify", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def turn(repo: Path, message: str, thread: str = "019a-thread") -> str:
    return json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": thread,
            "turn-id": "t1",
            "cwd": str(repo),
            "client": "codex_exec",
            "input-messages": ["rename the config loader"],
            "last-assistant-message": message,
        }
    )


def test_finished_turn_writes_a_verdict_and_notifies(
    git_repo: Path, posts: list[dict[str, Any]]
) -> None:
    proc = codex_notify(turn(git_repo, "Renamed the loader and updated its callers."))
    assert proc.returncode == 0, proc.stderr
    verdict = verdict_files.latest_verdict(git_repo, "019a-thread")
    assert verdict is not None and verdict.complete
    jsonschema.validate(verdict.data, VERDICT_SCHEMA)
    record = json.loads((git_repo / verdict.data["record"]).read_text("utf-8"))
    assert record["source"] == "codex-notify" and record["turn_id"] == "t1"
    assert len(posts) == 1 and posts[0]["title"].startswith("reflection: task complete")


def test_a_receiver_that_trickles_its_answer_cannot_hold_the_notifier_past_its_deadline(
    git_repo: Path,
) -> None:
    """notify.timeout bounds each read, and a byte every 0.5 s passes every read: the run's
    deadline (hooks.deadline_seconds) ends it, as it ends `reflection notify`."""
    with json_receiver(trickle=0.5) as (received, port):
        url = f"json://127.0.0.1:{port}/"
        (git_repo / ".reflection.yaml").write_text(
            f"notify:\n  urls: [{json.dumps(url)}]\n  timeout: 2\nhooks:\n  deadline_seconds: 3\n",
            encoding="utf-8",
        )
        began = time.monotonic()
        proc = codex_notify(turn(git_repo, "Renamed the loader and updated its callers."))
        took = time.monotonic() - began
    assert proc.returncode == 0, proc.stderr
    assert took < 8, f"codex-notify ran {took:.1f}s against a 3 s deadline"
    assert len(received.posts) == 1
    assert "abandoned" in proc.stderr
    verdict = verdict_files.latest_verdict(git_repo, "019a-thread")
    assert verdict is not None and verdict.complete


def test_unfinished_turn_writes_an_incomplete_verdict_and_stays_quiet(
    git_repo: Path, posts: list[dict[str, Any]]
) -> None:
    proc = codex_notify(turn(git_repo, "Started.\n\nTODO: update the callers"))
    assert proc.returncode == 0, proc.stderr
    verdict = verdict_files.latest_verdict(git_repo, "019a-thread")
    assert verdict is not None and verdict.status == "incomplete"
    assert posts == []


def test_a_fresh_stop_hook_verdict_wins_over_the_payload(
    git_repo: Path, posts: list[dict[str, Any]]
) -> None:
    write_verdict(git_repo, "019a-thread", complete=False)  # the Stop hook saw no test run
    proc = codex_notify(turn(git_repo, "All done, tests pass."))
    assert proc.returncode == 0, proc.stderr
    verdict = verdict_files.latest_verdict(git_repo, "019a-thread")
    assert verdict is not None and verdict.status == "incomplete"
    assert verdict.data["missing"] == ["tests did not run after the latest edit"]
    assert posts == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "expected one JSON argument"),
        (("{oops",), "not valid JSON"),
        ((json.dumps({"type": "agent-turn-complete", "cwd": "/tmp"}),), "'thread-id' is missing"),
    ],
)
def test_malformed_payloads_exit_zero_with_a_clear_message(
    argv: tuple[str, ...], message: str, isolated_state: Path
) -> None:
    proc = codex_notify(*argv)
    assert proc.returncode == 0
    assert message in proc.stderr
    if argv:
        kept = (isolated_state / "codex-notify-rejected.jsonl").read_text("utf-8")
        assert json.loads(kept.splitlines()[-1])["argument"] == argv[0]


def test_a_cwd_outside_any_repository_exits_zero(tmp_path: Path) -> None:
    proc = codex_notify(turn(tmp_path, "Done."))
    assert proc.returncode == 0
    assert "not inside a git repository" in proc.stderr


def test_non_utf8_bytes_in_the_argument_are_replaced_not_fatal(
    git_repo: Path, posts: list[dict[str, Any]]
) -> None:
    argument = turn(git_repo, "Done X.", thread="bytes-1")
    raw = argument.encode("utf-8").replace(b"Done X.", b"Done \xff.")
    proc = subprocess.run(
        [REFLECTION, "hook", "codex-notify", raw], capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    verdict = verdict_files.latest_verdict(git_repo, "bytes-1")
    assert verdict is not None and verdict.complete
    assert posts[0]["message"] == "Done \ufffd."


def test_a_large_final_message_is_handled_and_the_summary_stays_short(
    git_repo: Path, posts: list[dict[str, Any]]
) -> None:
    proc = codex_notify(turn(git_repo, "All done. " + "word " * 20_000, thread="big-1"))
    assert proc.returncode == 0, proc.stderr
    assert len(posts) == 1 and len(posts[0]["message"]) <= 281
