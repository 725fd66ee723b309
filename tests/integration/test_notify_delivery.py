"""`reflection notify` end to end: real subprocess, real apprise, a loopback HTTP server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from reflection_core.atomic import write_json_atomic
from tests.hookrun import run_hook
from tests.loopback import Receiver, json_receiver
from tests.verdictutil import iso_utc, write_verdict

REFLECTION = str(Path(sys.executable).with_name("reflection"))
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, int]]:
    with json_receiver() as served:
        yield served


def configure(repo: Path, urls: list[str], **notify: Any) -> None:
    lines = ["notify:", f"  urls: {json.dumps(urls)}"]
    lines += [f"  {key}: {json.dumps(value)}" for key, value in notify.items()]
    (repo / ".reflection.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_notify(
    repo: Path, payload: dict[str, Any] | str, *args: str
) -> subprocess.CompletedProcess:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [REFLECTION, "notify", *args],
        cwd=repo,
        input=data,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )


def stop_payload(repo: Path, session: str, message: str = "Done.") -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "last_assistant_message": message,
    }


def log_entries(repo: Path) -> list[dict[str, Any]]:
    text = (repo / ".reflection" / "notify.log").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_complete_verdict_written_in_parallel_is_delivered_over_http(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/hook"])
    write_verdict(git_repo, "sess-1", complete=False, created_at=iso_utc(10))
    writer = threading.Timer(1.0, lambda: write_verdict(git_repo, "sess-1", complete=True))
    writer.start()
    message = f"All tests pass. I used {SECRET} to push."
    try:
        proc = run_notify(git_repo, stop_payload(git_repo, "sess-1", message), "--wait", "20")
    finally:
        writer.join()
    assert proc.returncode == 0, proc.stderr
    assert len(received.posts) == 1
    post = received.posts[0]
    assert post["title"] == f"reflection: task complete · {git_repo.name}"
    assert post["message"].startswith("All tests pass.")
    assert SECRET not in json.dumps(post)
    hook_output = json.loads(proc.stdout)
    assert hook_output["terminalSequence"].startswith("\x1b]9;reflection: task complete")
    assert log_entries(git_repo)[-1]["deliveries"] == [
        {"channel": "json://…", "ok": True, "error": ""}
    ]


def test_incomplete_verdict_sends_nothing_and_prints_nothing(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    write_verdict(git_repo, "sess-2", complete=False)
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-2"))
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert received.posts == []
    assert "not notifying" in log_entries(git_repo)[-1]["reason"]


def test_attention_sends_the_missing_items_when_configured(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"], attention=True)
    write_verdict(git_repo, "sess-3", complete=False)
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-3"))
    assert proc.returncode == 0, proc.stderr
    assert received.posts[0]["title"].startswith("reflection: needs attention")
    assert "tests did not run after the latest edit" in received.posts[0]["message"]


@pytest.mark.parametrize(("should_block", "sent"), [(True, False), (False, True)])
def test_attention_waits_until_the_agent_really_stopped(
    git_repo: Path, receiver: tuple[Receiver, int], should_block: bool, sent: bool
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"], attention=True)
    path = write_verdict(git_repo, "sess-10", complete=False)
    record = json.loads(path.read_text("utf-8"))["record"]
    write_json_atomic(git_repo / record, {"decision": {"should_block": should_block}})
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-10"))
    assert proc.returncode == 0, proc.stderr
    assert bool(received.posts) is sent


def test_stale_verdict_is_ignored(git_repo: Path, receiver: tuple[Receiver, int]) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    write_verdict(git_repo, "sess-4", complete=True, created_at=iso_utc(31))
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-4"))
    assert proc.returncode == 0
    assert received.posts == []
    assert "no fresh verdict" in proc.stderr


def test_wait_ignores_a_verdict_older_than_the_notifier(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    write_verdict(git_repo, "sess-5", complete=True, created_at=iso_utc(5))
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-5"), "--wait", "1")
    assert proc.returncode == 0
    assert received.posts == []


def test_failed_delivery_is_logged_without_the_url_and_never_fails_the_hook(
    git_repo: Path,
) -> None:
    unused = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = unused.server_address[1]
    unused.server_close()  # nothing listens here any more
    configure(git_repo, [f"json://user:{SECRET}@127.0.0.1:{port}/"], timeout=2)
    write_verdict(git_repo, "sess-6", complete=True)
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-6"))
    assert proc.returncode == 0
    assert "delivery to json://… failed" in proc.stderr
    entry = log_entries(git_repo)[-1]
    assert entry["deliveries"][0]["ok"] is False
    assert SECRET not in (git_repo / ".reflection" / "notify.log").read_text("utf-8")
    assert SECRET not in proc.stderr


def test_malformed_payload_falls_back_to_session_option(
    git_repo: Path, receiver: tuple[Receiver, int]
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    write_verdict(git_repo, "sess-7", complete=True)
    proc = run_notify(git_repo, '{"session_id": ', "--session", "sess-7")
    assert proc.returncode == 0
    assert "not valid JSON" in proc.stderr
    assert len(received.posts) == 1


def test_speech_command_gets_the_cleaned_message_as_one_argument(
    git_repo: Path, tmp_path: Path
) -> None:
    record = tmp_path / "spoken.json"
    stub = tmp_path / "say_stub.py"
    stub.write_text(
        f"import json, sys\nopen({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n",
        encoding="utf-8",
    )
    configure(git_repo, [], speak=f"{sys.executable} {stub}")
    write_verdict(git_repo, "sess-8", complete=True)
    message = "## Done\nRefactored `db.py`; see [PR](https://x/1). $(touch pwned)"
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-8", message))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(record.read_text("utf-8")) == ["Done Refactored ; see PR. $(touch pwned)"]
    assert not (git_repo / "pwned").exists()


def test_espeak_ng_writes_a_wav_file(git_repo: Path, tmp_path: Path) -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed on this machine; the stub-command test covers argv")
    wav = tmp_path / "out.wav"
    configure(git_repo, [], speak=f"espeak-ng -w {wav}")
    write_verdict(git_repo, "sess-9", complete=True)
    proc = run_notify(git_repo, stop_payload(git_repo, "sess-9", "All done."))
    assert proc.returncode == 0, proc.stderr
    assert wav.read_bytes()[:4] == b"RIFF"


def test_notify_waits_for_the_real_stop_hook_running_in_parallel(
    git_repo: Path, receiver: tuple[Receiver, int], tmp_path: Path
) -> None:
    received, port = receiver
    configure(git_repo, [f"json://127.0.0.1:{port}/"])
    transcript = tmp_path / "session.jsonl"
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "par-1", "cwd": str(git_repo),
         "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "What does the initial commit contain?"}},
        {"type": "assistant", "uuid": "a1", "sessionId": "par-1", "cwd": str(git_repo),
         "timestamp": "2026-01-01T00:00:05Z",
         "message": {"id": "m1", "role": "assistant",
                     "content": [{"type": "text", "text": "Only a .gitignore file."}]}},
    ]  # fmt: skip
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    payload = {
        **stop_payload(git_repo, "par-1", "Only a .gitignore file."),
        "transcript_path": str(transcript),
        "stop_hook_active": False,
    }
    payload_file = tmp_path / "payload.json"
    payload_file.write_text(json.dumps(payload), encoding="utf-8")
    with payload_file.open("rb") as stdin:  # the notifier waits while the stop hook runs
        notifier = subprocess.Popen(
            [REFLECTION, "notify", "--wait", "30"],
            cwd=git_repo,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    stop = run_hook("stop", payload, git_repo)
    out, err = notifier.communicate(timeout=60)
    assert stop.returncode == 0, stop.stderr
    assert notifier.returncode == 0, err
    assert "task complete" in json.loads(out)["terminalSequence"]
    assert [post["message"] for post in received.posts] == ["Only a .gitignore file."]


def test_a_body_that_trickles_in_cannot_hold_the_notifier_past_its_deadline(
    git_repo: Path,
) -> None:
    """notify.timeout bounds each read; a byte every 0.5 s passes every read. The run's
    deadline (hooks.deadline_seconds) still ends it, with the alert printed and logged."""
    with json_receiver(trickle=0.5) as (received, port):
        configure(git_repo, [f"json://127.0.0.1:{port}/"], timeout=2)
        (git_repo / ".reflection.yaml").write_text(
            (git_repo / ".reflection.yaml").read_text("utf-8") + "hooks:\n  deadline_seconds: 3\n"
        )
        write_verdict(git_repo, "slow-1", complete=True)
        began = time.monotonic()
        proc = run_notify(git_repo, stop_payload(git_repo, "slow-1"), "--wait", "20")
        took = time.monotonic() - began
    assert proc.returncode == 0, proc.stderr
    assert took < 8, f"notify ran {took:.1f}s against a 3 s deadline"
    assert len(received.posts) == 1
    assert json.loads(proc.stdout)["terminalSequence"].startswith("\x1b]9;reflection: task")
    assert "abandoned" in proc.stderr
    sending, done = log_entries(git_repo)[-2:]
    assert sending["sending"] == ["json://…"] and sending["kind"] == "done"
    assert done["deliveries"][0]["ok"] is False
    assert "notify deadline" in done["deliveries"][0]["error"]


def test_slow_channels_are_tried_at_once_not_one_after_another(git_repo: Path) -> None:
    with json_receiver(delay=2.5) as (received, port):
        configure(git_repo, [f"json://127.0.0.1:{port}/{n}" for n in range(3)], timeout=10)
        write_verdict(git_repo, "slow-2", complete=True)
        began = time.monotonic()
        proc = run_notify(git_repo, stop_payload(git_repo, "slow-2"))
        took = time.monotonic() - began
    assert proc.returncode == 0, proc.stderr
    assert len(received.posts) == 3
    assert [d["ok"] for d in log_entries(git_repo)[-1]["deliveries"]] == [True] * 3
    assert took < 6, f"three 2.5 s channels took {took:.1f}s: delivered one after another"


def test_a_notifier_killed_while_delivering_has_already_alerted_and_logged(
    git_repo: Path,
) -> None:
    """The host kills a hook at its timeout: the terminal alert and the log line that
    says what was being sent are out before the first delivery starts."""
    with json_receiver(delay=30) as (received, port):
        configure(git_repo, [f"json://127.0.0.1:{port}/"], timeout=30)
        write_verdict(git_repo, "slow-3", complete=True)
        proc = subprocess.Popen(
            [REFLECTION, "notify"],
            cwd=git_repo,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(stop_payload(git_repo, "slow-3")))
        proc.stdin.close()
        assert received.got_one.wait(20), "the delivery never started"
        proc.kill()
        proc.wait(timeout=20)
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.read()
        proc.stdout.close()
        proc.stderr.close()
    assert json.loads(out)["terminalSequence"].startswith("\x1b]9;reflection: task complete")
    assert log_entries(git_repo)[-1]["sending"] == ["json://…"]
