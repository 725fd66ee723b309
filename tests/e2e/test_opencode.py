"""reflection inside the real OpenCode (pinned), its model a scripted Anthropic API on loopback.

The plugin is installed by `reflection init --opencode` as a user would. OpenCode
runs as `opencode serve` (the server its TUI drives) with an isolated home; the
test sends the prompt over its HTTP API and waits for the session to settle.
`opencode run` is not used: it exits as soon as the session goes idle, so a
prompt the plugin sends at that moment is never answered.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import SAMPLE_FILES, TEST_COMMAND, pinned_cli, scenario_env
from tests.e2e.model_server import ModelServer, ToolUse, Turn, say
from tests.gitutil import git, make_repo

pytestmark = pytest.mark.e2e

PINNED_VERSION = "1.18.33"
DEFAULT_OPENCODE = (
    Path.home() / ".cache" / "reflection-ci" / "opencode" / "node_modules" / ".bin" / "opencode"
)
SETTLE_TIMEOUT = 90
FEEDBACK_PREFIX = "reflection (attempt"
CODING_PROMPT = (
    "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
    "Done when `python -m pytest -q` passes."
)
CALC_WITH_SUB = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
# OpenCode installs its plugin SDK into .opencode/ at startup; a dead loopback registry
# keeps that offline (the install fails quietly and the plugin needs none of it).
OFFLINE_REGISTRY = "http://127.0.0.1:9/"


def write(path: str, content: str) -> Turn:
    return [ToolUse("write", {"filePath": path, "content": content})]


def bash(command: str) -> Turn:
    return [ToolUse("bash", {"command": command, "description": command[:60]})]


@pytest.fixture(scope="session")
def opencode_bin() -> Path:
    return pinned_cli("opencode", "REFLECTION_E2E_OPENCODE", DEFAULT_OPENCODE, PINNED_VERSION)


def _call(url: str, body: Any = None, timeout: float = 120) -> Any:
    request = urllib.request.Request(
        url,
        method="GET" if body is None else "POST",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"null")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class EventStream:
    """The server's bus events (`GET /event`, server-sent events), read on a thread."""

    def __init__(self, base: str) -> None:
        self.events: list[dict[str, Any]] = []
        self._connected = threading.Event()
        self._response = urllib.request.urlopen(f"{base}/event", timeout=SETTLE_TIMEOUT)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        assert self._connected.wait(10), "no event from /event"

    def _read(self) -> None:
        try:
            for raw in self._response:
                line = raw.decode("utf-8", "replace").strip()
                if line.startswith("data:"):
                    self.events.append(json.loads(line[len("data:") :]))
                    self._connected.set()
        except (OSError, ValueError):
            pass  # the server went away

    def toasts(self) -> list[dict[str, Any]]:
        """What the plugin showed the user: `tui.toast.show` events, their properties."""
        return [
            dict(event.get("properties") or {})
            for event in list(self.events)
            if event.get("type") == "tui.toast.show"
        ]

    def close(self) -> None:
        self._response.close()
        self._reader.join(timeout=5)


@dataclass
class OpenCodeRun:
    session_id: str
    messages: list[dict[str, Any]]
    main_turns: int
    repo: Path
    log: str
    toasts: list[dict[str, Any]]  # what the plugin showed the user

    def prompts(self) -> list[str]:
        return [
            str(part.get("text", ""))
            for message in self.messages
            if message["info"].get("role") == "user"
            for part in message["parts"]
            if part.get("type") == "text" and not part.get("synthetic")
        ]

    def feedback(self) -> list[str]:
        return [p for p in self.prompts() if p.startswith(FEEDBACK_PREFIX)]

    def verdict(self) -> dict[str, Any]:
        path = self.repo / ".reflection" / f"verdict_{self.session_id}.json"
        assert path.exists(), f"no {path.name}\n{self.describe()}"
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def describe(self) -> str:
        return (
            f"main-loop turns {self.main_turns}; prompts {self.prompts()}\n"
            f"opencode log tail: {self.log[-2000:]}"
        )


