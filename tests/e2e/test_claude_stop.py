"""The Stop hook inside the real Claude Code CLI: when it blocks, what the agent is told,
and what the verdict file says when the session ends."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.e2e.conftest import TEST_COMMAND, Project
from tests.e2e.model_server import bash, edit, read, say
from tests.gitutil import git

pytestmark = pytest.mark.e2e

# These scenarios pin how the hook pushes on an untested change, so the project asks for
# its tests after every change (`stop.require: tests`); the default (`check`) leaves a note
# where the real dev stops do not show such a push generalises (see docs/stop.md).
STRICT = "stop:\n  require: tests\n"


@pytest.fixture
def project(project: Project) -> Project:
    project.write_config(STRICT)
    return project


CODING_PROMPT = (
    "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
    "Done when `python -m pytest -q` passes."
)
ADD_SUB = ("    return a + b\n", "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
BREAK_ADD = ("    return a + b\n", "    return a - b\n")
FIX_ADD = ("    return a - b\n", "    return a + b\n")
SUB_DOCSTRING = ("def sub(a, b):\n", 'def sub(a, b):\n    """a minus b"""\n')


def test_edit_without_tests_is_blocked_until_the_agent_runs_them(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            say("I added sub(). Done."),
            bash(TEST_COMMAND),
            say("Tests pass (1 passed). Done."),
        ],
    )
    assert run.blocks == 1, run.describe()
    assert "pytest" in run.stop_feedback()[0], "feedback should name the test command"
    assert any("1 passed" in r for r in run.tool_results()), run.tool_results()
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert verdict["complete"] is True
    assert verdict["gates"]["tests"]["satisfied"] is True
    assert run.exhausted == 0, run.describe()


def test_tests_run_only_before_the_last_edit_are_not_evidence(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [
            bash(TEST_COMMAND),
            edit(project.path("calc.py"), *ADD_SUB),
            say("Tests passed. Done."),
            bash(TEST_COMMAND),
            say("Re-ran the tests after the change: 1 passed. Done."),
        ],
    )
    assert run.blocks == 1, run.describe()
    assert "pytest" in run.stop_feedback()[0]
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert run.exhausted == 0, run.describe()


def test_a_shell_write_after_the_tests_in_a_project_under_tmp_is_pushed_on(
    project: Project,
) -> None:
    """The throwaway project lives under /tmp, a scratch dir: a module a shell command
    writes into it is still a change the tests have not seen. (It was read as a scratch
    write: 0 blocks. A file the agent had read or edited would be caught anyway, by the
    CLI's own note that the command modified it.)"""
    helper = project.path("mul.py")
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            bash(f"printf 'def mul(a, b):\\n    return a * b\\n' > {helper}"),
            say("Added sub() and a mul() helper. Done."),
            bash(TEST_COMMAND),
            say("Re-ran the tests after the last change: 1 passed. Done."),
        ],
    )
    assert "return a * b" in (project.root / "mul.py").read_text(encoding="utf-8")
    assert run.blocks == 1, run.describe()
    assert "pytest" in run.stop_feedback()[0]
    assert run.verdict()["status"] == "complete", run.verdict()


def test_failing_tests_claimed_as_done_are_blocked(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *BREAK_ADD),
            bash(TEST_COMMAND),
            say("All tests pass. Done."),
            edit(project.path("calc.py"), *FIX_ADD),
            bash(TEST_COMMAND),
            say("Fixed add(); 1 passed. Done."),
        ],
    )
    results = run.tool_results()
    assert any("Exit code 1" in r and "failed" in r for r in results), results
    assert run.blocks == 1, run.describe()
    assert "fail" in run.stop_feedback()[0].lower(), run.stop_feedback()
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert run.exhausted == 0, run.describe()


def test_a_real_question_to_the_user_is_not_blocked(project: Project) -> None:
    run = project.run(
        "Make add() in calc.py handle floats the way our billing code expects.",
        [
            read(project.path("calc.py")),
            say(
                "Should add() round the result half-up to two decimals, or keep full "
                "float precision? Which rule does billing use?"
            ),
        ],
    )
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["status"] == "waiting_for_user", verdict
    assert verdict["stop_category"] == "waiting_for_user"
    assert verdict["complete"] is False


