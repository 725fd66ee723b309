"""The UserPromptSubmit hook inside the real Claude Code CLI: what the model is told."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import bash, edit, read, say

pytestmark = pytest.mark.e2e

VAGUE_PROMPT = "make this file better"
GOOD_PROMPT = (
    "In calc.py, add a function sub(a, b) that returns a - b, next to add(). Do not change "
    "add(). Add test_sub to tests/test_x.py. Done when `python -m pytest -q` passes."
)


def score(project: Project, prompt: str) -> dict[str, Any]:
    """What the scorer says about `prompt`, through the CLI a user would run."""
    proc = subprocess.run(
        ["reflection", "score", "--json", prompt],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, f"reflection score failed: {proc.stderr}"
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def test_questions_for_a_vague_prompt_reach_the_model(project: Project) -> None:
    expected = score(project, VAGUE_PROMPT)
    assert expected["action"] in ("ask", "reformulate"), expected
    assert expected["questions"], expected
    run = project.run(
        VAGUE_PROMPT,
        [say("What should I improve: calc.py's behaviour, its tests, or its docs?")],
    )
    context = run.prompt_context()
    assert context, f"the prompt hook gave no context\n{run.describe()}"
    assert run.model_saw(context[0], request=0), "the context did not reach the model"
    for question in expected["questions"]:
        assert question in context[0], (question, context[0])
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "waiting_for_user", verdict


def test_a_good_prompt_gets_one_line_and_no_questions(project: Project) -> None:
    expected = score(project, GOOD_PROMPT)
    assert expected["action"] == "pass", expected
    run = project.run(
        GOOD_PROMPT,
        [
            edit(
                project.path("calc.py"),
                "    return a + b\n",
                "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            ),
            edit(
                project.path("tests/test_x.py"),
                "from calc import add\n",
                "from calc import add, sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
            ),
            bash(TEST_COMMAND),
            say("Added sub() and test_sub; 2 passed."),
        ],
    )
    context = run.prompt_context()
    assert len(context) <= 1, context
    if context:
        assert run.model_saw(context[0], request=0)
        assert "\n" not in context[0].strip(), f"more than one line for a good prompt: {context}"
        assert "?" not in context[0], f"a good prompt got questions: {context}"
    assert any("2 passed" in r for r in run.tool_results()), run.tool_results()
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert verdict["complete"] is True


def test_the_bypass_prefix_sends_the_prompt_without_context(project: Project) -> None:
    run = project.run("* " + VAGUE_PROMPT, [read(project.path("calc.py")), say("Which part?")])
    assert run.prompt_context() == [], run.prompt_context()
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "waiting_for_user", verdict


def test_block_mode_keeps_a_vague_prompt_from_the_model(project: Project) -> None:
    project.write_config("prompt:\n  mode: block\n")
    run = project.run(VAGUE_PROMPT, [say("This should never be asked for.")])
    assert run.main_requests == [], "a blocked prompt must not reach the model"
    messages = " ".join(run.hook_messages())
    assert "so it was not sent" in run.stdout + run.stderr + messages, run.describe()
    verdict = run.verdict()  # written at session end: no agent turn ran, nothing judged
    assert verdict["status"] == "skipped", verdict
    assert verdict["complete"] is False


def test_a_pick_from_options_listed_before_a_tool_call_is_not_questioned(
    project: Project,
) -> None:
    """The CLI writes the turn's messages apart: the list, the tool call, then a last
    message without the list. "2" picks from the list; "5" picks what was never offered,
    which is recorded but not asked (`option_not_offered` has not generalised yet)."""
    menu = (
        "Three ways to make sub() safe:\n1. Validate the arguments.\n2. Convert to float.\n"
        "3. Leave it as is.\nLet me check how add() handles it first."
    )

    def questions_after_the_list(pick: str) -> list[str]:
        listed = project.run(
            "Look at calc.py and list ways to make sub() safe for strings; change nothing.",
            [
                read(project.path("calc.py"), note=menu),
                say("add() does no checks either, so any of the three fits. Tell me which."),
            ],
        )
        assert listed.blocks == 0, listed.describe()
        picked = project.run(pick, [say("Noted.")], extra_args=("--resume", listed.session_id))
        assert picked.session_id == listed.session_id, picked.describe()
        return [c for c in picked.prompt_context() if "Which option" in c or "refer to" in c]

    assert questions_after_the_list("2") == []
    assert questions_after_the_list("5") == []
