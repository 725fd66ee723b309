"""The notifier and the stop hook race on Claude Code's Stop event: whichever starts first,
the verdict of this stop is notified exactly once. Real processes, files and HTTP."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from reflection_core.atomic import write_json_atomic
from reflection_core.consumers.verdict_files import parse_timestamp
from tests.hookrun import run_hook
from tests.integration.test_notify_delivery import (
    Receiver,
    configure,
    log_entries,
    receiver,
    run_notify,
    stop_payload,
)
from tests.verdictutil import write_verdict

__all__ = ["receiver"]  # the fixture, imported for pytest


def answered_question_payload(repo: Path, tmp_path: Path, session: str) -> dict[str, Any]:
    """A Stop payload whose transcript the real stop hook judges complete."""
    transcript = tmp_path / f"{session}.jsonl"
    records = [
        {"type": "user", "uuid": "u1", "sessionId": session, "cwd": str(repo),
         "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "What does the initial commit contain?"}},
        {"type": "assistant", "uuid": "a1", "sessionId": session, "cwd": str(repo),
         "timestamp": "2026-01-01T00:00:05Z",
         "message": {"id": "m1", "role": "assistant",
                     "content": [{"type": "text", "text": "Only a .gitignore file."}]}},
    ]  # fmt: skip
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return {
        **stop_payload(repo, session, "Only a .gitignore file."),
        "transcript_path": str(transcript),
        "stop_hook_active": False,
    }


def sleep_into_the_next_second(created_at: str) -> None:
    """Start the notifier in a later wall-clock second than the verdict was written in."""
    created = parse_timestamp(created_at).timestamp()
    time.sleep(max(0.0, int(created) + 1.05 - time.time()))


def test_verdict_written_before_the_notifier_started_is_still_notified(
    git_repo: Path, receiver: tuple[Receiver, int], tmp_path: Path
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    payload = answered_question_payload(git_repo, tmp_path, "race-1")
    stop = run_hook("stop", payload, git_repo)
    assert stop.returncode == 0, stop.stderr
    verdict = json.loads((git_repo / ".reflection" / "verdict_race-1.json").read_text("utf-8"))
    assert verdict["complete"] is True
    sleep_into_the_next_second(verdict["created_at"])

    proc = run_notify(git_repo, payload, "--wait", "3")

    assert proc.returncode == 0, proc.stderr
    assert "task complete" in json.loads(proc.stdout)["terminalSequence"]
    assert [post["message"] for post in received.posts] == ["Only a .gitignore file."]
    assert log_entries(git_repo)[-1]["verdict_created_at"] == verdict["created_at"]


def test_the_same_verdict_is_never_notified_twice(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    write_verdict(git_repo, "race-2", complete=True)
    first = run_notify(git_repo, stop_payload(git_repo, "race-2"), "--wait", "1")
    second = run_notify(git_repo, stop_payload(git_repo, "race-2"), "--wait", "1")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert len(received.posts) == 1
    assert second.stdout == ""
    reason = log_entries(git_repo)[-1]["reason"]
    assert reason.startswith("another notifier already handled verdict_race-2.json"), reason


def test_the_notifier_that_loses_the_race_says_so_and_stops_waiting(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    """Two notifiers on one stop (the Stop entry registered twice, say), both started
    before the verdict: one delivers; the other ends as soon as it sees the verdict
    claimed, and logs why, instead of idling out its --wait as "no fresh verdict"."""
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    payload = stop_payload(git_repo, "race-4")
    writer = threading.Timer(1.5, lambda: write_verdict(git_repo, "race-4", complete=True))
    results: list[Any] = [None, None]

    def notifier(index: int) -> None:
        results[index] = run_notify(git_repo, payload, "--wait", "20")

    threads = [threading.Thread(target=notifier, args=(n,)) for n in range(2)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    writer.start()
    for thread in [*threads, writer]:
        thread.join()
    took = time.monotonic() - began
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert len(received.posts) == 1
    reasons = [entry.get("reason") for entry in log_entries(git_repo)]
    assert any((r or "").startswith("another notifier already handled") for r in reasons), reasons
    assert not any("no fresh verdict" in (r or "") for r in reasons), reasons
    assert took < 12, f"the losing notifier waited out its --wait ({took:.1f}s)"


def test_the_previous_stops_verdict_is_not_mistaken_for_this_ones(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    """The stop hook blocked, the agent stopped again within the grace window: the
    second notifier must wait for the new verdict, not take the one already handled."""
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    blocked = write_verdict(git_repo, "race-3", complete=False)
    record = json.loads(blocked.read_text("utf-8"))["record"]
    write_json_atomic(git_repo / record, {"decision": {"should_block": True}})
    first = run_notify(git_repo, stop_payload(git_repo, "race-3"), "--wait", "5")
    assert first.returncode == 0 and first.stdout == "", first.stderr
    assert "not notifying" in log_entries(git_repo)[-1]["reason"]

    writer = threading.Timer(1.0, lambda: write_verdict(git_repo, "race-3", complete=True))
    writer.start()
    try:
        second = run_notify(git_repo, stop_payload(git_repo, "race-3", "All done."), "--wait", "10")
    finally:
        writer.join()
    assert second.returncode == 0, second.stderr
    assert "task complete" in json.loads(second.stdout)["terminalSequence"]
    assert [post["message"] for post in received.posts] == ["All done."]