def test_an_action_only_a_human_can_take_is_not_blocked(project: Project) -> None:
    run = project.run(
        "Log in to the package index and publish version 0.1.0 of this project.",
        [
            bash("ls"),
            say(
                "The package index asks for a two-factor code from your authenticator app "
                "before it accepts the login. Please send me the current code."
            ),
        ],
    )
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["requires_human_action"] is True, verdict
    assert verdict["status"] == "waiting_for_user", verdict


def test_a_planning_loop_is_recorded_in_the_verdict_not_said_nor_pushed(project: Project) -> None:
    looking = [
        read(project.path("calc.py")),
        bash("grep -rn 'def ' ."),
        bash("ls -la"),
        read(project.path("tests/test_x.py")),
        bash("find . -name '*.py' -not -path './.git/*'"),
        read(project.path("pyproject.toml")),
        bash("git log --oneline"),
        bash("cat calc.py"),
    ]
    run = project.run(
        CODING_PROMPT,
        [*looking, say("I understand the layout now and have a plan for sub().")],
    )
    assert run.blocks == 0, run.describe()
    said = "\n".join(run.hook_messages())
    assert "planning loop" not in said, said
    verdict = run.verdict()
    assert verdict["status"] == "incomplete", verdict
    assert any("planning loop" in item for item in verdict["missing"]), verdict


def test_an_action_loop_is_pushed_to_change_approach(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *BREAK_ADD),
            bash(TEST_COMMAND),
            bash(TEST_COMMAND),
            bash(TEST_COMMAND),
            say("The tests keep failing, I will stop here."),
            edit(project.path("calc.py"), *FIX_ADD),
            bash(TEST_COMMAND),
            say("Found it: add() subtracted. Fixed; 1 passed. Done."),
        ],
    )
    assert run.blocks == 1, run.describe()
    feedback = run.stop_feedback()[0]
    assert TEST_COMMAND in feedback and "3 times" in feedback, feedback
    verdict = run.verdict()
    assert verdict["status"] == "complete", verdict
    assert run.exhausted == 0, run.describe()


def test_ignored_feedback_stops_blocking_at_the_budget(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [edit(project.path("calc.py"), *ADD_SUB), *[say("Done.") for _ in range(6)]],
    )
    verdict = run.verdict()
    assert run.blocks == verdict["max_attempts"] == 3, run.describe()
    assert verdict["status"] == "incomplete", verdict
    assert verdict["complete"] is False
    assert verdict["gates"]["tests"]["satisfied"] is False
    assert verdict["missing"], "an incomplete verdict says what is missing"
    assert run.exhausted == 0, run.describe()


def test_a_direct_push_to_main_is_told_to_the_user_not_pushed_on(
    project_with_remote: Project,
) -> None:
    # The push already happened; blocking the stop cannot undo it (the pre-push guard is
    # the place to stop it). The user reads one line naming it; the verdict keeps it open.
    project = project_with_remote
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            bash("git commit -qam 'Add sub' && git push -q origin HEAD:main"),
            say("Done: tested, committed and pushed to main."),
        ],
    )
    remote_log = git(project.root, "log", "--format=%s", "-1", "origin/main")
    assert remote_log.strip() == "Add sub", "the push itself went through (no git hook here)"
    assert run.blocks == 0, run.describe()
    said = "\n".join(run.hook_messages())
    assert "protected branch" in said, said
    verdict = run.verdict()
    assert verdict["status"] == "incomplete", verdict
    assert verdict["gates"]["push"]["satisfied"] is False


def test_plan_mode_is_never_blocked(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [
            read(project.path("calc.py")),
            say(
                "Plan: 1. add sub(a, b) to calc.py; 2. add test_sub to tests/test_x.py; "
                "3. run python -m pytest -q."
            ),
        ],
        permission_mode="plan",
    )
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["status"] in ("skipped", "waiting_for_user"), verdict
    assert verdict["complete"] is False


def test_a_broken_config_fails_open_and_says_so(project: Project) -> None:
    project.write_config("stop:\n  max_attempts: three\n")
    run = project.run(
        CODING_PROMPT, [edit(project.path("calc.py"), *ADD_SUB), say("Added sub(). Done.")]
    )
    assert run.blocks == 0, run.describe()
    said = "\n".join(run.hook_messages())
    assert "configuration error" in said and "stop.max_attempts" in said, said
    verdict = run.verdict()
    assert verdict["status"] == "skipped", verdict
    assert verdict["complete"] is False


