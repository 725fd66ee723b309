"""Verdict files are untrusted (an agent can write or commit them): every reader survives
a link to /dev/zero and deeply nested JSON with a one-line message, never a traceback,
and the notifier as a Stop hook still exits 0. Real files, real CLI processes."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.verdictutil import write_verdict

REFLECTION = str(Path(sys.executable).with_name("reflection"))
ONE_GB = 1 << 30


def _cap_memory() -> None:
    """A reader that slurps /dev/zero fails fast here instead of taking the machine down."""
    resource.setrlimit(resource.RLIMIT_AS, (2 * ONE_GB, 2 * ONE_GB))


def run(repo: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [REFLECTION, *args],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_cap_memory,
    )


@pytest.fixture(params=["link to /dev/zero", "deep JSON"])
def hostile(request: pytest.FixtureRequest, git_repo: Path) -> Path:
    directory = git_repo / ".reflection"
    directory.mkdir()
    target = directory / "verdict_s.json"
    if request.param == "link to /dev/zero":
        target.symlink_to("/dev/zero")
    else:
        target.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    return git_repo


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("verdict", "list"), 0),
        (("verdict", "show"), 1),
        (("verdict", "show", "--session", "s"), 1),
        (("check", "verdict"), 1),
        (("check", "verdict", "--ci"), 1),
        (("check", "verdict", "--session", "s"), 1),
    ],
)
def test_readers_name_the_hostile_file_in_one_line(
    hostile: Path, args: tuple[str, ...], code: int
) -> None:
    result = run(hostile, *args)
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and "Error:" not in result.stderr
    assert "verdict_s.json" in result.stderr or "no verdict" in result.stderr


def test_the_notifier_hook_exits_0_on_a_hostile_file(hostile: Path) -> None:
    payload = {"session_id": "s", "cwd": str(hostile), "hook_event_name": "Stop"}
    result = run(hostile, "notify", "--wait", "0.5", stdin=json.dumps(payload))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "nothing sent" in result.stderr


def test_a_good_verdict_next_to_a_hostile_file_is_still_read(hostile: Path) -> None:
    write_verdict(hostile, "good", complete=True)
    listed = run(hostile, "verdict", "list")
    assert listed.returncode == 0 and "good" in listed.stdout
    assert "skipped" in listed.stderr and "verdict_s.json" in listed.stderr
    assert run(hostile, "check", "verdict", "--session", "good").returncode == 0


@pytest.mark.parametrize("event", ["user-prompt-submit", "session-end"])
def test_the_prompt_and_session_end_hooks_survive_a_hostile_verdict(
    hostile: Path, event: str, tmp_path: Path
) -> None:
    """The next prompt grades the stop's verdict and SessionEnd finalizes it: both read
    the file, bounded, and carry on."""
    payload = {
        "session_id": "s",
        "cwd": str(hostile),
        "transcript_path": str(tmp_path / "none.jsonl"),
        "hook_event_name": "UserPromptSubmit" if event == "user-prompt-submit" else "SessionEnd",
        "prompt": "thanks, looks good",
    }
    result = run(hostile, "hook", event, stdin=json.dumps(payload))
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stdout + result.stderr  # no MemoryError, no recursion
