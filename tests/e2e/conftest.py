"""Harness for end-to-end scenarios: the real Claude Code CLI, a scripted loopback model.

Each scenario gets a throwaway git repo holding a small Python project with a
passing test, hooks installed by `reflection init --claude` exactly as a user
would, an isolated HOME and state dir, and a `ModelServer` replaying the
agent's turns. Nothing leaves 127.0.0.1.

Where the CLI is missing: in CI (`CI=true`) every e2e test fails saying how to
install it; locally they skip with the reason printed (`-ra`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.model_server import ModelServer, RecordedRequest, Turn
from tests.gitutil import git, make_bare_remote, make_repo

PINNED_VERSION = "2.1.328"
DEFAULT_CLAUDE = (
    Path.home() / ".cache" / "reflection-ci" / "claude-code" / "node_modules" / ".bin" / "claude"
)
RUN_TIMEOUT = 120  # seconds per CLI run: a hang fails the scenario instead of wedging CI
STOP_FEEDBACK_PREFIX = "Stop hook blocking error from command:"
# Variables of an enclosing agent session or test run that must not leak into the CLI.
_LEAKY_PREFIXES = ("CLAUDE", "ANTHROPIC", "PYTEST_", "OTEL_", "CODEX")

SAMPLE_FILES = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/__init__.py": "",
    "tests/test_x.py": ("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"),
    "pyproject.toml": (
        '[project]\nname = "sample"\nversion = "0.1.0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
        # This venv's hypothesis plugin costs seconds per run; the sample has no use for it.
        'addopts = "-p no:hypothesispytest"\n'
    ),
}
TEST_COMMAND = "python -m pytest -q"


def _claude_path() -> Path:
    return Path(os.environ.get("REFLECTION_E2E_CLAUDE") or DEFAULT_CLAUDE)


def _missing(reason: str) -> None:
    """Fail in CI (the suite must prove the hooks there), skip with the reason locally."""
    hint = (
        f"{reason}. Install it with `npm install --prefix <dir> "
        f"@anthropic-ai/claude-code@{PINNED_VERSION}` and set REFLECTION_E2E_CLAUDE to "
        "<dir>/node_modules/.bin/claude (`.ci/run` does this)."
    )
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(hint, pytrace=False)
    pytest.skip(hint)


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The pinned Claude Code CLI, checked once per test session."""
    path = _claude_path()
    if not path.exists():
        _missing(f"the Claude Code CLI is not installed at {path}")
    proc = subprocess.run(
        [str(path), "--version"], capture_output=True, text=True, timeout=60, env=_base_env()
    )
    if PINNED_VERSION not in proc.stdout:
        _missing(
            f"{path} is version {proc.stdout.strip() or proc.stderr.strip()!r}, "
            f"the scenarios are pinned to {PINNED_VERSION}"
        )
    return path


def _base_env() -> dict[str, str]:
    """The caller's environment minus anything of an enclosing agent session or pytest run."""
    return {k: v for k, v in os.environ.items() if not k.startswith(_LEAKY_PREFIXES)}