@dataclass
class OpenCodeProject:
    root: Path
    home: Path
    env: dict[str, str]
    opencode: Path

    def run(self, prompt: str, turns: list[Turn], stops: int, toasts: int = 0) -> OpenCodeRun:
        """Send `prompt`, then wait until the plugin has judged `stops` idle moments and
        shown `toasts` toasts."""
        with ModelServer(turns) as model:
            config = {
                "$schema": "https://opencode.ai/config.json",
                "autoupdate": False,
                "share": "disabled",
                "provider": {
                    "scripted": {
                        "npm": "@ai-sdk/anthropic",
                        "name": "Scripted",
                        "options": {"baseURL": model.base_url + "/v1", "apiKey": "e2e-dummy"},
                        "models": {"scripted-model": {"name": "Scripted"}},
                    }
                },
                "model": "scripted/scripted-model",
                "small_model": "scripted/scripted-model",
                "permission": {"edit": "allow", "bash": "allow"},
            }
            config_file = self.home / "opencode.json"
            config_file.write_text(json.dumps(config), encoding="utf-8")
            port = _free_port()
            log_file = self.home / "opencode.log"
            env = {**self.env, "OPENCODE_CONFIG": str(config_file)}
            with log_file.open("w") as log:
                server = subprocess.Popen(
                    [str(self.opencode), "serve", "--hostname", "127.0.0.1", "--port", str(port)],
                    cwd=self.root,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            base = f"http://127.0.0.1:{port}"
            stream: EventStream | None = None
            try:
                deadline = time.monotonic() + SETTLE_TIMEOUT
                self._wait_until_up(base, deadline)
                stream = EventStream(base)
                session_id = self._drive(base, prompt, deadline, stops, toasts, stream)
                messages = _call(f"{base}/session/{session_id}/message")
            finally:
                server.terminate()
                server.wait(timeout=20)
                if stream is not None:
                    stream.close()
            main_turns = sum(1 for r in model.model.requests if r.main_loop)
        return OpenCodeRun(
            session_id,
            messages,
            main_turns,
            self.root,
            log_file.read_text(errors="replace"),
            stream.toasts(),
        )

    @staticmethod
    def _wait_until_up(base: str, deadline: float) -> None:
        while True:
            try:
                _call(f"{base}/session", timeout=5)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def _drive(
        self,
        base: str,
        prompt: str,
        deadline: float,
        stops: int,
        toasts: int,
        stream: EventStream,
    ) -> str:
        session_id = str(_call(f"{base}/session", {})["id"])
        _call(f"{base}/session/{session_id}/message", {"parts": [{"type": "text", "text": prompt}]})
        records = self.root / ".reflection" / "records"
        while (
            len(list(records.glob(f"{session_id}_*.json"))) < stops or len(stream.toasts()) < toasts
        ):
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        time.sleep(2)  # a push the plugin might still send would show up now
        return session_id


@pytest.fixture
def opencode_project(tmp_path: Path, opencode_bin: Path, isolated_state: Path) -> OpenCodeProject:
    root = make_repo(tmp_path / "sample", files=SAMPLE_FILES)
    home = tmp_path / "home"
    home.mkdir()
    env = scenario_env(home)
    env.update(
        {
            "REFLECTION_STATE_DIR": str(isolated_state),
            "PWD": str(root),  # OpenCode takes its project directory from PWD
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "npm_config_registry": OFFLINE_REGISTRY,
            "npm_config_offline": "true",
            "npm_config_fetch_retries": "0",
            "BUN_CONFIG_REGISTRY": OFFLINE_REGISTRY,
        }
    )
    proc = subprocess.run(
        ["reflection", "init", "--opencode"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "install reflection plugin")
    return OpenCodeProject(root, home, env, opencode_bin)


def test_an_edit_without_tests_is_pushed_on_once(opencode_project: OpenCodeProject) -> None:
    calc = str(opencode_project.root / "calc.py")
    run = opencode_project.run(
        CODING_PROMPT,
        [
            write(calc, CALC_WITH_SUB),
            say("I added sub(). Done."),
            bash(TEST_COMMAND),
            say("Tests pass (1 passed). Done."),
        ],
        stops=2,
    )
    feedback = run.feedback()
    assert len(feedback) == 1, run.describe()
    assert "pytest" in feedback[0], feedback
    assert run.main_turns == 4, run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert verdict["gates"]["tests"]["satisfied"] is True


def test_a_tested_change_is_allowed(opencode_project: OpenCodeProject) -> None:
    calc = str(opencode_project.root / "calc.py")
    run = opencode_project.run(
        CODING_PROMPT,
        [
            write(calc, CALC_WITH_SUB),
            bash(TEST_COMMAND),
            say("Added sub(); `python -m pytest -q`: 1 passed. Done."),
        ],
        stops=1,
    )
    assert run.feedback() == [], run.describe()
    assert run.main_turns == 3, run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    # A good prompt gets no answer, and a complete stop says nothing.
    assert run.toasts == [], run.toasts


def test_a_vague_task_gets_questions_and_a_stop_that_asks_them_stands_quietly(
    opencode_project: OpenCodeProject,
) -> None:
    run = opencode_project.run(
        "make everything in this file better",
        [say("Which part should I start with: speed, tests or docs?")],
        stops=1,
    )
    synthetic = [
        part.get("text", "")
        for message in run.messages
        for part in message["parts"]
        if part.get("synthetic")
    ]
    assert any(text.startswith("[reflection]") for text in synthetic), run.describe()
    assert run.feedback() == [], run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "waiting_for_user", verdict
    # The user sees the prompt's line; the agent's own question needs no line of ours.
    (prompt_line,) = run.toasts
    assert prompt_line["message"].endswith("passed to the agent"), prompt_line
    assert prompt_line["variant"] == "info", prompt_line


def test_a_question_to_the_agent_adds_nothing_to_its_context(
    opencode_project: OpenCodeProject,
) -> None:
    run = opencode_project.run(
        "In one sentence, what is a unit test?",
        [say("A unit test checks one small piece of code in isolation.")],
        stops=1,
    )
    assert not any(
        part.get("synthetic") for message in run.messages for part in message["parts"]
    ), run.describe()
    verdict = run.verdict()
    assert verdict["complete"] is True, verdict


def test_a_configuration_error_is_shown_as_a_warning_toast(
    opencode_project: OpenCodeProject,
) -> None:
    (opencode_project.root / ".reflection.yaml").write_text(
        "stop:\n  max_attempts: many\n", encoding="utf-8"
    )
    run = opencode_project.run(
        "In one sentence, what is a unit test?",
        [say("A unit test checks one small piece of code in isolation.")],
        stops=1,
    )
    prompt_line, stop_line = run.toasts
    assert prompt_line["message"].startswith("reflection: prompt not scored, configuration error")
    assert stop_line["message"].startswith("reflection: configuration error, stop not judged")
    assert all(".reflection.yaml: stop.max_attempts" in t["message"] for t in run.toasts)
    assert {prompt_line["variant"], stop_line["variant"]} == {"warning"}
    assert run.verdict()["status"] == "skipped"


def test_a_reflection_that_cannot_run_is_shown_as_a_warning_toast(
    opencode_project: OpenCodeProject,
) -> None:
    """The command the plugin was written with is gone (its environment was removed)."""
    plugin = opencode_project.root / ".opencode" / "plugins" / "reflection.js"
    gone = opencode_project.root / "removed-env" / "reflection"
    text = re.sub(
        r"^const REFLECTION = .*$",
        f"const REFLECTION = {json.dumps([str(gone)])}",
        plugin.read_text(encoding="utf-8"),
        count=1,
        flags=re.M,
    )
    assert str(gone) in text
    plugin.write_text(text, encoding="utf-8")
    run = opencode_project.run(
        "In one sentence, what is a unit test?",
        [say("A unit test checks one small piece of code in isolation.")],
        stops=0,
        toasts=2,
    )
    assert [t["message"] for t in run.toasts] == [
        "reflection: the user-prompt-submit check did not run (ENOENT); it did not block anything.",
        "reflection: the stop check did not run (ENOENT); it did not block anything.",
    ], run.describe()
    assert {t["variant"] for t in run.toasts} == {"warning"}
    assert run.main_turns == 1, run.describe()
