"""The Claude Code plugin route (`--plugin-dir` on this checkout) instead of
`reflection init --claude`: the same hooks fire through `hooks/reflection-hook`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import Turn, bash, edit, say

pytestmark = pytest.mark.e2e

CHECKOUT = Path(__file__).resolve().parents[2]
PROMPT = "Add a function sub(a, b) to calc.py that returns a - b. Done when the tests pass."


def _edit_then_test(project: Project, test_command: str = TEST_COMMAND) -> list[Turn]:
    return [
        edit(
            project.path("calc.py"),
            "    return a + b\n",
            "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
        ),
        say("I added sub(). Done."),
        bash(test_command),
        say("Tests pass (1 passed). Done."),
    ]


def test_the_plugin_blocks_an_untested_edit_like_the_installed_hooks(
    bare_project: Project,
) -> None:
    assert not (bare_project.root / ".claude").exists()
    bare_project.write_config("prompt:\n  show_score: true\n")  # a line shows the hook fired
    run = bare_project.run(
        PROMPT,
        _edit_then_test(bare_project),
        extra_args=("--plugin-dir", str(CHECKOUT)),
    )
    assert run.blocks == 1, run.describe()
    assert 'reflection-hook" stop' in run.stop_feedback()[0], run.stop_feedback()  # quoted path
    # A clear prompt adds no model context; with show_score its one line shows the hook fired.
    prompt_lines = [
        m for m in run.hook_messages() if m.startswith("UserPromptSubmit") and "prompt " in m
    ]
    assert prompt_lines, f"the plugin's prompt hook said nothing\n{run.describe()}"
    assert run.verdict()["status"] == "complete", run.verdict()


def test_the_plugin_runs_from_the_checkout_when_reflection_is_not_installed(
    bare_project: Project,
) -> None:
    """No `reflection` on PATH: the launcher runs the core with the system python3."""
    system_path = "/usr/bin:/bin"
    if shutil.which("reflection", path=system_path) or not shutil.which(
        "python3", path=system_path
    ):
        pytest.skip(f"needs python3 and no installed reflection on {system_path}")
    bare_project.env["PATH"] = system_path
    venv_pytest = f"{sys.executable} -m pytest -q"  # the agent's own test environment
    run = bare_project.run(
        PROMPT,
        _edit_then_test(bare_project, venv_pytest),
        extra_args=("--plugin-dir", str(CHECKOUT)),
    )
    assert run.blocks == 1, run.describe()
    assert "pytest" in run.stop_feedback()[0], run.stop_feedback()
    assert not any("internal error" in m for m in run.hook_messages()), run.describe()
    assert run.verdict()["status"] == "complete", run.verdict()
