"""The Stop hook inside the real Claude Code CLI on checks other than `python -m pytest`:
an npm project (also its tests run through a login shell, a `ci` script and a shell script,
whose names say nothing of what they run), a `make test` that wraps pytest,
a stash baseline, a comment-only edit (also one made by a fragment with no comment marker),
a scratch note outside the project, a human-only request written as a numbered list, an
Android variant's test task after a Kotlin edit, and a build of a project with no tests (the
Android one; a Rust crate through the real cargo): each of those stops should stand. And
four that should not: the check of an unchecked change offered to the user as a question, a
Kotlin edit nothing built, a shell script nothing ran or parsed called done, and "Done."
after a failing run piped through `tail`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.conftest import (
    SAMPLE_FILES,
    TEST_COMMAND,
    Project,
    Run,
    install_claude_hooks,
    scenario_env,
)
from tests.e2e.model_server import Turn, bash, edit, say, write
from tests.gitutil import git, make_repo

pytestmark = pytest.mark.e2e

# An npm project whose tests also run through wrappers named for nothing: a `ci` script and
# a shell script (what each runs is read from the repository).
NPM_FILES = {
    "package.json": json.dumps(
        {
            "name": "sample",
            "version": "0.1.0",
            "scripts": {"test": "node --test", "ci": "node --test"},
        },
        indent=2,
    )
    + "\n",
    "calc.js": "function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };\n",
    "test/calc.test.js": (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { add } = require('../calc.js');\n\n"
        "test('add', () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n"
    ),
    "scripts/verify.sh": "#!/bin/sh\nset -e\nnode --test\n",
}
# A Python project whose only test command is the Makefile's, which runs pytest.
MAKE_FILES = {
    "Makefile": "test:\n\tpython -m pytest -q -p no:hypothesispytest tests\n",
    "calc.py": SAMPLE_FILES["calc.py"],
    "tests/__init__.py": "",
    "tests/test_x.py": SAMPLE_FILES["tests/test_x.py"],
}
# An Android-shaped Kotlin project. Its `gradlew` is the project's own stand-in for the
# Gradle wrapper (no Gradle or Kotlin compiler here): it prints what Gradle prints for the
# task it is asked to run. What is under test is the hook reading the task's name.
GRADLE_FILES = {
    "settings.gradle.kts": 'rootProject.name = "shop"\ninclude(":app")\n',
    "app/build.gradle.kts": 'plugins { id("com.android.application") }\n',
    "gradlew": (
        '#!/bin/sh\nfor task in "$@"; do echo "> Task $task"; done\necho "BUILD SUCCESSFUL in 1s"\n'
    ),
    "app/src/main/kotlin/Cart.kt": (
        "class Cart {\n    fun total(prices: List<Int>) = prices.sum()\n}\n"
    ),
}
# A Rust crate with no test anywhere (no `tests/`, no `#[test]`): its check is the build.
RUST_FILES = {
    "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n',
    ".gitignore": "target/\n",
    "src/main.rs": 'fn main() {\n    println!("{}", total(&[2, 3]));\n}\n\n'
    "fn total(prices: &[u32]) -> u32 {\n    prices.iter().sum()\n}\n",
}
# A dotfiles-like repository: one installer script and no test suite, no build.
SCRIPT_FILES = {
    "install.sh": '#!/bin/sh\nset -e\nln -sf "$PWD/zshrc" "$HOME/.zshrc"\n',
    "zshrc": "export EDITOR=vim\n",
}
ADD_GITCONFIG_LINK = (
    'ln -sf "$PWD/zshrc" "$HOME/.zshrc"\n',
    'ln -sf "$PWD/zshrc" "$HOME/.zshrc"\n'
    'if [ -f "$PWD/gitconfig" ]; then ln -sf "$PWD/gitconfig" "$HOME/.gitconfig"; fi\n',
)
ADD_COUNT_RS = (
    "fn total(prices: &[u32]) -> u32 {\n",
    "fn count(prices: &[u32]) -> usize {\n    prices.len()\n}\n\n"
    "fn total(prices: &[u32]) -> u32 {\n",
)
ADD_COUNT_KT = (
    "    fun total(prices: List<Int>) = prices.sum()\n",
    "    fun total(prices: List<Int>) = prices.sum()\n"
    "    fun count(prices: List<Int>) = prices.size\n",
)
ADD_SUB_JS = (
    "module.exports = { add };\n",
    "function sub(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add, sub };\n",
)
ADD_SUB = ("    return a + b\n", "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
COMMENT_SUB = ("def sub(a, b):\n", "def sub(a, b):\n    # The billing report subtracts refunds.\n")


def _project(tmp_path: Path, claude: Path, state: Path, files: dict[str, str]) -> Project:
    """A throwaway repo holding `files`, hooks installed by `reflection init --claude`."""
    root = make_repo(tmp_path / "sample", files=files)
    home = tmp_path / "home"
    home.mkdir()
    env = scenario_env(home)
    env["REFLECTION_STATE_DIR"] = str(state)
    project = Project(root=root, home=home, claude=claude, env=env)
    install_claude_hooks(root, env)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "install reflection hooks")
    return project


@pytest.fixture
def gradle_project(tmp_path: Path, claude_bin: Path, isolated_state: Path) -> Project:
    project = _project(tmp_path, claude_bin, isolated_state, GRADLE_FILES)
    (project.root / "gradlew").chmod(0o755)
    git(project.root, "add", "gradlew")
    git(project.root, "commit", "-q", "-m", "gradlew is executable")
    return project


@pytest.fixture
def rust_project(tmp_path: Path, claude_bin: Path, isolated_state: Path) -> Project:
    """The crate, built by this machine's cargo (its toolchain found outside the scenario's
    own HOME); skipped where there is none."""
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not on PATH")
    project = _project(tmp_path, claude_bin, isolated_state, RUST_FILES)
    home = Path(os.environ.get("HOME", str(Path.home())))
    project.env.setdefault("RUSTUP_HOME", os.environ.get("RUSTUP_HOME", str(home / ".rustup")))
    project.env.setdefault("CARGO_HOME", os.environ.get("CARGO_HOME", str(home / ".cargo")))
    project.env["PATH"] = os.pathsep.join([project.env["PATH"], str(Path(cargo).parent)])
    return project


@pytest.fixture
def script_project(tmp_path: Path, claude_bin: Path, isolated_state: Path) -> Project:
    return _project(tmp_path, claude_bin, isolated_state, SCRIPT_FILES)


@pytest.fixture
def npm_project(tmp_path: Path, claude_bin: Path, isolated_state: Path) -> Project:
    return _project(tmp_path, claude_bin, isolated_state, NPM_FILES)


@pytest.fixture
def make_project(tmp_path: Path, claude_bin: Path, isolated_state: Path) -> Project:
    return _project(tmp_path, claude_bin, isolated_state, MAKE_FILES)


def _stands_after_the_check(
    project: Project, prompt: str, change: Turn, check: str, shown: str
) -> None:
    """The agent changes a file, runs the project's check, which passes (its output shows
    `shown`), and says it is done: the stop stands with no block, verdict `complete`."""
    run = project.run(prompt, [change, bash(check), say(f"Done: `{check}` passes.")])
    assert any(shown in r for r in run.tool_results()), run.tool_results()
    assert run.blocks == 0, run.describe()
    assert run.verdict()["status"] == "complete", run.verdict()


# `bash -lc '...'` (as when a command runs as another user or needs a login PATH): the
# test run inside the command string is the check, as with a bare `bash -c`. `npm run ci`
# and `sh scripts/verify.sh` are named for nothing: what they run is read from the repo.
@pytest.mark.parametrize(
    "command", ["npm test", "bash -lc 'npm test'", "npm run ci", "sh scripts/verify.sh"]
)
def test_a_passing_npm_test_lets_the_stop_stand_without_a_ledger(
    npm_project: Project, command: str
) -> None:
    prompt = "Add a function sub(a, b) to calc.js that returns a - b and export it."
    change = edit(npm_project.path("calc.js"), *ADD_SUB_JS)
    _stands_after_the_check(npm_project, prompt, change, command, "pass 1")


def test_a_passing_make_test_that_runs_pytest_lets_the_stop_stand(make_project: Project) -> None:
    prompt = "Add a function sub(a, b) to calc.py that returns a - b. Done when `make test` passes."
    change = edit(make_project.path("calc.py"), *ADD_SUB)
    _stands_after_the_check(make_project, prompt, change, "make test", "1 passed")


def test_a_human_only_request_as_a_numbered_list_is_held_not_pushed(project: Project) -> None:
    run = project.run(
        "Set up the payment webhook for the checkout.",
        [
            bash("ls"),
            say(
                "Only someone with access to your dashboard can create it:\n"
                "1. Open the dashboard's Developers page and add a webhook endpoint for "
                "`/hooks/payments`.\n"
                "2. Copy its signing secret into `.env` as WEBHOOK_SECRET."
            ),
        ],
    )
    assert run.blocks == 0, run.describe()
    verdict = run.verdict()
    assert verdict["requires_human_action"] is True, verdict
    assert verdict["status"] == "waiting_for_user", verdict


def test_a_stash_baseline_after_passing_tests_is_not_a_new_change(project: Project) -> None:
    run = project.run(
        "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
        "Done when `python -m pytest -q` passes.",
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            bash(f"git stash && {TEST_COMMAND} && git stash pop"),
            say("Added sub(); the tests pass with the change and without it. Done."),
        ],
    )
    assert "def sub" in (project.root / "calc.py").read_text(encoding="utf-8")
    assert run.blocks == 0, run.describe()
    assert run.verdict()["status"] == "complete", run.verdict()


def test_a_scratch_note_outside_the_project_after_a_passing_run_is_not_pushed(
    project: Project,
) -> None:
    """The project lives under /tmp here, as the agent's scratch dir does: the edit inside
    it is a change (the run after it checks it), the note beside it is none."""
    scratch = project.root.parent / "scratchpad" / "sub_check.py"
    scratch.parent.mkdir(exist_ok=True)
    run = project.run(
        "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
        "Done when `python -m pytest -q` passes.",
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            write(str(scratch), "from calc import sub\nprint(sub(5, 3))\n"),
            say("Added sub(); the tests pass. Done."),
        ],
    )
    assert scratch.is_file(), run.describe()  # the CLI really wrote it
    assert run.blocks == 0, run.describe()
    assert run.verdict()["status"] == "complete", run.verdict()


def test_a_comment_only_edit_after_a_passing_run_is_not_pushed(project: Project) -> None:
    run = project.run(
        "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
        "Done when `python -m pytest -q` passes.",
        [
            edit(project.path("calc.py"), *ADD_SUB),
            bash(TEST_COMMAND),
            edit(project.path("calc.py"), *COMMENT_SUB),
            say("Added sub() with a comment on its use; the tests pass. Done."),
        ],
    )
    assert run.blocks == 0, run.describe()
    assert run.verdict()["status"] == "complete", run.verdict()


def test_a_typo_fixed_inside_a_comment_by_a_bare_fragment_is_not_pushed(project: Project) -> None:
    """The agent's fragment ("subtracts refunds") carries no comment marker; the patch the
    CLI records holds the whole line, which is a comment: no check is owed after it."""
    run = project.run(
        "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged. "
        "Done when `python -m pytest -q` passes.",
        [
            edit(project.path("calc.py"), *ADD_SUB),
            edit(project.path("calc.py"), *COMMENT_SUB),
            bash(TEST_COMMAND),
            edit(project.path("calc.py"), "subtracts refunds", "subtracts the refunds"),
            say("Added sub() with a comment on its use; the tests pass. Done."),
        ],
    )
    assert "subtracts the refunds" in (project.root / "calc.py").read_text(), run.describe()
    assert run.blocks == 0, run.describe()
    assert run.verdict()["status"] == "complete", run.verdict()


BREAK_ADD = ("    return a + b\n", "    return a - b\n")
FIX_ADD = ("    return a - b\n", "    return a + b\n")


def test_done_after_a_failing_run_whose_status_a_pipe_hid_is_pushed_once(
    project: Project,
) -> None:
    """`pytest | tail` exits 0 whatever the tests did: the failure its output ends on is the
    evidence against "Done.", as a non-zero exit would be."""
    piped = f"{TEST_COMMAND} 2>&1 | tail -3"
    run = project.run(
        "Make add(a, b) in calc.py return a + b. Done when `python -m pytest -q` passes.",
        [
            edit(project.path("calc.py"), *BREAK_ADD),
            bash(piped),
            say("Done."),
            edit(project.path("calc.py"), *FIX_ADD),
            bash(piped),
            say("Fixed add(); 1 passed. Done."),
        ],
    )
    assert any("1 failed" in r for r in run.tool_results()), run.tool_results()
    assert run.blocks == 1, run.describe()
    assert "contradicts" in run.stop_feedback()[0], run.stop_feedback()
    assert run.verdict()["status"] == "complete", run.verdict()


def _pushed_once_then_stands(
    project: Project, prompt: str, change: Turn, stop: str, check: str, named: str
) -> Run:
    """The agent changes a file and stops with `stop`, nothing checked: one push whose
    feedback says `named`; it runs `check`, which passes, and the stop stands `complete`."""
    run = project.run(prompt, [change, say(stop), bash(check), say(f"Done: `{check}` passes.")])
    assert run.blocks == 1, run.describe()
    assert named in run.stop_feedback()[0], run.stop_feedback()
    assert run.verdict()["status"] == "complete", run.verdict()
    return run


def test_an_offer_to_run_the_check_of_an_unchecked_change_is_pushed_once(
    project: Project,
) -> None:
    """An offer like "Do you want to run the tests now?" hands the check over: it is no real
    question to wait on while nothing has checked the change."""
    run = _pushed_once_then_stands(
        project,
        "Add a function sub(a, b) to calc.py that returns a - b. Keep add() unchanged.",
        edit(project.path("calc.py"), *ADD_SUB),
        "Added sub(). Do you want to run the tests now?",
        TEST_COMMAND,
        "Run it yourself",
    )
    assert any("1 passed" in r for r in run.tool_results()), run.tool_results()


def test_an_android_variant_test_run_after_a_kotlin_edit_lets_the_stop_stand(
    gradle_project: Project,
) -> None:
    prompt = "Add count(prices) to Cart that returns how many prices there are."
    change = edit(gradle_project.path("app/src/main/kotlin/Cart.kt"), *ADD_COUNT_KT)
    _stands_after_the_check(
        gradle_project, prompt, change, "./gradlew testDebugUnitTest", "BUILD SUCCESSFUL"
    )


def test_a_variant_build_checks_a_kotlin_edit_in_a_project_without_tests(
    gradle_project: Project,
) -> None:
    """The project has no `src/test`: `./gradlew test` would run nothing, so the build that
    compiled the change is its check and the verdict is `complete`, not "tests not run"."""
    prompt = "Add count(prices) to Cart that returns how many prices there are."
    change = edit(gradle_project.path("app/src/main/kotlin/Cart.kt"), *ADD_COUNT_KT)
    _stands_after_the_check(
        gradle_project, prompt, change, "./gradlew assembleDebug", "BUILD SUCCESSFUL"
    )


def test_a_cargo_build_checks_an_edit_of_a_crate_without_tests(rust_project: Project) -> None:
    prompt = "Add count(prices) to src/main.rs that returns how many prices there are."
    change = edit(rust_project.path("src/main.rs"), *ADD_COUNT_RS)
    _stands_after_the_check(rust_project, prompt, change, "cargo build --offline", "Finished")


def test_an_unbuilt_kotlin_edit_is_pushed_once_naming_the_projects_build(
    gradle_project: Project,
) -> None:
    _pushed_once_then_stands(
        gradle_project,
        "Add count(prices) to Cart that returns how many prices there are.",
        edit(gradle_project.path("app/src/main/kotlin/Cart.kt"), *ADD_COUNT_KT),
        "Added Cart.count(). Done.",
        "./gradlew build",
        "Run `./gradlew build`",
    )


def test_an_unrun_script_change_called_done_is_pushed_once_naming_its_parse_check(
    script_project: Project,
) -> None:
    """No tests, no build: the script's own shell can still parse it, and nothing ran it."""
    run = _pushed_once_then_stands(
        script_project,
        "Make install.sh also link gitconfig when the repo has one.",
        edit(script_project.path("install.sh"), *ADD_GITCONFIG_LINK),
        "Done: install.sh now links gitconfig too.",
        "bash -n install.sh",
        "Run `bash -n ",
    )
    assert "script changed" in run.stop_feedback()[0], run.stop_feedback()