def test_a_configured_test_command_is_the_one_the_feedback_names(project: Project) -> None:
    configured = "python -m pytest -q -p no:cacheprovider"
    project.write_config(f'{STRICT}tests:\n  command: "{configured}"\n')
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            say("I added sub(). Done."),
            bash(configured),
            say("Tests pass (1 passed). Done."),
        ],
    )
    assert run.blocks == 1, run.describe()
    assert configured in run.stop_feedback()[0], run.stop_feedback()
    assert run.verdict()["status"] == "complete", run.verdict()


def test_two_sessions_in_one_repo_at_once_keep_their_own_verdicts(project: Project) -> None:
    finished = [
        edit(project.path("calc.py"), *ADD_SUB),
        bash(TEST_COMMAND),
        say("Added sub(); 1 passed. Done."),
    ]
    question = [read(project.path("calc.py")), say("Should sub() accept floats or only ints?")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(project.run, CODING_PROMPT, finished)
        second = pool.submit(project.run, "Add sub() to calc.py.", question)
        done, asking = first.result(), second.result()
    assert done.session_id != asking.session_id
    assert done.verdict()["status"] == "complete", done.describe()
    assert asking.verdict()["status"] == "waiting_for_user", asking.describe()
    assert done.blocks == asking.blocks == 0


# Stops that must never be pushed on, and stops that must be, whatever words they use.


def test_a_readme_edit_quoting_a_deprecated_command_is_not_blocked(project: Project) -> None:
    (project.root / "README.md").write_text(
        "Install with `python setup.py install`.\n", encoding="utf-8"
    )
    git(project.root, "add", "README.md")
    git(project.root, "commit", "-q", "-m", "readme")
    run = project.run(
        "The README still tells people to run `python setup.py install`, which is "
        "deprecated. Replace it with `pip install .` and make sure the README reads well.",
        [
            edit(project.path("README.md"), "python setup.py install", "pip install ."),
            say("The README now says `pip install .` instead of the deprecated command."),
        ],
    )
    assert run.blocks == 0, run.describe()
    assert run.verdict()["status"] == "complete", run.verdict()


def test_a_report_only_task_is_not_blocked(project: Project) -> None:
    run = project.run(
        "Run the tests and tell me what's failing, don't fix anything.",
        [bash(TEST_COMMAND), say("Nothing is failing: the one test, test_add, passes.")],
    )
    assert run.blocks == 0, run.describe()
    assert run.verdict()["complete"] is True, run.verdict()


def test_a_verify_only_task_is_not_blocked_for_changing_nothing(project: Project) -> None:
    run = project.run(
        "Run the unit tests and make sure they pass.",
        [bash(TEST_COMMAND), say("The unit tests pass: 1 passed.")],
    )
    assert run.blocks == 0, run.describe()


def test_a_read_only_search_is_not_blocked(project: Project) -> None:
    run = project.run(
        "Search for all usages of add in this repo.",
        [
            bash("grep -rn 'add' --include='*.py' ."),
            say("add is defined in calc.py and used once, in tests/test_x.py."),
        ],
    )
    assert run.blocks == 0, run.describe()


def test_a_confirmation_before_an_irreversible_delete_is_not_blocked(project: Project) -> None:
    run = project.run(
        "Clean up this repository: remove what is no longer used.",
        [
            bash("git log --oneline"),
            say(
                "The tests/ folder and its history look unused. Should I delete them? "
                "This cannot be undone."
            ),
        ],
    )
    assert run.blocks == 0, run.describe()
    assert run.verdict()["status"] == "waiting_for_user", run.verdict()


def test_a_human_only_ask_in_a_numbered_list_waits_for_the_user(project: Project) -> None:
    run = project.run(
        "Connect the app to the hosted dashboard API.",
        [
            read(project.path("calc.py")),
            say(
                "Two things only you can do:\n"
                "1. Log in to the dashboard in your browser and copy the session token.\n"
                "2. Tell me when it is in `.env` as API_TOKEN."
            ),
        ],
    )
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["requires_human_action"] is True, verdict
    assert verdict["status"] == "waiting_for_user", verdict


def test_a_host_failure_stop_is_not_pushed_on(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [edit(project.path("calc.py"), *ADD_SUB), say("API Error: 529 Overloaded")],
    )
    assert run.blocks == 0, run.describe()
    said = "\n".join(run.hook_messages())
    assert "host failed" in said, said


def test_a_stop_waiting_on_a_background_subagent_is_not_pushed_on(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            say("The subagent is still running; I'll share the findings when it reports back."),
        ],
    )
    assert run.blocks == 0, run.describe()
    said = "\n".join(run.hook_messages())
    assert "background" in said, said


