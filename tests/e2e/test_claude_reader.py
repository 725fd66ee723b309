"""The Claude Code reader with the real pinned CLI, answered by the scripted loopback model.

The reader's call has no tools, so the scripted server answers it as a side query:
the test scripts that answer. A user-level Stop hook that leaves a marker proves the
reader's `claude -p` runs no hooks (it cannot re-enter the Stop hook that called it).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from reflection_core.config import Config, validate
from reflection_core.reading import claude_cli
from reflection_core.reading.dispatch import read
from reflection_core.reading.settings import resolve
from tests.e2e import model_server
from tests.e2e.conftest import scenario_env
from tests.e2e.model_server import ModelServer
from tests.readerutil import builtin, digest
from tests.unit.sessionbuild import SessionBuilder

ANSWER = {"facts": [{"kind": "human_only", "confidence": 0.9, "quote": "log in manually"}]}


def user_hooks(home: Path, marker: Path) -> None:
    """Hooks in the user's own settings that would leave `marker` if any of them ran."""
    hook = [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]
    settings = {"hooks": {"Stop": hook, "UserPromptSubmit": hook, "SessionStart": hook}}
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


@pytest.fixture
def cli_env(
    tmp_path: Path, claude_bin: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, ModelServer]]:
    home = tmp_path / "home"
    home.mkdir()
    marker = tmp_path / "hook-ran"
    user_hooks(home, marker)
    monkeypatch.setattr(model_server, "SIDE_QUERY_ANSWER", json.dumps(ANSWER))
    with ModelServer([]) as server:
        env = scenario_env(home)
        env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="sk-e2e-dummy")
        for key in list(os.environ):  # the reader's CLI inherits exactly the scenario's env
            monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        yield marker, server


def test_the_real_cli_reads_the_digest_and_runs_no_hooks(
    cli_env: tuple[Path, ModelServer], claude_bin: Path
) -> None:
    marker, server = cli_env
    config = Config(
        data=validate({"reader": {"kind": "claude", "claude_path": str(claude_bin)}}, "e2e")
    )
    final = "Deployed. You need to log in manually and copy the session token."
    reading = read(digest(final_message=final), builtin(), config)
    assert reading.error is None, reading.error
    assert reading.reader == "claude:haiku"
    assert reading.confidence("human_only") == pytest.approx(0.9)
    assert reading.cost_tokens > 0
    calls = [r for r in server.model.requests if r.path.split("?")[0].endswith("/v1/messages")]
    assert len(calls) == 1
    assert any(final in text for text in calls[0].all_texts())  # the digest reached the model
    assert not calls[0].body.get("tools")  # no tools offered
    assert not marker.exists(), "a user hook ran inside the reader's claude -p"


def test_the_real_cli_passes_the_turn_to_the_model_and_its_reading_back(
    cli_env: tuple[Path, ModelServer], claude_bin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, server = cli_env
    reason = "#0 pads only the first column; the task asked for every postal code"
    answer = {"facts": [{"kind": "unfinished_work", "confidence": 0.95, "quote": reason}]}
    monkeypatch.setattr(model_server, "SIDE_QUERY_ANSWER", json.dumps(answer))
    session = (
        SessionBuilder("Keep leading zeros in every postal code column of the export.")
        .edit("src/export.py", new="row[0] = row[0].zfill(5)")
        .bash("python -m pytest -q tests/test_export.py", output="2 passed in 0.1s")
        .build("Leading zeros are kept.")
    )
    reader = {"kind": "claude", "claude_path": str(claude_bin), "trace_tokens": 1000}
    reading = read(digest(), builtin(), Config(data=validate({"reader": reader}, "e2e")), session)
    assert reading.error is None, reading.error
    assert reading.confidence("unfinished_work") == pytest.approx(0.95)
    calls = [r for r in server.model.requests if r.path.split("?")[0].endswith("/v1/messages")]
    texts = "\n".join(calls[0].all_texts())
    assert "- unfinished_work: " in json.dumps(calls[0].body.get("system"))  # the turn prompt
    assert "#1 Bash: python -m pytest -q tests/test_export.py -> exit 0" in texts
    assert "    2 passed in 0.1s" in texts  # the result's tail


def test_without_safe_mode_the_same_call_would_run_the_users_hooks(
    cli_env: tuple[Path, ModelServer], claude_bin: Path
) -> None:
    """The control for the test above: it would notice hooks running."""
    marker, _ = cli_env
    settings = resolve({"reader": {"kind": "claude", "claude_path": str(claude_bin)}})
    argv = [a for a in claude_cli.argv(settings) if a != "--safe-mode"]
    subprocess.run(argv, input="{}", capture_output=True, text=True, timeout=120, cwd=marker.parent)
    assert marker.exists()
