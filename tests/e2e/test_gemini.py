"""reflection inside the real Gemini CLI (pinned), driven by a scripted Gemini API on loopback.

Hooks are installed by `reflection init --gemini` as a user would; the CLI runs
headless (`gemini -p`) with an isolated home (GEMINI_CLI_HOME) and talks only to
tests/e2e/gemini_server.py through GOOGLE_GEMINI_BASE_URL.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import SAMPLE_FILES, TEST_COMMAND, pinned_cli, scenario_env
from tests.e2e.gemini_server import GeminiServer, shell, write_file
from tests.e2e.model_server import Turn, say
from tests.gitutil import git, make_repo

pytestmark = pytest.mark.e2e

PINNED_VERSION = "0.61.0"
DEFAULT_GEMINI = Path.home() / ".cache" / "reflection-ci" / "gemini" / "node_modules" / ".bin"
RUN_TIMEOUT = 120
FEEDBACK_PREFIX = "reflection (attempt"
# The user settings a fresh install needs to run headless against an API key, offline.
USER_SETTINGS = {
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
}
CODING_PROMPT = (
    "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
    "Done when `python -m pytest -q` passes."
)
CALC_WITH_SUB = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    return pinned_cli("gemini", "REFLECTION_E2E_GEMINI", DEFAULT_GEMINI / "gemini", PINNED_VERSION)


@dataclass
class GeminiRun:
    proc: subprocess.CompletedProcess[str]
    server: GeminiServer
    repo: Path

    @property
    def session_id(self) -> str:
        try:
            return str(json.loads(self.proc.stdout).get("session_id", ""))
        except json.JSONDecodeError:
            return ""

    def feedback(self) -> list[str]:
        """Our block reasons as the model received them (each a prompt of its own)."""
        seen = self.server.main_requests[-1:] if self.server.main_requests else []
        return [
            part["text"]
            for body in seen
            for content in body.get("contents") or []
            for part in content.get("parts") or []
            if isinstance(part, dict) and str(part.get("text", "")).startswith(FEEDBACK_PREFIX)
        ]

    def verdict(self) -> dict[str, Any]:
        path = self.repo / ".reflection" / f"verdict_{self.session_id}.json"
        assert path.exists(), f"no {path.name}\n{self.describe()}"
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def describe(self) -> str:
        return (
            f"gemini exit {self.proc.returncode}; main-loop requests "
            f"{len(self.server.main_requests)}\nstdout: {self.proc.stdout[-1500:]}\n"
            f"stderr: {self.proc.stderr[-1500:]}"
        )


@dataclass
class GeminiProject:
    root: Path
    env: dict[str, str]
    gemini: Path

    def run(self, prompt: str, turns: list[Turn]) -> GeminiRun:
        with GeminiServer(turns) as server:
            env = {
                **self.env,
                "GOOGLE_GEMINI_BASE_URL": server.base_url,
                "GEMINI_API_KEY": "e2e-dummy",
            }
            proc = subprocess.run(
                [str(self.gemini), "-p", prompt, "--approval-mode=yolo", "-o", "json"],
                cwd=self.root,
                env=env,
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT,
            )
        return GeminiRun(proc, server, self.root)


@pytest.fixture
def gemini_project(tmp_path: Path, gemini_bin: Path, isolated_state: Path) -> GeminiProject:
    root = make_repo(tmp_path / "sample", files=SAMPLE_FILES)
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(USER_SETTINGS), encoding="utf-8")
    env = scenario_env(home)
    env.update({"GEMINI_CLI_HOME": str(home), "REFLECTION_STATE_DIR": str(isolated_state)})
    env = {k: v for k, v in env.items() if not k.startswith(("GEMINI_API", "GOOGLE_"))}
    proc = subprocess.run(
        ["reflection", "init", "--gemini"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "install reflection hooks")
    return GeminiProject(root, env, gemini_bin)


def test_an_edit_without_tests_is_pushed_on_once(gemini_project: GeminiProject) -> None:
    calc = str(gemini_project.root / "calc.py")
    run = gemini_project.run(
        CODING_PROMPT,
        [
            write_file(calc, CALC_WITH_SUB),
            say("I added sub(). Done."),
            shell(TEST_COMMAND),
            say("Tests pass (1 passed). Done."),
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    feedback = run.feedback()
    assert len(feedback) == 1, run.describe()
    assert "pytest" in feedback[0], feedback
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert verdict["gates"]["tests"]["satisfied"] is True


def test_a_tested_change_is_allowed(gemini_project: GeminiProject) -> None:
    calc = str(gemini_project.root / "calc.py")
    run = gemini_project.run(
        CODING_PROMPT,
        [
            write_file(calc, CALC_WITH_SUB),
            shell(TEST_COMMAND),
            say("Added sub(); `python -m pytest -q`: 1 passed. Done."),
        ],
    )
    assert run.proc.returncode == 0, run.describe()
    assert run.feedback() == [], run.describe()
    assert len(run.server.main_requests) == 3, run.describe()
    assert run.verdict()["status"] == "complete"


def test_the_session_leaves_a_final_verdict_file(gemini_project: GeminiProject) -> None:
    run = gemini_project.run(
        "In one sentence, what is a unit test?",
        [say("A unit test checks one small piece of code in isolation.")],
    )
    assert run.proc.returncode == 0, run.describe()
    verdict = run.verdict()
    assert verdict["complete"] is True, verdict
    assert verdict.get("final") is True, verdict