@dataclass
class Run:
    """What one `claude -p` run left behind."""

    returncode: int
    stdout: str
    stderr: str
    result: dict[str, Any]
    requests: list[RecordedRequest]
    exhausted: int
    repo: Path

    @property
    def session_id(self) -> str:
        return str(self.result.get("session_id", ""))

    @property
    def main_requests(self) -> list[RecordedRequest]:
        """The main agent's loop requests (not side queries, not subagents)."""
        return [r for r in self.requests if r.main_loop and r.agent is None]

    def subagent_requests(self, key: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.agent == key]

    def texts_seen(self) -> list[str]:
        """Every message text the model was sent in its last main-loop request."""
        if not self.main_requests:
            return []
        return list(self.main_requests[-1].all_texts())

    def stop_feedback(self) -> list[str]:
        """The Stop hook's block reasons as the model received them, in order."""
        return [
            STOP_FEEDBACK_PREFIX + piece.split("</system-reminder>", 1)[0].rstrip()
            for text in self.texts_seen()
            for piece in text.split(STOP_FEEDBACK_PREFIX)[1:]
        ]

    @property
    def blocks(self) -> int:
        return len(self.stop_feedback())

    def hook_context(self, event: str) -> list[str]:
        """`additionalContext` the CLI took from `event`'s hooks, verbatim, per the transcript.

        The request text is no exact copy: the CLI merges several reminders into one
        block. Check delivery with `model_saw`.
        """
        return [
            str(item)
            for attachment in self._attachments()
            if attachment.get("type") == "hook_additional_context"
            and attachment.get("hookEvent") == event
            for item in attachment.get("content") or []
        ]

    def prompt_context(self) -> list[str]:
        return self.hook_context("UserPromptSubmit")

    def model_saw(self, text: str, request: int = -1) -> bool:
        """Whether the main agent's request (default: the last) carried `text`."""
        if not self.main_requests:
            return False
        return any(text in t for t in self.main_requests[request].all_texts())

    def tool_results(self) -> list[str]:
        """Tool results the model saw (Bash output, edit confirmations), in order."""
        if not self.main_requests:
            return []
        return list(self.main_requests[-1].tool_result_texts())

    def verdict(self) -> dict[str, Any]:
        path = self.repo / ".reflection" / f"verdict_{self.session_id}.json"
        assert path.exists(), (
            f"no verdict file {path.name}; .reflection holds "
            f"{sorted(p.name for p in path.parent.glob('*'))}\n{self.describe()}"
        )
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    @property
    def transcript(self) -> Path:
        return Path(self.result.get("transcript_path") or "")

    def _attachments(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        if not self.transcript.is_file():
            return found
        for line in self.transcript.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            attachment = record.get("attachment") if isinstance(record, dict) else None
            if isinstance(attachment, dict):
                found.append(attachment)
        return found

    def hook_messages(self) -> list[str]:
        """What the hooks told the user (system messages, errors), from the transcript."""
        messages: list[str] = []
        for attachment in self._attachments():
            kind = str(attachment.get("type", ""))
            if kind == "hook_system_message":
                messages.append(f"{attachment.get('hookEvent')}: {attachment.get('content')}")
            elif kind.startswith("hook_") and kind != "hook_additional_context":
                text = f"{attachment.get('stdout', '')}{attachment.get('stderr', '')}".strip()
                if text:
                    messages.append(f"{attachment.get('hookEvent')} ({kind}): {text[:500]}")
        return messages

    def describe(self) -> str:
        """Enough context for an assertion message to explain a failure."""
        feedback = "\n  ".join(self.stop_feedback()) or "(none)"
        hooks = "\n  ".join(self.hook_messages()) or "(none)"
        return (
            f"claude exit {self.returncode}; main-loop requests {len(self.main_requests)}; "
            f"script overrun {self.exhausted}\nstop feedback:\n  {feedback}\n"
            f"hook messages:\n  {hooks}\nstderr: {self.stderr[-1500:]}"
        )


@dataclass
class Project:
    """A throwaway repo with the sample project, hooks installed, ready for `run`."""

    root: Path
    home: Path
    claude: Path
    env: dict[str, str] = field(default_factory=dict)

    def run(
        self,
        prompt: str,
        turns: list[Turn],
        *,
        permission_mode: str = "bypassPermissions",
        extra_args: tuple[str, ...] = (),
        timeout: int = RUN_TIMEOUT,
        subagents: dict[str, list[Turn]] | None = None,
    ) -> Run:
        """Drive one headless session through the scripted model."""
        with ModelServer(turns, subagents) as server:
            env = {
                **self.env,
                "ANTHROPIC_BASE_URL": server.base_url,
                "ANTHROPIC_API_KEY": "sk-e2e-dummy",
            }
            proc = subprocess.run(
                [
                    str(self.claude),
                    "-p",
                    prompt,
                    "--permission-mode",
                    permission_mode,
                    "--output-format",
                    "json",
                    *extra_args,
                ],
                cwd=self.root,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            requests = list(server.model.requests)
            exhausted = server.model.exhausted
        try:
            result = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
        except json.JSONDecodeError:
            result = {}
        run = Run(proc.returncode, proc.stdout, proc.stderr, result, requests, exhausted, self.root)
        if run.session_id:
            run.result.setdefault("transcript_path", str(self._transcript_for(run.session_id)))
        save_dir = os.environ.get("REFLECTION_E2E_SAVE_TRANSCRIPTS")
        if save_dir and run.transcript.is_file():
            save_transcript(run.transcript, Path(save_dir))
        return run

    def _transcript_for(self, session_id: str) -> Path:
        found = list((self.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
        return found[0] if found else Path()

    def path(self, rel: str) -> str:
        """Absolute path of a project file, as the agent's tools take it."""
        return str(self.root / rel)

    def write_config(self, text: str) -> None:
        (self.root / ".reflection.yaml").write_text(text, encoding="utf-8")
        git(self.root, "add", ".reflection.yaml")
        git(self.root, "commit", "-q", "-m", "reflection config")


# Records that only copy the CLI's own request shape and system prompt: large, and
# nothing a transcript reader needs. They carry no uuid, so dropping them breaks no chain.
_BULKY_RECORDS = ("api-request-blob", "api-request-shape")
SNAPSHOT_OMITTED = "(system prompt omitted from this fixture)"


def fixture_lines(lines: list[str]) -> list[str]:
    """A transcript made fixture-sized: bulky records dropped, system prompt copies blanked."""
    out = []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            out.append(line)
            continue
        if not isinstance(record, dict) or record.get("type") in _BULKY_RECORDS:
            continue
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "prompt_snapshot":
            attachment["systemPrompt"] = [SNAPSHOT_OMITTED]
            if "tools" in attachment:
                attachment["tools"] = [SNAPSHOT_OMITTED]
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        out.append(line)
    return out


def save_transcript(transcript: Path, directory: Path) -> Path:
    """Keep a run's transcript as a fixture, named for the test that produced it.

    Set REFLECTION_E2E_SAVE_TRANSCRIPTS=DIR to refresh `tests/e2e/fixtures/`.
    """
    test = os.environ.get("PYTEST_CURRENT_TEST", "run").split("::")[-1].split(" ")[0]
    directory.mkdir(parents=True, exist_ok=True)
    taken = len(list(directory.glob(f"{test}*.jsonl")))
    target = directory / (f"{test}.jsonl" if not taken else f"{test}_{taken + 1}.jsonl")
    lines = transcript.read_text(encoding="utf-8").splitlines(keepends=True)
    target.write_text("".join(fixture_lines(lines)), encoding="utf-8")
    return target


def install_claude_hooks(root: Path, env: dict[str, str]) -> None:
    """`reflection init --claude`, exactly as a user runs it."""
    proc = subprocess.run(
        ["reflection", "init", "--claude"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, f"reflection init --claude failed: {proc.stdout}{proc.stderr}"
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "Stop" in settings["hooks"], settings


def scenario_env(home: Path) -> dict[str, str]:
    """The CLI's environment: offline, isolated HOME, this interpreter's bin dir first on PATH."""
    bin_dir = str(Path(sys.executable).parent)
    env = _base_env()
    env.update(
        {
            "HOME": str(home),
            "PATH": os.pathsep.join([bin_dir, env.get("PATH", "/usr/bin:/bin")]),
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",  # bypassPermissions is refused to root without it
            "NO_COLOR": "1",
            "PRE_COMMIT_HOME": str(home / "pre-commit-cache"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Test Author",
            "GIT_AUTHOR_EMAIL": "author@example.com",
            "GIT_COMMITTER_NAME": "Test Author",
            "GIT_COMMITTER_EMAIL": "author@example.com",
            # The scripted agent edits calc.py twice within a second to the same size
            # (`a + b` -> `a - b` -> `a + b`); bytecode caches keyed on whole seconds and
            # size would run the stale module and fail a suite that passes.
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    return env


def _sample(tmp_path: Path, claude: Path, state: Path) -> Project:
    root = make_repo(tmp_path / "sample", files=SAMPLE_FILES)
    home = tmp_path / "home"
    home.mkdir()
    env = scenario_env(home)
    env["REFLECTION_STATE_DIR"] = str(state)
    return Project(root=root, home=home, claude=claude, env=env)


@pytest.fixture
def project(tmp_path: Path, claude_bin: Path, isolated_state: Path) -> Project:
    """A sample project with Claude Code hooks installed by `reflection init --claude`."""
    sample = _sample(tmp_path, claude_bin, isolated_state)
    install_claude_hooks(sample.root, sample.env)
    git(sample.root, "add", "-A")
    git(sample.root, "commit", "-q", "-m", "install reflection hooks")
    return sample


@pytest.fixture
def bare_project(tmp_path: Path, claude_bin: Path, isolated_state: Path) -> Project:
    """The sample project with no hooks configured (for the plugin route)."""
    return _sample(tmp_path, claude_bin, isolated_state)


@pytest.fixture
def project_with_remote(project: Project, tmp_path: Path) -> Project:
    """`project` plus a local bare `origin` that already holds `main`."""
    make_bare_remote(tmp_path / "origin.git", project.root)
    git(project.root, "push", "-q", "origin", "main")
    return project


def pinned_cli(name: str, env_var: str, default: Path, version: str) -> Path:
    """The pinned CLI `name` (its path from `env_var`, else `default`): skip without it,
    fail under CI, with the line that installs it."""
    path = Path(os.environ.get(env_var) or default)
    hint = (
        f"{name} {version} is not installed at {path}: run tests/e2e/install_cli.sh "
        f"{name} and set {env_var} to the path it prints"
    )
    found = ""
    if path.exists():
        proc = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60)
        found = proc.stdout.strip()
    if found != version:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{hint} (found {found!r})", pytrace=False)
        pytest.skip(hint)
    return path