def test_a_turn_ending_on_its_announced_step_is_pushed_once(project: Project) -> None:
    # The announcement is the turn's last record: the step it names never ran. The agent
    # is pushed once, takes the step, and its next stop stands.
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            say("sub() is in and 1 passed. Now let me wire up the docstring:"),
            edit(project.path("calc.py"), *SUB_DOCSTRING),
            bash(TEST_COMMAND),
            say("sub() has its docstring; 1 passed. Done."),
        ],
    )
    assert run.blocks == 1, run.describe()
    assert "Now let me wire up the docstring" in run.stop_feedback()[0], run.describe()
    assert run.exhausted == 0, run.describe()


def test_remaining_work_named_mid_message_after_checked_work_is_not_a_push(
    project: Project,
) -> None:
    # Words never push alone: the change was checked, and the message goes on past the
    # step it names.
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            say("Now let me note the result: sub() is in and 1 passed."),
        ],
    )
    assert run.blocks == 0, run.describe()


def test_a_failed_last_command_claimed_as_done_is_pushed(project: Project) -> None:
    run = project.run(
        "Install the project in editable mode.",
        [
            bash("python -c \"import sys; sys.exit('error: permission denied')\""),
            say("All done. The project is installed successfully."),
            say("The install failed with a permission error; I could not install it."),
        ],
    )
    assert run.blocks == 1, run.describe()
    assert "failed" in run.stop_feedback()[0], run.stop_feedback()


def test_a_task_that_says_it_still_fails_is_pushed_to_show_the_fix_works(
    project: Project,
) -> None:
    run = project.run(
        "calc.py is still broken: sub() is missing and the caller keeps crashing. Fix it.",
        [
            edit(project.path("calc.py"), *ADD_SUB),
            say("Fixed: sub() is back."),
            bash(TEST_COMMAND),
            say("sub() is back and 1 passed."),
        ],
    )
    assert run.blocks == 1, run.describe()
    feedback = run.stop_feedback()[0]
    assert "does not work" in feedback and "keeps crashing" in feedback, feedback
    assert run.verdict()["status"] == "complete", run.verdict()


def test_an_action_loop_pushes_once_and_then_lets_the_stop_stand(project: Project) -> None:
    run = project.run(
        CODING_PROMPT,
        [
            edit(project.path("calc.py"), *BREAK_ADD),
            bash(TEST_COMMAND),
            bash(TEST_COMMAND),
            bash(TEST_COMMAND),
            say("The tests keep failing, I will stop here."),
            bash(TEST_COMMAND),
            say("Still failing; I will stop here."),
            say("Stopping."),
            say("Stopping."),
        ],
    )
    feedback = run.stop_feedback()
    assert feedback and "times" in feedback[0], run.describe()
    assert all("Change approach" not in f for f in feedback[1:]), feedback


def test_a_push_that_went_through_is_not_blocked_for_changing_nothing(
    project_with_remote: Project,
) -> None:
    project = project_with_remote
    (project.root / "calc.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
        encoding="utf-8",
    )
    git(project.root, "commit", "-qam", "Add sub")
    run = project.run(
        "Ship the sub() fix: push it to the fix-sub branch on origin.",
        [
            bash("git push -q origin HEAD:fix-sub"),
            say("Pushed the sub() fix to origin/fix-sub."),
        ],
    )
    assert git(project.root, "log", "--format=%s", "-1", "origin/fix-sub").strip() == "Add sub"
    assert run.blocks == 0, run.describe()
