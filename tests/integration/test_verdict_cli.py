"""`reflection verdict` and `reflection notify` as a user runs them: real files, real
processes. Options are checked (a NaN timeout is a usage error, not a hang), every option
the synopsis lists is honoured or refused, and an agent's words cannot drive the terminal."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.verdictutil import iso_utc, write_verdict

REFLECTION = str(Path(sys.executable).with_name("reflection"))
OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [REFLECTION, *args],
        cwd=repo,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e9"])
@pytest.mark.parametrize("command", [("verdict", "wait", "--timeout"), ("notify", "--wait")])
def test_a_timeout_that_is_not_a_finite_span_is_a_usage_error(
    git_repo: Path, value: str, command: tuple[str, ...]
) -> None:
    result = run(git_repo, *command, value)
    assert result.returncode == 2, result.stderr
    assert f"Invalid value for '{command[-1]}'" in result.stderr


def test_show_and_wait_name_a_verdict_dated_in_the_future(git_repo: Path) -> None:
    write_verdict(git_repo, "real", complete=False, created_at=iso_utc(3))
    write_verdict(git_repo, "future", complete=True, created_at="2099-01-01T00:00:00.000Z")
    shown = run(git_repo, "verdict", "show")
    assert shown.returncode == 0 and "session   real" in shown.stdout
    assert "skipped" in shown.stderr and "verdict_future.json" in shown.stderr
    waited = run(git_repo, "verdict", "wait", "--session", "future", "--timeout", "0.3")
    assert waited.returncode == 3
    assert "in the future" in waited.stderr


def test_control_characters_from_the_agent_are_printed_escaped(git_repo: Path) -> None:
    write_verdict(
        git_repo,
        "s",
        complete=False,
        missing=[f'claimed without evidence: "All done {OSC52} yes."', "c1 \x9b2J"],
        next_actions=[f"run {OSC52}\n::set-env name=X::1"],
    )
    outputs = {
        "check": run(git_repo, "check", "verdict", "--ci"),
        "show": run(git_repo, "verdict", "show"),
        "list": run(git_repo, "verdict", "list"),
        "json": run(git_repo, "verdict", "show", "--json"),
    }
    for name, result in outputs.items():
        printed = result.stdout + result.stderr
        assert "\x1b" not in printed and "\x07" not in printed and "\x9b" not in printed, name
    assert "\\x1b]52;c;cm0gLXJmIH4K\\x07" in outputs["check"].stderr
    assert "\\x1b]52;c;cm0gLXJmIH4K\\x07" in outputs["show"].stdout
    assert not any(line.startswith("::set-env") for line in outputs["check"].stdout.splitlines())
    assert json.loads(outputs["json"].stdout)["missing"][1] == "c1 \x9b2J"  # same JSON


def test_list_honours_session_and_since(git_repo: Path) -> None:
    write_verdict(git_repo, "old", complete=True, created_at=iso_utc(600))
    write_verdict(git_repo, "new", complete=False, created_at=iso_utc(1))
    by_session = run(git_repo, "verdict", "list", "--session", "old", "--json")
    assert [v["session_id"] for v in json.loads(by_session.stdout)] == ["old"]
    since = run(git_repo, "verdict", "list", "--since", str(time.time() - 60))
    assert " new " in since.stdout and " old " not in since.stdout
    future = run(git_repo, "verdict", "list", "--since", "2099-01-01")
    assert future.returncode == 0 and "No verdicts matching" in future.stdout


@pytest.mark.parametrize(
    "args",
    [("list", "--timeout", "5"), ("show", "--timeout", "5"), ("show", "--since", "0")],
)
def test_options_a_verdict_action_does_not_use_are_refused(
    git_repo: Path, args: tuple[str, ...]
) -> None:
    result = run(git_repo, "verdict", *args)
    assert result.returncode == 2
    assert "applies to" in result.stderr


def test_wait_since_keeps_the_staleness_bound(git_repo: Path) -> None:
    (git_repo / ".reflection.yaml").write_text("verdict:\n  stale_seconds: 2\n", "utf-8")
    write_verdict(git_repo, "s", complete=True, created_at=iso_utc(3600))
    two_hours_ago = str(int(time.time() - 7200))
    args = ("verdict", "wait", "--session", "s", "--since", two_hours_ago, "--timeout", "0.3")
    waited = run(git_repo, *args)
    assert waited.returncode == 3, waited.stdout
    write_verdict(git_repo, "s", complete=True, created_at=iso_utc(1))
    assert run(git_repo, *args).returncode == 0


def test_notify_by_hand_resends_the_latest_verdict_however_old(git_repo: Path) -> None:
    write_verdict(git_repo, "s", complete=True, created_at=iso_utc(3600))
    result = run(git_repo, "notify", "--session", "s")
    assert result.returncode == 0, result.stderr
    assert "no fresh verdict" not in result.stderr
    assert "reflection: task complete" in result.stdout
